//go:build !linux && !freebsd && !windows && !darwin && !netbsd

package dl

// Call is never reached where no library can be opened.
//
//go:uintptrescapes
func Call(fn uintptr, args ...uintptr) uintptr {
	panic("dl: native calls are not supported on this system")
}
