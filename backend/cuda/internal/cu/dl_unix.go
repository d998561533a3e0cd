//go:build linux || freebsd

package cu

import "github.com/ebitengine/purego"

// defaultLibraries are the names tried, in order, when no path is given: the
// driver's soname only. The unversioned libcuda.so is normally the toolkit's
// stub (CUDA_ERROR_STUB_LIBRARY), so it is never tried by default.
var defaultLibraries = []string{"libcuda.so.1"}

func dlopen(path string) (uintptr, error) {
	return purego.Dlopen(path, purego.RTLD_NOW|purego.RTLD_LOCAL)
}

func dlsym(handle uintptr, name string) uintptr {
	p, err := purego.Dlsym(handle, name)
	if err != nil {
		return 0
	}
	return p
}
