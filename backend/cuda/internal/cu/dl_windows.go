//go:build windows

package cu

import "syscall"

// defaultLibraries are the names tried, in order, when no path is given.
var defaultLibraries = []string{"nvcuda.dll"}

func dlopen(path string) (uintptr, error) {
	h, err := syscall.LoadLibrary(path)
	return uintptr(h), err
}

func dlsym(handle uintptr, name string) uintptr {
	p, err := syscall.GetProcAddress(syscall.Handle(handle), name)
	if err != nil {
		return 0
	}
	return p
}
