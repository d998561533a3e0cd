//go:build linux || freebsd || windows || darwin || netbsd

package cu

import "github.com/ebitengine/purego"

// call invokes the C function fn with args and returns its integer result.
// Like purego.SyscallN it is go:uintptrescapes: an object whose address is
// converted to uintptr in the argument list of a call of call is kept on the
// heap and alive until call returns.
//
//go:uintptrescapes
func call(fn uintptr, args ...uintptr) uintptr {
	r, _, _ := purego.SyscallN(fn, args...)
	return r
}
