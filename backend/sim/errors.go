package sim

import (
	"fmt"
	"sort"
	"strings"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/backend/cpu"
	"github.com/anygpu/gpu/errors"
)

// The errors a simulated device returns look like the real backend's: the native code and name the backend would report, its category
// and flags, and a compiler log in the native compiler's format. CUDA errors
// come from the errors package's CUresult and nvrtcResult tables; the other
// backends' codes are built here until the errors package has their tables.

// nativeCode is one native result: its symbolic name and value.
type nativeCode struct {
	name string
	code int64
}

// Native codes of the non-CUDA backends.
var (
	vkErrorOutOfHostMemory   = nativeCode{"VK_ERROR_OUT_OF_HOST_MEMORY", -1}
	vkErrorOutOfDeviceMemory = nativeCode{"VK_ERROR_OUT_OF_DEVICE_MEMORY", -2}
	vkErrorDeviceLost        = nativeCode{"VK_ERROR_DEVICE_LOST", -4}
	glOutOfMemory            = nativeCode{"GL_OUT_OF_MEMORY", 0x0505}
	glContextLost            = nativeCode{"GL_CONTEXT_LOST", 0x0507}
	wgpuOutOfMemory          = nativeCode{"WGPUErrorType_OutOfMemory", 3}
	wgpuValidation           = nativeCode{"WGPUErrorType_Validation", 2}
	wgpuDeviceLostUnknown    = nativeCode{"WGPUDeviceLostReason_Unknown", 1}
	mtlAccessRevoked         = nativeCode{"MTLCommandBufferErrorAccessRevoked", 4}
	mtlCompileFailure        = nativeCode{"MTLLibraryErrorCompileFailure", 3}
)

// CUresult and nvrtcResult values used here.
const (
	cudaErrorOutOfMemory   = 2
	cudaErrorInvalidDevice = 101
	cudaErrorLaunchFailed  = 719
	nvrtcErrorCompilation  = 6
)

// native builds an *errors.Error carrying a native code.
func native(be, op string, c nativeCode, cat errors.Category, msg string) *errors.Error {
	return &errors.Error{Backend: be, Op: op, Name: c.name, Code: c.code, Category: cat, Msg: msg}
}

// fromCUDA converts a CUresult through the errors package's table.
func fromCUDA(code int64, op string) *errors.Error {
	if e, ok := errors.FromCUDA(code, op).(*errors.Error); ok && e != nil {
		return e
	}
	return &errors.Error{Backend: "cuda", Op: op, Code: code, Category: errors.Internal}
}

// oomError is an out-of-memory error as the backend reports it; host is true
// for pinned host memory (AllocHost).
func oomError(be, op string, host bool, msg string) *errors.Error {
	var e *errors.Error
	switch be {
	case "cuda":
		e = fromCUDA(cudaErrorOutOfMemory, op) // cuMemAlloc and cuMemHostAlloc alike
	case "vulkan":
		c := vkErrorOutOfDeviceMemory
		if host {
			c = vkErrorOutOfHostMemory
		}
		e = native(be, op, c, errors.OutOfMemory, "")
	case "opengl":
		e = native(be, op, glOutOfMemory, errors.OutOfMemory, "")
	case "webgpu":
		e = native(be, op, wgpuOutOfMemory, errors.OutOfMemory, "")
	default: // metal: newBufferWithLength returns nil, with no code
		e = &errors.Error{Backend: be, Op: op, Category: errors.OutOfMemory}
	}
	e.Category, e.Retryable, e.Fatal = errors.OutOfMemory, true, false
	e.Msg = msg
	if e.Hint == "" {
		e.Hint = errors.OutOfMemory.DefaultHint()
	}
	return e
}

// lostError is the fatal error of a lost device.
func lostError(be, op, msg string) *errors.Error {
	var e *errors.Error
	switch be {
	case "cuda":
		// A sticky launch failure: every later call of the context fails.
		e = fromCUDA(cudaErrorLaunchFailed, op)
	case "vulkan":
		e = native(be, op, vkErrorDeviceLost, errors.DeviceLost, "")
	case "opengl":
		e = native(be, op, glContextLost, errors.DeviceLost, "")
	case "webgpu":
		e = native(be, op, wgpuDeviceLostUnknown, errors.DeviceLost, "")
	default:
		e = native(be, op, mtlAccessRevoked, errors.DeviceLost, "")
	}
	e.Category, e.Fatal, e.Retryable = errors.DeviceLost, true, false
	e.Msg = msg
	if e.Hint == "" {
		e.Hint = errors.DeviceLost.DefaultHint()
	}
	return e
}

// The undefined identifier the simulated compiler complains about.
const badIdentifier = "undefined_symbol"

// compileError is a failed compile of src with the native compiler's log.
func compileError(be, op string, src backend.Source, vendor string) *errors.Error {
	name := src.Name
	if name == "" {
		name = "kernel"
	}
	entry := "main"
	if len(src.Go) > 0 {
		var names []string
		for n := range src.Go {
			names = append(names, n)
		}
		sort.Strings(names)
		entry = names[0]
	}
	const line, col = 7, 24
	var e *errors.Error
	var log string
	switch be {
	case "cuda":
		// NVRTC's program log.
		e, _ = errors.FromNVRTC(nvrtcErrorCompilation, op).(*errors.Error)
		if e == nil {
			e = &errors.Error{Backend: "nvrtc", Op: op}
		}
		log = fmt.Sprintf("%[1]s.cu(%[2]d): error: identifier \"%[3]s\" is undefined\n"+
			"      y[i] = a * x[i] + %[3]s;\n"+
			"                        ^\n\n"+
			"1 error detected in the compilation of \"%[1]s.cu\".\n", name, line, badIdentifier)
	case "vulkan":
		// Pipeline creation from invalid SPIR-V, as the validator words it.
		e = &errors.Error{Backend: be, Op: op}
		log = fmt.Sprintf("error: line %d: ID '42[%%42]' has not been defined\n"+
			"  %%43 = OpFAdd %%float %%41 %%42\n"+
			"(entry point %q of module %q)\n", line, entry, name)
	case "opengl":
		// glGetShaderInfoLog: NVIDIA's and Mesa's formats differ.
		e = &errors.Error{Backend: be, Op: op}
		if strings.Contains(vendor, "NVIDIA") {
			log = fmt.Sprintf("0(%d) : error C1503: undefined variable \"%s\"\n", line, badIdentifier)
		} else {
			log = fmt.Sprintf("0:%d(%d): error: `%s' undeclared\n", line, col, badIdentifier)
		}
	case "webgpu":
		// naga's WGSL diagnostics.
		e = native(be, op, wgpuValidation, errors.Compilation, "")
		log = fmt.Sprintf("Shader '%[1]s' parsing error: no definition in scope for identifier: `%[2]s`\n"+
			"  ┌─ wgsl:%[3]d:%[4]d\n"+
			"  │\n"+
			"%[3]d │     y[i] = a * x[i] + %[2]s;\n"+
			"  │                        ^^^^^^^^^^^^^^^^ unknown identifier\n", name, badIdentifier, line, col)
	default:
		// newLibraryWithSource: clang's diagnostics.
		e = native(be, op, mtlCompileFailure, errors.Compilation, "")
		log = fmt.Sprintf("program_source:%[1]d:%[2]d: error: use of undeclared identifier '%[3]s'\n"+
			"    y[i] = a * x[i] + %[3]s;\n"+
			"                      ^\n", line, col, badIdentifier)
	}
	e.Category, e.Retryable, e.Fatal = errors.Compilation, false, false
	e.Msg = "compilation failed (simulated fault nocompile)"
	e.Log = log
	if e.Hint == "" {
		e.Hint = errors.Compilation.DefaultHint()
	}
	return e
}

// defaultReasons are what a simulated backend that is unavailable says when
// the spec gives no reason: the usual cause on a machine without it.
var defaultReasons = map[string]string{
	"cuda":   "libcuda.so.1: cannot open shared object file: No such file or directory",
	"vulkan": "libvulkan.so.1: cannot open shared object file: No such file or directory",
	"opengl": "libEGL.so.1: cannot open shared object file: No such file or directory",
	"webgpu": "no WebGPU adapter found",
	"metal":  "Metal is available on macOS only",
}

func defaultReason(be string) string {
	if r, ok := defaultReasons[be]; ok {
		return r + " (simulated)"
	}
	return "unavailable (simulated)"
}

func isDefaultReason(reason string) bool {
	for be := range defaultReasons {
		if reason == defaultReason(be) {
			return true
		}
	}
	return false
}

// unavailableError is a Probe or Open failure of an unavailable simulated
// backend.
func unavailableError(be, op, reason string) *errors.Error {
	return &errors.Error{
		Backend: be, Op: op, Category: errors.Unavailable, Msg: reason,
		Hint: "the simulated backend was made unavailable by the fault +unavailable; drop it from ANYGPU_FAKE to use it",
	}
}

// invalidDeviceError is an Open of an ordinal the backend does not have.
func invalidDeviceError(be, op string, ordinal, n int) *errors.Error {
	msg := fmt.Sprintf("device %d does not exist: the simulated %s backend has %d (0..%d)", ordinal, be, n, n-1)
	if be == "cuda" {
		e := fromCUDA(cudaErrorInvalidDevice, op)
		e.Msg = msg
		return e
	}
	return &errors.Error{Backend: be, Op: op, Category: errors.InvalidArgument, Msg: msg}
}

// translate makes an error of the CPU device underneath read as the simulated
// backend's: attributed to it, and out-of-memory reported with the backend's
// native code (the host refused the memory the simulated device stands for).
func (d *device) translate(err error, op string, host bool) error {
	if err == nil {
		return nil
	}
	if errors.CategoryOf(err) == errors.OutOfMemory {
		e := oomError(d.backend, op, host, fmt.Sprintf("out of memory: the host cannot hold the simulated allocation (%s)", reasonText(err)))
		e.Err = err
		return e
	}
	if e, ok := err.(*errors.Error); ok && (e.Backend == cpu.Name || e.Backend == "") {
		c := *e
		c.Backend = d.backend
		return &c
	}
	return err
}

// reasonText is an error's message without its backend and operation.
func reasonText(err error) string {
	if e, ok := err.(*errors.Error); ok && e.Msg != "" {
		return e.Msg
	}
	return err.Error()
}

// notConfigured is the error of the sim driver itself, which has no devices.
func notConfigured(op string) error {
	return &errors.Error{
		Backend: Name, Op: op, Category: errors.Unavailable,
		Msg: "no simulated devices are configured: the sim driver presents devices in place of other backends, " +
			"through ANYGPU_FAKE (e.g. ANYGPU_FAKE=cuda:h100) or sim.NewDriver",
		Hint: "set ANYGPU_FAKE=cuda:h100 (or another backend:preset) to test with a simulated device",
	}
}
