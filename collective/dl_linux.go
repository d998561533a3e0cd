//go:build linux

package collective

import "github.com/ebitengine/purego"

// dlSupported reports whether this system has NCCL at all.
const dlSupported = true

// dlOpen opens the library at path (a file name searched the system's way,
// or a path).
func dlOpen(path string) (uintptr, error) {
	return purego.Dlopen(path, purego.RTLD_NOW|purego.RTLD_LOCAL)
}

// dlSym returns the address of the exported symbol name, 0 when there is none.
func dlSym(handle uintptr, name string) uintptr {
	p, err := purego.Dlsym(handle, name)
	if err != nil {
		return 0
	}
	return p
}

// call invokes the C function fn and returns its integer result. Like
// purego.SyscallN it is go:uintptrescapes: an object whose address is
// converted to uintptr in the argument list of a call of call stays on the
// heap and alive until call returns. Off hot paths.
//
//go:uintptrescapes
func call(fn uintptr, args ...uintptr) uintptr {
	r, _, _ := purego.SyscallN(fn, args...)
	return r
}

// callArgs invokes fn with the arguments in args, which the caller keeps in
// reused heap memory and which hold no Go pointers: the hot path (every
// collective), allocating nothing.
func callArgs(fn uintptr, args []uintptr) uintptr {
	r, _, _ := purego.SyscallN(fn, args...)
	return r
}
