//go:build !linux

package collective

import (
	"fmt"
	"runtime"
)

// dlSupported reports whether this system has NCCL at all: NVIDIA builds it
// for Linux only.
const dlSupported = false

func dlOpen(string) (uintptr, error) {
	return 0, fmt.Errorf("NCCL is not available on %s", runtime.GOOS)
}

func dlSym(uintptr, string) uintptr { return 0 }

// call is never reached: no library loads on this system.
func call(uintptr, ...uintptr) uintptr { return resInternalError }

func callArgs(uintptr, []uintptr) uintptr { return resInternalError }
