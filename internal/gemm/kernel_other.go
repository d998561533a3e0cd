//go:build !amd64 && !arm64

package gemm

// archKernels returns no assembly micro-kernel: on this architecture the
// pure-Go kernel runs.
func archKernels() []microKernel { return nil }
