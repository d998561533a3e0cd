//go:build windows

package dl

import "syscall"

// Supported reports whether this system can open native libraries.
const Supported = true

// Open opens the DLL at path.
func Open(path string) (uintptr, error) {
	h, err := syscall.LoadLibrary(path)
	return uintptr(h), err
}

// Sym returns the address of the exported symbol name, 0 when there is none.
func Sym(handle uintptr, name string) uintptr {
	p, err := syscall.GetProcAddress(syscall.Handle(handle), name)
	if err != nil {
		return 0
	}
	return p
}
