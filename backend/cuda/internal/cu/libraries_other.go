//go:build !linux && !freebsd && !windows

package cu

// defaultLibraries is empty: NVIDIA ships no CUDA driver for this system.
var defaultLibraries []string
