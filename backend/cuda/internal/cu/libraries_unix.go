//go:build linux || freebsd

package cu

// defaultLibraries are the names tried, in order, when no path is given: the
// driver's soname only. The unversioned libcuda.so is normally the toolkit's
// stub (CUDA_ERROR_STUB_LIBRARY), so it is never tried by default.
var defaultLibraries = []string{"libcuda.so.1"}
