//go:build windows

package dl

import "syscall"

// Supported reports whether Open can open libraries on this system.
const Supported = true

// Open opens the DLL at path (a file name searched the system's way, or a
// path) and returns its handle. Windows binds as it does; mode is ignored.
func Open(path string, mode Mode) (uintptr, error) {
	h, err := syscall.LoadLibrary(path)
	return uintptr(h), err
}

// Sym returns the address of the exported symbol name in the DLL of
// handle, 0 when there is none.
func Sym(handle uintptr, name string) uintptr {
	p, err := syscall.GetProcAddress(syscall.Handle(handle), name)
	if err != nil {
		return 0
	}
	return p
}
