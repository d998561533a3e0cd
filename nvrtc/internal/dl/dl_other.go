//go:build !linux && !freebsd && !windows

package dl

import (
	"fmt"
	"runtime"
)

// Supported reports whether this system can open native libraries.
const Supported = false

// Open always fails: NVIDIA ships no CUDA libraries for this system.
func Open(path string) (uintptr, error) {
	return 0, fmt.Errorf("CUDA libraries are not available on %s", runtime.GOOS)
}

// Sym always returns 0.
func Sym(uintptr, string) uintptr { return 0 }
