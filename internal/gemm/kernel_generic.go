package gemm

// genericMR and genericNR are the pure-Go micro-kernel's tile: sixteen
// accumulators, which stay in registers on amd64 and arm64.
const (
	genericMR = 4
	genericNR = 4
)

// genericKernel is the pure-Go micro-kernel for CPUs without an assembly one:
// it multiplies a 4×kc panel of packed A by a kc×4 panel of packed B and
// writes alpha·A·B (+ beta·C when loadC) to the 4×4 tile at c.
func genericKernel(kc int, a, b, c []float32, ldc int, alpha, beta float32, loadC bool) {
	var c00, c01, c02, c03 float32
	var c10, c11, c12, c13 float32
	var c20, c21, c22, c23 float32
	var c30, c31, c32, c33 float32
	a, b = a[:genericMR*kc], b[:genericNR*kc]
	for p := 0; p < kc; p++ {
		av := a[p*genericMR : p*genericMR+genericMR : p*genericMR+genericMR]
		bv := b[p*genericNR : p*genericNR+genericNR : p*genericNR+genericNR]
		a0, a1, a2, a3 := av[0], av[1], av[2], av[3]
		b0, b1, b2, b3 := bv[0], bv[1], bv[2], bv[3]
		c00 += a0 * b0
		c01 += a0 * b1
		c02 += a0 * b2
		c03 += a0 * b3
		c10 += a1 * b0
		c11 += a1 * b1
		c12 += a1 * b2
		c13 += a1 * b3
		c20 += a2 * b0
		c21 += a2 * b1
		c22 += a2 * b2
		c23 += a2 * b3
		c30 += a3 * b0
		c31 += a3 * b1
		c32 += a3 * b2
		c33 += a3 * b3
	}
	rows := [genericMR][genericNR]float32{
		{c00, c01, c02, c03},
		{c10, c11, c12, c13},
		{c20, c21, c22, c23},
		{c30, c31, c32, c33},
	}
	for r := range rows {
		out := c[r*ldc : r*ldc+genericNR : r*ldc+genericNR]
		for j, v := range rows[r] {
			if loadC {
				out[j] = alpha*v + beta*out[j]
			} else {
				out[j] = alpha * v
			}
		}
	}
}
