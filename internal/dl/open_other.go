//go:build !linux && !freebsd && !darwin && !netbsd && !windows

package dl

import (
	"fmt"
	"runtime"
)

// Supported reports whether Open can open libraries on this system: not on
// this one, for which none of the module's native libraries (CUDA, NVRTC,
// NCCL) exist.
const Supported = false

// Open always fails on this system.
func Open(path string, mode Mode) (uintptr, error) {
	return 0, fmt.Errorf("native libraries are not opened on %s", runtime.GOOS)
}

// Sym always returns 0 on this system.
func Sym(uintptr, string) uintptr { return 0 }
