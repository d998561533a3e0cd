//go:build amd64 || arm64

package vsum

// sum4Vector returns the float32 sum of n elements from each of p0..p3 (n a
// multiple of 16), in vector registers: AVX2 on amd64 (sum_amd64.s, run only
// where the CPU has it), NEON on arm64 (sum_arm64.s).
//
//go:noescape
func sum4Vector(p0, p1, p2, p3 *float32, n int) float32

// dot4Vector returns the float32 sum of x·y over n elements of each of four
// pairs (n a multiple of 16), with fused multiply-adds, as sum4Vector sums.
//
//go:noescape
func dot4Vector(x0, x1, x2, x3, y0, y1, y2, y3 *float32, n int) float32

// sum4Asm runs sum4Vector over the runs' leading multiple of 16 elements and
// adds the rest in Go.
func sum4Asm(x0, x1, x2, x3 []float32) float32 {
	m := len(x0)
	x1, x2, x3 = x1[:m], x2[:m], x3[:m]
	v := m &^ 15
	var s float32
	if v > 0 {
		s = sum4Vector(&x0[0], &x1[0], &x2[0], &x3[0], v)
	}
	if v < m {
		s += sum4Generic(x0[v:], x1[v:], x2[v:], x3[v:])
	}
	return s
}

// dot4Asm is sum4Asm's counterpart for dot4Vector.
func dot4Asm(x0, x1, x2, x3, y0, y1, y2, y3 []float32) float32 {
	m := len(x0)
	x1, x2, x3 = x1[:m], x2[:m], x3[:m]
	y0, y1, y2, y3 = y0[:m], y1[:m], y2[:m], y3[:m]
	v := m &^ 15
	var s float32
	if v > 0 {
		s = dot4Vector(&x0[0], &x1[0], &x2[0], &x3[0], &y0[0], &y1[0], &y2[0], &y3[0], v)
	}
	if v < m {
		s += dot4Generic(x0[v:], x1[v:], x2[v:], x3[v:], y0[v:], y1[v:], y2[v:], y3[v:])
	}
	return s
}
