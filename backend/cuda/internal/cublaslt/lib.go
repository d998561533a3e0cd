// Package cublaslt is the binding of NVIDIA's cuBLASLt (libcublasLt), the
// matrix-multiply library PyTorch uses for its tensor-core products, opened at
// run time through purego (package internal/dl): no cgo, no CUDA headers.
//
// Load searches for the library the first time it is called, never before
// (the CUDA backend calls it at a stream's first MatMul, not at Open), and
// remembers the outcome per value of ANYGPU_CUBLASLT_LIBRARY; Loaded says
// whether that happened. Every wrapper returns the cublasStatus_t as a
// Status, whose Err gives the error with the status's name, category and
// hint. Calls that launch work (Matmul) need the CUDA context of the handle's
// device current on the calling thread; the caller sees to it.
//
// The enum values and structure layouts are cublasLt.h's, written down by
// name in types.go and pinned by TestConstants.
package cublaslt

import (
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"unsafe"

	"github.com/anygpu/gpu/errors"
	"github.com/anygpu/gpu/internal/dl"
)

// sym names one cuBLASLt function.
type sym int

const (
	symGetVersion sym = iota
	symGetStatusName
	symGetStatusString
	symCreate
	symDestroy
	symMatmulDescCreate
	symMatmulDescSetAttribute
	symMatmulDescDestroy
	symMatrixLayoutCreate
	symMatrixLayoutSetAttribute
	symMatrixLayoutDestroy
	symMatmulPreferenceCreate
	symMatmulPreferenceSetAttribute
	symMatmulPreferenceDestroy
	symMatmulAlgoGetHeuristic
	symMatmul
	numSyms
)

// symNames are the exported names, by sym. All are required.
var symNames = [numSyms]string{
	symGetVersion:                   "cublasLtGetVersion",
	symGetStatusName:                "cublasLtGetStatusName",
	symGetStatusString:              "cublasLtGetStatusString",
	symCreate:                       "cublasLtCreate",
	symDestroy:                      "cublasLtDestroy",
	symMatmulDescCreate:             "cublasLtMatmulDescCreate",
	symMatmulDescSetAttribute:       "cublasLtMatmulDescSetAttribute",
	symMatmulDescDestroy:            "cublasLtMatmulDescDestroy",
	symMatrixLayoutCreate:           "cublasLtMatrixLayoutCreate",
	symMatrixLayoutSetAttribute:     "cublasLtMatrixLayoutSetAttribute",
	symMatrixLayoutDestroy:          "cublasLtMatrixLayoutDestroy",
	symMatmulPreferenceCreate:       "cublasLtMatmulPreferenceCreate",
	symMatmulPreferenceSetAttribute: "cublasLtMatmulPreferenceSetAttribute",
	symMatmulPreferenceDestroy:      "cublasLtMatmulPreferenceDestroy",
	symMatmulAlgoGetHeuristic:       "cublasLtMatmulAlgoGetHeuristic",
	symMatmul:                       "cublasLtMatmul",
}

// Symbols lists every function the binding resolves (for the fake library).
func Symbols() []string { return append([]string(nil), symNames[:]...) }

// MinVersion is the oldest cuBLASLt the binding takes: 11.0, the first with
// cublasComputeType_t and today's cublasLtMatmulDescCreate.
const MinVersion = 110000

// Lib is a loaded cuBLASLt.
type Lib struct {
	Path    string // the candidate it was opened by
	File    string // the library file, where known (the candidate, or on Linux the file mapped for a soname)
	Version int    // cublasLtGetVersion: major·10000 + minor·100 + patch
	fn      [numSyms]uintptr
}

// VersionString is the version as "13.0.2".
func (l *Lib) VersionString() string {
	return fmt.Sprintf("%d.%d.%d", l.Version/10000, l.Version/100%100, l.Version%100)
}

// libs is the outcome of loading, by value of ANYGPU_CUBLASLT_LIBRARY.
var libs dl.Memo[*Lib]

// Load returns the process's cuBLASLt, searching for it on first use (see
// searchEnv.candidates for where). The outcome is kept per value of
// ANYGPU_CUBLASLT_LIBRARY, so changing the variable (in tests) searches
// again. When no candidate is usable the error has category NotSupported,
// names each candidate tried and why it failed, and hints how to install the
// library: callers fall back to their own kernels.
func Load() (*Lib, error) {
	env := defaultSearchEnv()
	key := strings.TrimSpace(env.getenv(EnvLibrary))
	return libs.Get(key, func() (*Lib, error) { return loadFrom(env.candidates(), key != "") })
}

// Loaded reports whether Load has run, and succeeded, for the current value
// of ANYGPU_CUBLASLT_LIBRARY.
func Loaded() bool { return libs.Loaded(strings.TrimSpace(defaultSearchEnv().getenv(EnvLibrary))) }

// loadFrom tries each candidate in order and returns the first that opens,
// has every function and is recent enough.
func loadFrom(cands []string, explicit bool) (*Lib, error) {
	l := &Lib{}
	spec := dl.Spec{Candidates: cands, Mode: dl.Lazy, Accept: func(h uintptr, c string) error {
		if err := dl.Resolve(h, c, l.fn[:], symNames[:], int(numSyms)); err != nil {
			return err
		}
		v := int(dl.Call(l.fn[symGetVersion]))
		if v < MinVersion {
			return fmt.Errorf("%s: cuBLASLt %d.%d is older than the %d.0 anygpu needs", c, v/10000, v/100%100, MinVersion/10000)
		}
		l.Version = v
		return nil
	}}
	if !dl.Supported {
		spec.Unavailable = dl.Unsupported("CUDA libraries", runtime.GOOS)
	}
	found, err := dl.Load(spec)
	if err == nil {
		l.Path, l.File = found.Path, found.Path
		if !filepath.IsAbs(found.Path) {
			l.File = dl.MappedFile("libcublasLt.so")
		}
		return l, nil
	}
	hint := "install cuBLASLt (the CUDA toolkit's libcublasLt.so.13 or .12, or the nvidia-cublas Python wheel that PyTorch installs), or set " +
		EnvLibrary + " to its path; without it, multiply with a kernel (package tensor falls back to its own)"
	if explicit {
		hint = EnvLibrary + " must name a cuBLASLt library (libcublasLt.so.13, cublasLt64_13.dll, ...); unset it to search the usual places"
	}
	if !dl.Supported {
		hint = "cuBLASLt exists for Linux and Windows only"
	}
	msg := "no cuBLASLt library found"
	if tried := dl.Tried(err); len(tried) > 0 {
		msg = "no usable cuBLASLt library: " + strings.Join(tried, "; ")
	}
	return nil, &errors.Error{Backend: "cuda", Op: "load cuBLASLt", Category: errors.NotSupported, Msg: msg, Hint: hint}
}

// call invokes function s. Like dl.Call it is go:uintptrescapes: what an
// address converted in its argument list points to stays on the heap and
// alive until the call returns.
//
//go:uintptrescapes
func (l *Lib) call(s sym, args ...uintptr) Status {
	return Status(int32(dl.Call(l.fn[s], args...)))
}

// StatusName is cublasLtGetStatusName: the library's name for s.
func (l *Lib) StatusName(s Status) string {
	return dl.GoStringN(dl.Call(l.fn[symGetStatusName], uintptr(s)), 256)
}

// StatusString is cublasLtGetStatusString: the library's description of s.
func (l *Lib) StatusString(s Status) string {
	return dl.GoStringN(dl.Call(l.fn[symGetStatusString], uintptr(s)), 1024)
}

// Err is s.Err(op), with the library's own name and description for a status
// the binding does not know.
func (l *Lib) Err(s Status, op string) error {
	err := s.Err(op)
	if e, ok := err.(*errors.Error); ok {
		if _, known := statusTable.Lookup(int64(s)); !known {
			if n := l.StatusName(s); n != "" {
				e.Name = n
			}
			if m := l.StatusString(s); m != "" {
				e.Msg = m
			}
		}
	}
	return err
}

// Create is cublasLtCreate.
func (l *Lib) Create() (Handle, Status) {
	var h uintptr
	s := l.call(symCreate, uintptr(unsafe.Pointer(&h)))
	return Handle(h), s
}

// Destroy is cublasLtDestroy.
func (l *Lib) Destroy(h Handle) Status { return l.call(symDestroy, uintptr(h)) }

// MatmulDescCreate is cublasLtMatmulDescCreate.
func (l *Lib) MatmulDescCreate(compute ComputeType, scale DataType) (MatmulDesc, Status) {
	var d uintptr
	s := l.call(symMatmulDescCreate, uintptr(unsafe.Pointer(&d)), uintptr(compute), uintptr(scale))
	return MatmulDesc(d), s
}

// MatmulDescSetInt32 is cublasLtMatmulDescSetAttribute of a 4-byte value.
func (l *Lib) MatmulDescSetInt32(d MatmulDesc, a MatmulDescAttribute, v int32) Status {
	return l.call(symMatmulDescSetAttribute, uintptr(d), uintptr(a), uintptr(unsafe.Pointer(&v)), 4)
}

// MatmulDescSetPointer is cublasLtMatmulDescSetAttribute of a pointer
// (DescBiasPointer: a device address).
func (l *Lib) MatmulDescSetPointer(d MatmulDesc, a MatmulDescAttribute, p uint64) Status {
	return l.call(symMatmulDescSetAttribute, uintptr(d), uintptr(a), uintptr(unsafe.Pointer(&p)), 8)
}

// MatmulDescDestroy is cublasLtMatmulDescDestroy.
func (l *Lib) MatmulDescDestroy(d MatmulDesc) Status { return l.call(symMatmulDescDestroy, uintptr(d)) }

// MatrixLayoutCreate is cublasLtMatrixLayoutCreate: a column-major rows×cols
// matrix of type t with leading dimension ld.
func (l *Lib) MatrixLayoutCreate(t DataType, rows, cols uint64, ld int64) (MatrixLayout, Status) {
	var m uintptr
	s := l.call(symMatrixLayoutCreate, uintptr(unsafe.Pointer(&m)), uintptr(t), uintptr(rows), uintptr(cols), uintptr(ld))
	return MatrixLayout(m), s
}

// MatrixLayoutSetInt32 is cublasLtMatrixLayoutSetAttribute of a 4-byte value.
func (l *Lib) MatrixLayoutSetInt32(m MatrixLayout, a LayoutAttribute, v int32) Status {
	return l.call(symMatrixLayoutSetAttribute, uintptr(m), uintptr(a), uintptr(unsafe.Pointer(&v)), 4)
}

// MatrixLayoutSetInt64 is cublasLtMatrixLayoutSetAttribute of an 8-byte
// value.
func (l *Lib) MatrixLayoutSetInt64(m MatrixLayout, a LayoutAttribute, v int64) Status {
	return l.call(symMatrixLayoutSetAttribute, uintptr(m), uintptr(a), uintptr(unsafe.Pointer(&v)), 8)
}

// MatrixLayoutDestroy is cublasLtMatrixLayoutDestroy.
func (l *Lib) MatrixLayoutDestroy(m MatrixLayout) Status {
	return l.call(symMatrixLayoutDestroy, uintptr(m))
}

// PreferenceCreate is cublasLtMatmulPreferenceCreate.
func (l *Lib) PreferenceCreate() (Preference, Status) {
	var p uintptr
	s := l.call(symMatmulPreferenceCreate, uintptr(unsafe.Pointer(&p)))
	return Preference(p), s
}

// PreferenceSetUint32 is cublasLtMatmulPreferenceSetAttribute of a 4-byte
// value.
func (l *Lib) PreferenceSetUint32(p Preference, a PreferenceAttribute, v uint32) Status {
	return l.call(symMatmulPreferenceSetAttribute, uintptr(p), uintptr(a), uintptr(unsafe.Pointer(&v)), 4)
}

// PreferenceSetUint64 is cublasLtMatmulPreferenceSetAttribute of an 8-byte
// value.
func (l *Lib) PreferenceSetUint64(p Preference, a PreferenceAttribute, v uint64) Status {
	return l.call(symMatmulPreferenceSetAttribute, uintptr(p), uintptr(a), uintptr(unsafe.Pointer(&v)), 8)
}

// PreferenceDestroy is cublasLtMatmulPreferenceDestroy.
func (l *Lib) PreferenceDestroy(p Preference) Status {
	return l.call(symMatmulPreferenceDestroy, uintptr(p))
}

// AlgoGetHeuristic is cublasLtMatmulAlgoGetHeuristic: up to len(out)
// algorithms for D = op(A)·op(B) described by desc and the layouts, best
// first; it returns how many it wrote.
func (l *Lib) AlgoGetHeuristic(h Handle, desc MatmulDesc, a, b, c, d MatrixLayout, pref Preference, out []HeuristicResult) (int, Status) {
	if len(out) == 0 {
		return 0, StatusInvalidValue
	}
	var n int32
	s := l.call(symMatmulAlgoGetHeuristic, uintptr(h), uintptr(desc), uintptr(a), uintptr(b), uintptr(c), uintptr(d),
		uintptr(pref), uintptr(len(out)), uintptr(unsafe.Pointer(&out[0])), uintptr(unsafe.Pointer(&n)))
	return int(n), s
}

// MatmulArgs are the operands of one cublasLtMatmul: device addresses, the
// layouts describing them, and host scalars (pointer mode host) of the
// descriptor's scale type.
type MatmulArgs struct {
	Desc           MatmulDesc
	Alpha, Beta    unsafe.Pointer // host values of the scale type
	A, B, C, D     uint64         // device addresses
	LA, LB, LC, LD MatrixLayout
	Algo           *Algo
	Workspace      uint64 // device address
	WorkspaceSize  uint64
	Stream         uintptr // CUstream
}

// Matmul is cublasLtMatmul: D = alpha·op(A)·op(B) + beta·C, enqueued on the
// stream. The context of the handle's device must be current.
func (l *Lib) Matmul(h Handle, m *MatmulArgs) Status {
	return l.call(symMatmul, uintptr(h), uintptr(m.Desc), uintptr(m.Alpha),
		uintptr(m.A), uintptr(m.LA), uintptr(m.B), uintptr(m.LB), uintptr(m.Beta),
		uintptr(m.C), uintptr(m.LC), uintptr(m.D), uintptr(m.LD),
		uintptr(unsafe.Pointer(m.Algo)), uintptr(m.Workspace), uintptr(m.WorkspaceSize), m.Stream)
}
