//go:build linux || freebsd || windows || darwin || netbsd

package dl

import "github.com/ebitengine/purego"

// Call invokes the C function fn and returns its integer result. Like
// purego.SyscallN it is go:uintptrescapes: an object whose address is
// converted to uintptr in its argument list stays on the heap and alive for
// the call.
//
//go:uintptrescapes
func Call(fn uintptr, args ...uintptr) uintptr {
	r, _, _ := purego.SyscallN(fn, args...)
	return r
}
