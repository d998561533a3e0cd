package vsum

// BlockLen is the most elements of one run that a sum adds in float32
// before moving the block's sum into its float64 total.
const BlockLen = 1024

// Sum returns the sum of x.
func Sum(x []float32) float64 {
	q := len(x) / 4
	total := Sum4(x[:q], x[q:2*q], x[2*q:3*q], x[3*q:4*q])
	for _, v := range x[4*q:] {
		total += float64(v)
	}
	return total
}

// Sum4 returns the sum of the elements of four runs of the length of x0
// (x1, x2 and x3 must be at least as long; their elements past it are not
// read).
func Sum4(x0, x1, x2, x3 []float32) float64 {
	m := len(x0)
	x1, x2, x3 = x1[:m], x2[:m], x3[:m]
	var total float64
	for lo := 0; lo < m; lo += BlockLen {
		hi := min(lo+BlockLen, m)
		total += float64(sum4(x0[lo:hi], x1[lo:hi], x2[lo:hi], x3[lo:hi]))
	}
	return total
}

// Dot returns the sum of x[i]·y[i] over the elements of x (y must be at
// least as long).
func Dot(x, y []float32) float64 {
	y = y[:len(x)]
	q := len(x) / 4
	total := Dot4(x[:q], x[q:2*q], x[2*q:3*q], x[3*q:4*q], y[:q], y[q:2*q], y[2*q:3*q], y[3*q:4*q])
	for i := 4 * q; i < len(x); i++ {
		total += float64(x[i] * y[i])
	}
	return total
}

// Dot4 returns the sum of x[i]·y[i] over four pairs of runs of the length of
// x0, as Sum4 sums.
func Dot4(x0, x1, x2, x3, y0, y1, y2, y3 []float32) float64 {
	m := len(x0)
	x1, x2, x3 = x1[:m], x2[:m], x3[:m]
	y0, y1, y2, y3 = y0[:m], y1[:m], y2[:m], y3[:m]
	var total float64
	for lo := 0; lo < m; lo += BlockLen {
		hi := min(lo+BlockLen, m)
		total += float64(dot4(x0[lo:hi], x1[lo:hi], x2[lo:hi], x3[lo:hi], y0[lo:hi], y1[lo:hi], y2[lo:hi], y3[lo:hi]))
	}
	return total
}
