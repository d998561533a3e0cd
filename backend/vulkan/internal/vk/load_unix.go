//go:build darwin || freebsd || linux || netbsd

package vk

import "github.com/ebitengine/purego"

// openLibrary opens the shared library at path (a file name searched the
// usual way, or a path) and returns its handle.
func openLibrary(path string) (uintptr, error) {
	return purego.Dlopen(path, purego.RTLD_NOW|purego.RTLD_LOCAL)
}

// librarySymbol returns the address of symbol name in the library h.
func librarySymbol(h uintptr, name string) (uintptr, error) {
	return purego.Dlsym(h, name)
}
