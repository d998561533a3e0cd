//go:build windows

package vk

import "syscall"

// openLibrary opens the DLL at path (a file name searched the usual way, or
// a path) and returns its handle.
func openLibrary(path string) (uintptr, error) {
	h, err := syscall.LoadLibrary(path)
	return uintptr(h), err
}

// librarySymbol returns the address of symbol name in the DLL h.
func librarySymbol(h uintptr, name string) (uintptr, error) {
	return syscall.GetProcAddress(syscall.Handle(h), name)
}
