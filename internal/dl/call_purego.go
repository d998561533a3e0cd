//go:build linux || freebsd || windows || darwin || netbsd

package dl

import "github.com/ebitengine/purego"

// Call invokes the C function fn with args and returns its integer result.
// Like purego.SyscallN it is go:uintptrescapes: an object whose address is
// converted to uintptr in the argument list of a call of Call is kept on
// the heap and alive until Call returns. Each call allocates its argument
// array; hot paths use CallArgs.
//
//go:uintptrescapes
func Call(fn uintptr, args ...uintptr) uintptr {
	r, _, _ := purego.SyscallN(fn, args...)
	return r
}

// CallArgs invokes fn with the arguments in args, which the caller keeps in
// reused memory and which hold no Go pointers (handles, integers, addresses
// of memory that does not move), and returns its integer result. Unlike
// Call it allocates nothing.
func CallArgs(fn uintptr, args []uintptr) uintptr {
	r, _, _ := purego.SyscallN(fn, args...)
	return r
}
