//go:build !linux && !freebsd && !windows

package cu

import (
	"fmt"
	"runtime"
)

// defaultLibraries is empty: NVIDIA ships no CUDA driver for this system.
var defaultLibraries []string

func dlopen(path string) (uintptr, error) {
	return 0, fmt.Errorf("CUDA is not available on %s", runtime.GOOS)
}

func dlsym(uintptr, string) uintptr { return 0 }
