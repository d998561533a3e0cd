//go:build !linux && !freebsd && !windows && !darwin && !netbsd

package cu

// callFrame is never reached on systems purego does not support: no library
// loads there, so no function pointer exists.
func callFrame(fn uintptr, a *[frameWords]uintptr, n int) uintptr { return uintptr(ErrorNotSupported) }
