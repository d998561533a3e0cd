//go:build !linux && !freebsd && !windows && !darwin && !netbsd

package dl

// Call is never reached on systems purego does not support: no library
// opens there, so no function address exists.
//
//go:uintptrescapes
func Call(fn uintptr, args ...uintptr) uintptr {
	panic("dl: native calls are not supported on this system")
}

// CallArgs is never reached on systems purego does not support.
func CallArgs(fn uintptr, args []uintptr) uintptr {
	panic("dl: native calls are not supported on this system")
}
