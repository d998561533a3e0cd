package kernels

// The CPU backend's Go kernels as Source hands them out (generated from
// kernels/internal/ops and guarded; sgemm, reduce_sum and dot hand-tuned):
// what the tests and benchmarks of this package run.
var (
	goKernels   = Source().Go
	goFill      = goKernels[OpFill]
	goCopy      = goKernels[OpCopy]
	goScale     = goKernels[OpScale]
	goAxpy      = goKernels[OpAxpy]
	goAdd       = goKernels[OpAdd]
	goMul       = goKernels[OpMul]
	goReduceSum = goKernels[OpReduceSum]
	goDot       = goKernels[OpDot]
	goTranspose = goKernels[OpTranspose]
)
