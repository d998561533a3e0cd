//go:build linux || freebsd

package dl

import "github.com/ebitengine/purego"

// Supported reports whether Open can open libraries on this system.
const Supported = true

// Open opens the library at path (a file name searched the system's way,
// or a path) and returns its handle. mode says when its functions are
// bound; its symbols stay local to it.
func Open(path string, mode Mode) (uintptr, error) {
	flags := purego.RTLD_LAZY
	if mode == Now {
		flags = purego.RTLD_NOW
	}
	return purego.Dlopen(path, flags|purego.RTLD_LOCAL)
}

// Sym returns the address of the exported symbol name in the library of
// handle, 0 when there is none.
func Sym(handle uintptr, name string) uintptr {
	p, err := purego.Dlsym(handle, name)
	if err != nil {
		return 0
	}
	return p
}
