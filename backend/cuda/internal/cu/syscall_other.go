//go:build !linux && !freebsd && !windows && !darwin && !netbsd

package cu

// call is never reached on systems purego does not support: no library
// loads there, so no function pointer exists.
//
//go:uintptrescapes
func call(fn uintptr, args ...uintptr) uintptr { return uintptr(ErrorNotSupported) }

// callArgs is never reached on systems purego does not support.
func callArgs(fn uintptr, args []uintptr) uintptr { return uintptr(ErrorNotSupported) }
