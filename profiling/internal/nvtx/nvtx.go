// Package nvtx binds the two NVTX functions the profiler uses,
// nvtxRangeStartA and nvtxRangeEnd, from libnvToolsExt (CUDA 12) or
// libnvtx3interop (CUDA 13), loaded at run time through internal/dl. Under
// Nsight Systems the library forwards each call to the tool
// (NVTX_INJECTION64_PATH), which shows the range on its timeline; without a
// tool attached the calls return at once.
//
// Start/End ranges, not Push/Pop: NVTX's push/pop stack belongs to an OS
// thread, and a goroutine may move between threads, so only the
// process-wide start/end ranges are correct from Go.
package nvtx

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"unsafe"

	"github.com/anygpu/gpu/internal/dl"
)

// EnvLibrary names the NVTX library to load instead of searching for it.
const EnvLibrary = "ANYGPU_NVTX_LIBRARY"

// Library is a loaded libnvToolsExt.
type Library struct {
	Path       string // the candidate it was opened by
	start, end uintptr
}

var libs dl.Memo[*Library]

// Load returns the process's NVTX library, searching for it on first use
// (once per value of ANYGPU_NVTX_LIBRARY). The error says why none could be
// used.
func Load() (*Library, error) {
	env := dl.Env{GOOS: runtime.GOOS, Getenv: os.Getenv}
	key := env.Getenv(EnvLibrary)
	return libs.Get(key, func() (*Library, error) { return loadFrom(candidates(env)) })
}

// candidates lists the library's names for the system's own search (CUDA
// 12's libnvToolsExt, CUDA 13's libnvtx3interop, which exports the same C
// functions), then those files in the CUDA toolkit's directories
// ($CUDA_HOME and the like, /usr/local/cuda) and the nvidia-nvtx Python
// wheel's.
func candidates(env dl.Env) []string {
	names := []string{"libnvToolsExt.so.1", "libnvToolsExt.so", "libnvtx3interop.so.1"}
	if env.GOOS == "windows" {
		names = []string{"nvToolsExt64_1.dll"}
	}
	return env.Search(EnvLibrary, names, func() []string {
		vars := []string{"CUDA_HOME", "CUDA_PATH", "CUDA_ROOT"}
		if env.GOOS == "windows" {
			return append(env.EnvDirs(vars, "bin"), dl.Join(env.SitePackages(false), filepath.Join("nvidia", "nvtx", "bin"))...)
		}
		dirs := append(env.EnvDirs(vars, "lib64", "lib"), dl.Join(env.ToolkitDirs(), "lib64", filepath.Join("targets", "x86_64-linux", "lib"), filepath.Join("targets", "sbsa-linux", "lib"))...)
		return append(dirs, dl.Join(env.SitePackages(false), filepath.Join("nvidia", "nvtx", "lib"))...)
	})
}

func loadFrom(cands []string) (*Library, error) {
	var fn [2]uintptr
	spec := dl.Spec{
		Candidates: cands,
		Mode:       dl.Lazy,
		Accept:     dl.SymbolsFunc(fn[:], []string{"nvtxRangeStartA", "nvtxRangeEnd"}, 2),
	}
	switch {
	case !dl.Supported:
		spec.Unavailable = dl.Unsupported("NVTX", runtime.GOOS)
	case unsafe.Sizeof(uintptr(0)) < 8:
		spec.Unavailable = "NVTX range ids are 64-bit; this is a 32-bit system"
	}
	found, err := dl.Load(spec)
	if err != nil {
		return nil, &loadError{tried: dl.Tried(err)}
	}
	return &Library{Path: found.Path, start: fn[0], end: fn[1]}, nil
}

// loadError is why no NVTX library could be used: one reason per candidate.
type loadError struct{ tried []string }

func (e *loadError) Error() string {
	if len(e.tried) == 0 {
		return "nvtx: no NVTX library found"
	}
	return "nvtx: no usable NVTX library: " + strings.Join(e.tried, "; ")
}

// Start opens a process-wide range named name (nvtxRangeStartA) and returns
// its id for End.
func (l *Library) Start(name string) uint64 {
	c := dl.CString(name)
	id := dl.Call(l.start, uintptr(unsafe.Pointer(&c[0])))
	runtime.KeepAlive(c)
	return uint64(id)
}

// End closes the range Start returned id for (nvtxRangeEnd).
func (l *Library) End(id uint64) {
	dl.Call(l.end, uintptr(id))
}
