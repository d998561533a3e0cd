// Package cu is the raw binding of the CUDA driver API, opened at run time
// through purego: libcuda.so.1 on Linux, nvcuda.dll on Windows, nothing
// elsewhere. No cgo and no CUDA headers are needed to build it.
//
// Every function is called through purego.SyscallN on a symbol resolved once
// by Load; the versioned names (cuMemAlloc_v2, ...) of the 64-bit ABI are
// used, never the legacy unversioned ones. A symbol the library lacks is 0:
// required ones make Load fail, optional ones make their wrapper return
// ErrorNotSupported, so only the feature that needs them is missing.
//
// The wrappers return the CUresult as a Result; Result.Err turns it into an
// *errors.Error through the errors package's table. Pointer arguments are
// unsafe.Pointer so that what they point to escapes to the heap (a C call
// must not see a Go stack that can move); hot-path callers pass memory they
// own and reuse.
package cu

import (
	"fmt"
	"runtime"
	"strings"

	"github.com/anygpu/gpu/errors"
	"github.com/anygpu/gpu/internal/dl"
)

// Result is a CUresult.
type Result int32

// Results the backend tests for by value.
const (
	Success                         Result = 0
	ErrorInvalidValue               Result = 1
	ErrorOutOfMemory                Result = 2
	ErrorNotInitialized             Result = 3
	ErrorStubLibrary                Result = 34
	ErrorNoDevice                   Result = 100
	ErrorInvalidContext             Result = 201
	ErrorNotFound                   Result = 500
	ErrorNotReady                   Result = 600
	ErrorIllegalAddress             Result = 700
	ErrorPeerAccessAlreadyEnabled   Result = 704
	ErrorNotSupported               Result = 801
	ErrorInvalidHandle              Result = 400
	ErrorLaunchOutOfResources       Result = 701
	ErrorInvalidImage               Result = 200
	ErrorPeerAccessUnsupported      Result = 217
	ErrorContextIsDestroyed         Result = 709
	ErrorPrimaryContextActive       Result = 708
	ErrorUnsupportedPTXVersion      Result = 222
	ErrorSharedObjectSymbolNotFound Result = 302
	ErrorNoBinaryForGPU             Result = 209
	ErrorInvalidPTX                 Result = 218
	ErrorInvalidSource              Result = 300
)

// Err converts r to an error for operation op: nil for Success, else an
// *errors.Error (Backend "cuda") with the code's name, category, flags and
// hint.
func (r Result) Err(op string) error { return errors.FromCUDA(int64(r), op) }

// Fatal reports whether r is a sticky error: the context is unusable after it.
func (r Result) Fatal() bool {
	c, ok := errors.CUDACode(int64(r))
	return ok && c.Fatal
}

// String is the code's symbolic name.
func (r Result) String() string {
	if c, ok := errors.CUDACode(int64(r)); ok {
		return c.Name
	}
	return fmt.Sprintf("CUresult(%d)", int32(r))
}

// Handles of the driver API.
type (
	Device    int32   // CUdevice
	Context   uintptr // CUcontext
	Stream    uintptr // CUstream
	Event     uintptr // CUevent
	Module    uintptr // CUmodule
	Function  uintptr // CUfunction
	DevicePtr uint64  // CUdeviceptr
	Graph     uintptr // CUgraph
	GraphExec uintptr // CUgraphExec
)

// Sym names one driver function in the symbol table.
type Sym int

// The driver functions the backend uses.
const (
	SymInit Sym = iota
	SymDriverGetVersion
	SymDeviceGet
	SymDeviceGetCount
	SymDeviceGetName
	SymDeviceTotalMem
	SymDeviceGetAttribute
	SymDevicePrimaryCtxRetain
	SymDevicePrimaryCtxRelease
	SymCtxSetCurrent
	SymCtxGetCurrent
	SymMemGetInfo
	SymMemAlloc
	SymMemFree
	SymMemHostAlloc
	SymMemFreeHost
	SymMemcpyHtoDAsync
	SymMemcpyDtoHAsync
	SymMemcpyDtoDAsync
	SymMemsetD32Async
	SymStreamCreate
	SymStreamDestroy
	SymStreamSynchronize
	SymStreamQuery
	SymStreamWaitEvent
	SymEventCreate
	SymEventRecord
	SymEventQuery
	SymEventSynchronize
	SymEventDestroy
	SymEventElapsedTime
	SymModuleLoadData
	SymModuleUnload
	SymModuleGetFunction
	SymLaunchKernel
	SymFuncGetAttribute
	SymDeviceGetUuid // the first optional symbol: those above are required
	SymDeviceGetPCIBusID
	SymDevicePrimaryCtxReset
	SymDeviceCanAccessPeer
	SymCtxEnablePeerAccess
	SymMemcpyPeerAsync
	SymFuncSetAttribute
	SymFuncGetParamInfo
	SymOccupancyMaxActiveBlocksPerMultiprocessor
	SymOccupancyMaxPotentialBlockSize
	SymCtxSynchronize
	SymLaunchCooperativeKernel
	SymModuleLoadDataEx
	SymPointerGetAttribute
	SymStreamBeginCapture
	SymStreamEndCapture
	SymStreamIsCapturing
	SymGraphInstantiateWithFlags
	SymGraphLaunch
	SymGraphExecDestroy
	SymGraphDestroy
	SymGraphGetNodes
	numSyms
)

// numRequired counts the required symbols, which come first.
const numRequired = SymDeviceGetUuid

// symNames lists, for each Sym, the exported names to try in order: the
// versioned symbol of the 64-bit ABI first, then older names with the same
// signature.
var symNames = [numSyms][]string{
	SymInit:                    {"cuInit"},
	SymDriverGetVersion:        {"cuDriverGetVersion"},
	SymDeviceGet:               {"cuDeviceGet"},
	SymDeviceGetCount:          {"cuDeviceGetCount"},
	SymDeviceGetName:           {"cuDeviceGetName"},
	SymDeviceTotalMem:          {"cuDeviceTotalMem_v2"},
	SymDeviceGetAttribute:      {"cuDeviceGetAttribute"},
	SymDevicePrimaryCtxRetain:  {"cuDevicePrimaryCtxRetain"},
	SymDevicePrimaryCtxRelease: {"cuDevicePrimaryCtxRelease_v2"},
	SymCtxSetCurrent:           {"cuCtxSetCurrent"},
	SymCtxGetCurrent:           {"cuCtxGetCurrent"},
	SymMemGetInfo:              {"cuMemGetInfo_v2"},
	SymMemAlloc:                {"cuMemAlloc_v2"},
	SymMemFree:                 {"cuMemFree_v2"},
	SymMemHostAlloc:            {"cuMemHostAlloc"},
	SymMemFreeHost:             {"cuMemFreeHost"},
	SymMemcpyHtoDAsync:         {"cuMemcpyHtoDAsync_v2"},
	SymMemcpyDtoHAsync:         {"cuMemcpyDtoHAsync_v2"},
	SymMemcpyDtoDAsync:         {"cuMemcpyDtoDAsync_v2"},
	SymMemsetD32Async:          {"cuMemsetD32Async"},
	SymStreamCreate:            {"cuStreamCreate"},
	SymStreamDestroy:           {"cuStreamDestroy_v2"},
	SymStreamSynchronize:       {"cuStreamSynchronize"},
	SymStreamQuery:             {"cuStreamQuery"},
	SymStreamWaitEvent:         {"cuStreamWaitEvent"},
	SymEventCreate:             {"cuEventCreate"},
	SymEventRecord:             {"cuEventRecord"},
	SymEventQuery:              {"cuEventQuery"},
	SymEventSynchronize:        {"cuEventSynchronize"},
	SymEventDestroy:            {"cuEventDestroy_v2"},
	// 12.8+ exports the _v2; older drivers (and some JetPack ones) only the
	// unversioned symbol, with the same signature.
	SymEventElapsedTime:  {"cuEventElapsedTime_v2", "cuEventElapsedTime"},
	SymModuleLoadData:    {"cuModuleLoadData"},
	SymModuleUnload:      {"cuModuleUnload"},
	SymModuleGetFunction: {"cuModuleGetFunction"},
	SymLaunchKernel:      {"cuLaunchKernel"},
	SymFuncGetAttribute:  {"cuFuncGetAttribute"},

	SymDeviceGetUuid:                             {"cuDeviceGetUuid_v2", "cuDeviceGetUuid"},
	SymDeviceGetPCIBusID:                         {"cuDeviceGetPCIBusId"},
	SymDevicePrimaryCtxReset:                     {"cuDevicePrimaryCtxReset_v2"},
	SymDeviceCanAccessPeer:                       {"cuDeviceCanAccessPeer"},
	SymCtxEnablePeerAccess:                       {"cuCtxEnablePeerAccess"},
	SymMemcpyPeerAsync:                           {"cuMemcpyPeerAsync"},
	SymFuncSetAttribute:                          {"cuFuncSetAttribute"},
	SymFuncGetParamInfo:                          {"cuFuncGetParamInfo"},
	SymOccupancyMaxActiveBlocksPerMultiprocessor: {"cuOccupancyMaxActiveBlocksPerMultiprocessor"},
	SymOccupancyMaxPotentialBlockSize:            {"cuOccupancyMaxPotentialBlockSize"},
	SymCtxSynchronize:                            {"cuCtxSynchronize"},
	SymLaunchCooperativeKernel:                   {"cuLaunchCooperativeKernel"},
	SymModuleLoadDataEx:                          {"cuModuleLoadDataEx"},
	SymPointerGetAttribute:                       {"cuPointerGetAttribute"},
	// Stream capture into graphs: the _v2 takes the capture mode (the
	// unversioned name is 10.0's ABI without it). cuGraphInstantiateWithFlags
	// is the 3-argument form; the exported cuGraphInstantiate is older ABIs.
	SymStreamBeginCapture:        {"cuStreamBeginCapture_v2"},
	SymStreamEndCapture:          {"cuStreamEndCapture"},
	SymStreamIsCapturing:         {"cuStreamIsCapturing"},
	SymGraphInstantiateWithFlags: {"cuGraphInstantiateWithFlags"},
	SymGraphLaunch:               {"cuGraphLaunch"},
	SymGraphExecDestroy:          {"cuGraphExecDestroy"},
	SymGraphDestroy:              {"cuGraphDestroy"},
	SymGraphGetNodes:             {"cuGraphGetNodes"},
}

// Name is the first (preferred) exported name of s.
func (s Sym) Name() string {
	if s < 0 || s >= numSyms {
		return fmt.Sprintf("Sym(%d)", int(s))
	}
	return symNames[s][0]
}

// Required reports whether Load fails when the library lacks s.
func (s Sym) Required() bool { return s >= 0 && s < numRequired }

// RequiredSymbols lists the exported names a library must have, one per
// required function (the preferred name).
func RequiredSymbols() []string {
	out := make([]string, 0, numRequired)
	for s := Sym(0); s < numRequired; s++ {
		out = append(out, s.Name())
	}
	return out
}

// MinDriverVersion is the oldest driver API version the backend accepts
// (cuDriverGetVersion: 1000*major + 10*minor). CUDA 11.4 introduced the last
// of the versioned symbols the backend requires.
const MinDriverVersion = 11040

// Lib is an opened driver library with its symbols resolved.
type Lib struct {
	Path    string // the name or path it was opened by
	handle  uintptr
	fn      [numSyms]uintptr
	Version int // cuDriverGetVersion, once Init succeeded
}

// Has reports whether the library exports s.
func (l *Lib) Has(s Sym) bool { return l.fn[s] != 0 }

// Missing lists the optional functions the library lacks.
func (l *Lib) Missing() []string {
	var out []string
	for s := numRequired; s < numSyms; s++ {
		if l.fn[s] == 0 {
			out = append(out, s.Name())
		}
	}
	return out
}

// Load opens the driver library at path, or the platform's default names
// when path is empty, and resolves its symbols. It does not call cuInit. The
// error is an *errors.Error of category Unavailable naming what was tried.
func Load(path string) (*Lib, error) {
	names := defaultLibraries
	if path != "" {
		names = []string{path}
	}
	if len(names) == 0 {
		return nil, &errors.Error{
			Backend: "cuda", Op: "load driver", Category: errors.Unavailable,
			Msg:  fmt.Sprintf("CUDA is not available on %s", runtime.GOOS),
			Hint: "CUDA needs Linux or Windows with an NVIDIA GPU and driver; use another backend (ANYGPU_BACKEND)",
		}
	}
	l := &Lib{}
	spec := dl.Spec{Candidates: names, Mode: dl.Now, Accept: func(h uintptr, name string) error {
		var missing []string
		for s := Sym(0); s < numSyms; s++ {
			l.fn[s] = 0
			for _, n := range symNames[s] {
				if p := dl.Sym(h, n); p != 0 {
					l.fn[s] = p
					break
				}
			}
			if l.fn[s] == 0 && s.Required() {
				missing = append(missing, s.Name())
			}
		}
		if len(missing) > 0 {
			return fmt.Errorf("%s lacks %s", name, strings.Join(missing, ", "))
		}
		return nil
	}}
	if !dl.Supported {
		spec.Unavailable = dl.Unsupported("CUDA", runtime.GOOS)
	}
	found, err := dl.Load(spec)
	if err == nil {
		l.Path, l.handle = found.Path, found.Handle
		return l, nil
	}
	hint := "install the NVIDIA driver (check nvidia-smi), or point ANYGPU_CUDA_LIBRARY at its libcuda.so.1"
	if path != "" {
		hint = "ANYGPU_CUDA_LIBRARY must name the NVIDIA driver's library (libcuda.so.1 or nvcuda.dll), not the toolkit's stub; unset it to use the default"
	}
	return nil, &errors.Error{
		Backend: "cuda", Op: "load driver", Category: errors.Unavailable,
		Msg: err.Error(), Hint: hint,
	}
}

// AllSymbols lists the preferred exported name of every function the
// backend resolves, required and optional.
func AllSymbols() []string {
	out := make([]string, 0, numSyms)
	for s := Sym(0); s < numSyms; s++ {
		out = append(out, s.Name())
	}
	return out
}
