package gemm

// kernelNEON multiplies an 8×kc panel of packed A by a kc×12 panel of packed
// B and writes alpha·A·B (+ beta·C when loadC) to the 8×12 tile at c, whose
// rows are ldc floats apart. Every arm64 CPU has NEON (Advanced SIMD).
//
//go:noescape
func kernelNEON(kc int, a, b, c *float32, ldc int, alpha, beta float32, loadC bool)

// archKernels returns the assembly micro-kernel of arm64: NEON, 8×12.
func archKernels() []microKernel {
	return []microKernel{{name: "neon", id: idNEON, mr: 8, nr: 12}}
}

// runArch runs the assembly micro-kernel id and reports true, or reports
// false for a kernel that is not this architecture's.
func runArch(id kernelID, kc int, a, b, c []float32, ldc int, alpha, beta float32, loadC bool) bool {
	if id != idNEON {
		return false
	}
	_, _, _ = a[8*kc-1], b[12*kc-1], c[7*ldc+11] // the tile lies inside the slices
	kernelNEON(kc, &a[0], &b[0], &c[0], ldc, alpha, beta, loadC)
	return true
}
