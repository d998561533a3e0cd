package gemm

// kernelAVX512 multiplies an 8×kc panel of packed A by a kc×32 panel of
// packed B and writes alpha·A·B (+ beta·C when loadC) to the 8×32 tile at c,
// whose rows are ldc floats apart.
//
//go:noescape
func kernelAVX512(kc int, a, b, c *float32, ldc int, alpha, beta float32, loadC bool)

// kernelAVX2 is kernelAVX512's 6×16 counterpart with AVX2 and FMA.
//
//go:noescape
func kernelAVX2(kc int, a, b, c *float32, ldc int, alpha, beta float32, loadC bool)

// archKernels returns the assembly micro-kernels this CPU runs, fastest first.
func archKernels() []microKernel {
	f := detectX86()
	var ks []microKernel
	if f.avx512F {
		ks = append(ks, microKernel{name: "avx512", id: idAVX512, mr: 8, nr: 32})
	}
	if f.avx2FMA {
		ks = append(ks, microKernel{name: "avx2", id: idAVX2, mr: 6, nr: 16})
	}
	return ks
}

// runArch runs the assembly micro-kernel id and reports true, or reports
// false for a kernel that is not this architecture's.
func runArch(id kernelID, kc int, a, b, c []float32, ldc int, alpha, beta float32, loadC bool) bool {
	switch id {
	case idAVX512:
		_, _, _ = a[8*kc-1], b[32*kc-1], c[7*ldc+31] // the tile lies inside the slices
		kernelAVX512(kc, &a[0], &b[0], &c[0], ldc, alpha, beta, loadC)
		return true
	case idAVX2:
		_, _, _ = a[6*kc-1], b[16*kc-1], c[5*ldc+15]
		kernelAVX2(kc, &a[0], &b[0], &c[0], ldc, alpha, beta, loadC)
		return true
	}
	return false
}
