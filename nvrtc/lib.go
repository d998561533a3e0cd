package nvrtc

import (
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"unsafe"

	"github.com/anygpu/gpu/errors"
	"github.com/anygpu/gpu/internal/dl"
)

// sym names one NVRTC function.
type sym int

const (
	symVersion sym = iota
	symGetErrorString
	symCreateProgram
	symDestroyProgram
	symCompileProgram
	symGetPTXSize
	symGetPTX
	symGetProgramLogSize
	symGetProgramLog
	symAddNameExpression
	symGetLoweredName
	symGetCUBINSize // optional below (CUDA 11.1+)
	symGetCUBIN
	symGetNumSupportedArchs
	symGetSupportedArchs
	numSyms
)

// numRequired counts the required functions, which come first.
const numRequired = symGetCUBINSize

var symNames = [numSyms]string{
	symVersion:              "nvrtcVersion",
	symGetErrorString:       "nvrtcGetErrorString",
	symCreateProgram:        "nvrtcCreateProgram",
	symDestroyProgram:       "nvrtcDestroyProgram",
	symCompileProgram:       "nvrtcCompileProgram",
	symGetPTXSize:           "nvrtcGetPTXSize",
	symGetPTX:               "nvrtcGetPTX",
	symGetProgramLogSize:    "nvrtcGetProgramLogSize",
	symGetProgramLog:        "nvrtcGetProgramLog",
	symAddNameExpression:    "nvrtcAddNameExpression",
	symGetLoweredName:       "nvrtcGetLoweredName",
	symGetCUBINSize:         "nvrtcGetCUBINSize",
	symGetCUBIN:             "nvrtcGetCUBIN",
	symGetNumSupportedArchs: "nvrtcGetNumSupportedArchs",
	symGetSupportedArchs:    "nvrtcGetSupportedArchs",
}

// nvrtcResult values the package tests for.
const (
	resSuccess     = 0
	resCompilation = 6
)

// library is a loaded NVRTC.
type library struct {
	path         string // the candidate it was opened by
	file         string // the library file, when known (for the version stamp)
	fn           [numSyms]uintptr
	major, minor int

	incOnce sync.Once
	inc     []string // the CUDA header directories (includes)
}

// has reports whether the library exports s.
func (l *library) has(s sym) bool { return l.fn[s] != 0 }

// libs is the outcome of loading the library, by ANYGPU_NVRTC_LIBRARY value.
var libs dl.Memo[*library]

// load returns the process's NVRTC, searching for it on first use. The
// result is kept per value of ANYGPU_NVRTC_LIBRARY, so changing the variable
// (in tests) searches again.
func load() (*library, error) {
	env := defaultSearchEnv()
	key := env.getenv(EnvLibrary)
	return libs.Get(key, func() (*library, error) { return loadFrom(env.candidates(), key != "") })
}

// loaded reports whether the NVRTC of the current ANYGPU_NVRTC_LIBRARY
// value is loaded already.
func loaded() bool { return libs.Loaded(defaultSearchEnv().getenv(EnvLibrary)) }

// resolvedFile is the file a candidate loaded: the candidate itself when it
// is a path, else (on Linux) the libnvrtc mapped into the process.
func resolvedFile(candidate string) string {
	if filepath.IsAbs(candidate) {
		return candidate
	}
	return dl.MappedFile("libnvrtc.so")
}

// loadFrom tries each candidate in order and returns the first that opens,
// has the required functions and reports its version.
func loadFrom(cands []string, explicit bool) (*library, error) {
	l := &library{}
	spec := dl.Spec{Candidates: cands, Mode: dl.Lazy, Accept: func(h uintptr, c string) error {
		if err := dl.Resolve(h, c, l.fn[:], symNames[:], int(numRequired)); err != nil {
			return err
		}
		var major, minor int32
		if r := dl.Call(l.fn[symVersion], uintptr(unsafe.Pointer(&major)), uintptr(unsafe.Pointer(&minor))); int32(r) != resSuccess {
			return fmt.Errorf("%s: nvrtcVersion failed (%d)", c, int32(r))
		}
		l.major, l.minor = int(major), int(minor)
		return nil
	}}
	if !dl.Supported {
		spec.Unavailable = dl.Unsupported("CUDA libraries", runtime.GOOS)
	}
	found, err := dl.Load(spec)
	if err == nil {
		l.path, l.file = found.Path, resolvedFile(found.Path)
		return l, nil
	}
	hint := "install NVRTC (the CUDA toolkit's libnvrtc.so.13 or .12, or the nvidia-cuda-nvrtc Python wheel), or set " + EnvLibrary + " to its path"
	if explicit {
		hint = EnvLibrary + " must name an NVRTC library (libnvrtc.so.13, nvrtc64_130_0.dll, ...); unset it to search the usual places"
	}
	if !dl.Supported {
		hint = "NVRTC exists for Linux and Windows only"
	}
	msg := "no NVRTC library found"
	if tried := dl.Tried(err); len(tried) > 0 {
		msg = "no usable NVRTC library: " + strings.Join(tried, "; ")
	}
	return nil, &errors.Error{Backend: "nvrtc", Op: "load", Category: errors.Unavailable, Msg: msg, Hint: hint}
}

// res converts an nvrtcResult of operation op.
func res(r uintptr, op string) error { return errors.FromNVRTC(int64(int32(r)), op) }

func (l *library) createProgram(src, name string, headers map[string]string) (uintptr, error) {
	csrc := dl.CString(src)
	cname := dl.CString(name)
	names := sortedKeys(headers)
	contents := make([]string, len(names))
	for i, n := range names {
		contents[i] = headers[n]
	}
	hdrs, incs := dl.CStrings(contents), dl.CStrings(names)
	var ph, pi unsafe.Pointer
	if len(hdrs) > 0 {
		ph, pi = unsafe.Pointer(&hdrs[0]), unsafe.Pointer(&incs[0])
	}
	var prog uintptr
	r := dl.Call(l.fn[symCreateProgram], uintptr(unsafe.Pointer(&prog)), uintptr(unsafe.Pointer(&csrc[0])),
		uintptr(unsafe.Pointer(&cname[0])), uintptr(len(hdrs)), uintptr(ph), uintptr(pi))
	runtime.KeepAlive(hdrs)
	runtime.KeepAlive(incs)
	return prog, res(r, "create program")
}

func (l *library) destroyProgram(prog uintptr) {
	p := prog
	dl.Call(l.fn[symDestroyProgram], uintptr(unsafe.Pointer(&p)))
}

func (l *library) addNameExpression(prog uintptr, expr string) error {
	c := dl.CString(expr)
	return res(dl.Call(l.fn[symAddNameExpression], prog, uintptr(unsafe.Pointer(&c[0]))), "add name expression "+expr)
}

// compileProgram runs the compiler; the raw nvrtcResult is returned too so
// the caller can attach the log to a compile error.
func (l *library) compileProgram(prog uintptr, opts []string) int32 {
	ptrs := dl.CStrings(opts)
	var pp unsafe.Pointer
	if len(ptrs) > 0 {
		pp = unsafe.Pointer(&ptrs[0])
	}
	r := dl.Call(l.fn[symCompileProgram], prog, uintptr(len(opts)), uintptr(pp))
	runtime.KeepAlive(ptrs)
	return int32(r)
}

// blob reads one of the program's outputs through its size and copy functions.
func (l *library) blob(prog uintptr, sizeSym, getSym sym, what string) ([]byte, error) {
	var n uint64
	if err := res(dl.Call(l.fn[sizeSym], prog, uintptr(unsafe.Pointer(&n))), "get "+what+" size"); err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, nil
	}
	buf := make([]byte, n)
	if err := res(dl.Call(l.fn[getSym], prog, uintptr(unsafe.Pointer(&buf[0]))), "get "+what); err != nil {
		return nil, err
	}
	return buf, nil
}

func (l *library) log(prog uintptr) string {
	b, err := l.blob(prog, symGetProgramLogSize, symGetProgramLog, "log")
	if err != nil {
		return ""
	}
	return strings.TrimRight(string(trimNUL(b)), "\n\x00 ")
}

func (l *library) loweredName(prog uintptr, expr string) (string, error) {
	c := dl.CString(expr)
	var p uintptr
	r := dl.Call(l.fn[symGetLoweredName], prog, uintptr(unsafe.Pointer(&c[0])), uintptr(unsafe.Pointer(&p)))
	if err := res(r, "get lowered name of "+expr); err != nil {
		return "", err
	}
	return dl.GoString(p), nil
}

// supportedArchs lists the SM versions this NVRTC compiles for (75, 80, ...).
func (l *library) supportedArchs() ([]int, error) {
	if !l.has(symGetNumSupportedArchs) || !l.has(symGetSupportedArchs) {
		return nil, &errors.Error{Backend: "nvrtc", Op: "supported archs", Category: errors.NotSupported,
			Msg: "this NVRTC cannot list its architectures (nvrtcGetSupportedArchs needs CUDA 11.2+)", Hint: "use a newer NVRTC"}
	}
	var n int32
	if err := res(dl.Call(l.fn[symGetNumSupportedArchs], uintptr(unsafe.Pointer(&n))), "get number of supported archs"); err != nil {
		return nil, err
	}
	if n <= 0 {
		return nil, nil
	}
	archs := make([]int32, n)
	if err := res(dl.Call(l.fn[symGetSupportedArchs], uintptr(unsafe.Pointer(&archs[0]))), "get supported archs"); err != nil {
		return nil, err
	}
	out := make([]int, n)
	for i, a := range archs {
		out[i] = int(a)
	}
	return out, nil
}

func trimNUL(b []byte) []byte {
	for len(b) > 0 && b[len(b)-1] == 0 {
		b = b[:len(b)-1]
	}
	return b
}
