//go:build !amd64 && !arm64

package gemm

// archKernels returns no assembly micro-kernel: on this architecture the
// pure-Go kernel runs.
func archKernels() []microKernel { return nil }

// runArch reports false: this architecture has no assembly micro-kernel.
func runArch(kernelID, int, []float32, []float32, []float32, int, float32, float32, bool) bool {
	return false
}
