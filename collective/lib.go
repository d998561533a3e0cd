package collective

import (
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"unsafe"

	"github.com/anygpu/gpu/errors"
	"github.com/anygpu/gpu/internal/dl"
)

// sym names one NCCL function.
type sym int

const (
	symGetVersion sym = iota
	symGetUniqueID
	symGetErrorString
	symCommInitAll
	symCommDestroy
	symCommAbort
	symCommCount
	symCommCuDevice
	symCommUserRank
	symCommGetAsyncError
	symGroupStart
	symGroupEnd
	symAllReduce
	symBroadcast
	symReduce
	symAllGather
	symReduceScatter
	// Optional below: newer than the oldest NCCL anygpu loads (2.10).
	symCommInitRankScalable // 2.23: multi-process communicators
	symCommFinalize         // 2.14
	symGetLastError         // 2.13
	symSend                 // 2.7
	symRecv                 // 2.7
	numSyms
)

// numRequired counts the required functions, which come first.
const numRequired = symCommInitRankScalable

var symNames = [numSyms]string{
	symGetVersion:           "ncclGetVersion",
	symGetUniqueID:          "ncclGetUniqueId",
	symGetErrorString:       "ncclGetErrorString",
	symCommInitAll:          "ncclCommInitAll",
	symCommDestroy:          "ncclCommDestroy",
	symCommAbort:            "ncclCommAbort",
	symCommCount:            "ncclCommCount",
	symCommCuDevice:         "ncclCommCuDevice",
	symCommUserRank:         "ncclCommUserRank",
	symCommGetAsyncError:    "ncclCommGetAsyncError",
	symGroupStart:           "ncclGroupStart",
	symGroupEnd:             "ncclGroupEnd",
	symAllReduce:            "ncclAllReduce",
	symBroadcast:            "ncclBroadcast",
	symReduce:               "ncclReduce",
	symAllGather:            "ncclAllGather",
	symReduceScatter:        "ncclReduceScatter",
	symCommInitRankScalable: "ncclCommInitRankScalable",
	symCommFinalize:         "ncclCommFinalize",
	symGetLastError:         "ncclGetLastError",
	symSend:                 "ncclSend",
	symRecv:                 "ncclRecv",
}

// minVersion is the oldest NCCL loaded: bfloat16 and ncclAvg arrived in 2.10.
const minVersion = 21000

// library is a loaded NCCL.
type library struct {
	path    string // the candidate it was opened by
	fn      [numSyms]uintptr
	version int // ncclGetVersion: 22807 for 2.28.7
}

func (l *library) has(s sym) bool { return l.fn[s] != 0 }

// versionString formats an NCCL version code: 22807 -> "2.28.7" (codes of
// NCCL before 2.9 are major*1000+minor*100+patch).
func versionString(v int) string {
	if v >= 10000 {
		return fmt.Sprintf("%d.%d.%d", v/10000, v%10000/100, v%100)
	}
	return fmt.Sprintf("%d.%d.%d", v/1000, v%1000/100, v%100)
}

// libs is the outcome of loading the library, by ANYGPU_NCCL_LIBRARY value.
var libs dl.Memo[*library]

// load returns the process's NCCL, searching for it on first use. The result
// is kept per value of ANYGPU_NCCL_LIBRARY, so changing the variable (in
// tests) searches again.
func load() (*library, error) {
	env := defaultSearchEnv()
	key := env.getenv(EnvLibrary)
	return libs.Get(key, func() (*library, error) { return loadFrom(env.candidates(), key != "") })
}

// loadFrom tries each candidate in order and returns the first that opens,
// has the required functions and reports a version anygpu can use.
func loadFrom(cands []string, explicit bool) (*library, error) {
	l := &library{}
	spec := dl.Spec{Candidates: cands, Mode: dl.Now, Accept: func(h uintptr, c string) error {
		if err := dl.Resolve(h, c, l.fn[:], symNames[:], int(numRequired)); err != nil {
			return err
		}
		var v int32
		if r := dl.Call(l.fn[symGetVersion], uintptr(unsafe.Pointer(&v))); int32(r) != resSuccess {
			return fmt.Errorf("%s: ncclGetVersion failed (%s)", c, resultName(int64(int32(r))))
		}
		if int(v) < minVersion {
			return fmt.Errorf("%s is NCCL %s, older than the %s anygpu needs", c, versionString(int(v)), versionString(minVersion))
		}
		l.version = int(v)
		return nil
	}}
	if !dlSupported {
		spec.Unavailable = dl.Unsupported("NCCL", runtime.GOOS)
	}
	found, err := dl.Load(spec)
	if err == nil {
		l.path = found.Path
		return l, nil
	}
	hint := "install NCCL: NVIDIA's libnccl2 package, or the Python wheel nvidia-nccl-cu13 (or -cu12, which PyTorch brings), or set " +
		EnvLibrary + " to the path of libnccl.so.2"
	if explicit {
		hint = EnvLibrary + " must name an NCCL library (libnccl.so.2, 2.10 or newer); unset it to search the usual places"
	}
	if !dlSupported {
		hint = "NCCL exists for Linux only: run multi-GPU collectives on Linux"
	}
	msg := "no NCCL library found"
	if tried := dl.Tried(err); len(tried) > 0 {
		msg = "no usable NCCL library: " + strings.Join(tried, "; ")
	}
	return nil, &errors.Error{Backend: Backend, Op: "load", Category: errors.Unavailable, Msg: msg, Hint: hint}
}

// Available reports whether NCCL can be loaded: nil, or an error of category
// Unavailable that says what was tried, with a hint.
func Available() error {
	_, err := load()
	return err
}

// Version is the loaded NCCL's version ("2.28.7"), or an error of category
// Unavailable when there is none.
func Version() (string, error) {
	l, err := load()
	if err != nil {
		return "", err
	}
	return versionString(l.version), nil
}

// Library is the file the loaded NCCL came from: the candidate that opened
// (a path, or the soname the system's search resolved, then the file mapped
// into the process where it can be read), or an error of category
// Unavailable when there is none.
func Library() (string, error) {
	l, err := load()
	if err != nil {
		return "", err
	}
	if filepath.IsAbs(l.path) {
		return l.path, nil
	}
	if p := dl.MappedFile("libnccl.so"); p != "" {
		return p, nil
	}
	return l.path, nil
}

// lastError is ncclGetLastError(comm): NCCL's own description of the last
// failure, "" when the library cannot say.
func (l *library) lastError(comm uintptr) string {
	if !l.has(symGetLastError) {
		return ""
	}
	return strings.TrimSpace(dl.GoStringN(dl.Call(l.fn[symGetLastError], comm), 1<<16))
}

// result converts an ncclResult_t of operation op on comm (0 when there is
// none yet) to an error, adding NCCL's own description of the failure.
func (l *library) result(r uintptr, op string, comm uintptr) error {
	err := resultErr(int64(int32(r)), op)
	if err == nil {
		return nil
	}
	if e, ok := err.(*errors.Error); ok {
		if last := l.lastError(comm); last != "" {
			e.Msg += ": " + last
		}
	}
	return err
}
