//go:build !linux && !freebsd && !windows && !darwin && !netbsd

package cu

// call is never reached on systems purego does not support: no library
// loads there, so no function pointer exists.
//
//go:uintptrescapes
func call(fn uintptr, args ...uintptr) uintptr { return uintptr(ErrorNotSupported) }

// callFrame is never reached on systems purego does not support.
func callFrame(fn uintptr, a *[frameWords]uintptr, n int) uintptr { return uintptr(ErrorNotSupported) }
