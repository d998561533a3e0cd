package kernels

// The Go kernels the tests of this package launch: the generated ones, as
// Source hands them to the CPU backend (guarded).
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
	goSgemm     = goKernels[OpSgemm]
)
