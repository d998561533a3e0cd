//go:build linux || freebsd

package dl

import "github.com/ebitengine/purego"

// Supported reports whether this system can open native libraries.
const Supported = true

// Open opens the library at path (a file name searched the system's way, or
// a path).
func Open(path string) (uintptr, error) {
	return purego.Dlopen(path, purego.RTLD_LAZY|purego.RTLD_LOCAL)
}

// Sym returns the address of the exported symbol name, 0 when there is none.
func Sym(handle uintptr, name string) uintptr {
	p, err := purego.Dlsym(handle, name)
	if err != nil {
		return 0
	}
	return p
}
