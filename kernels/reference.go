package kernels

import "fmt"

// The Ref functions are the host references the conformance suite compares
// every backend against. They are written to be obviously correct, not fast:
// one plain loop each, the whole array at once, no grid. None of them writes
// to its arguments: each returns a newly allocated result. Element-wise
// results are the exact result rounded once to float32 (products are formed
// in float64, where the product of two float32s is exact), which is what a
// fused multiply-add gives; sums accumulate in float64. They panic when
// slice lengths disagree, which is always a bug in the calling test.

// RefFill returns n copies of value.
func RefFill(n int, value float32) []float32 {
	y := make([]float32, n)
	for i := range y {
		y[i] = value
	}
	return y
}

// RefCopy returns a copy of x.
func RefCopy(x []float32) []float32 {
	y := make([]float32, len(x))
	copy(y, x)
	return y
}

// RefScale returns a*x[i] for every i.
func RefScale(x []float32, a float32) []float32 {
	y := make([]float32, len(x))
	for i := range x {
		y[i] = float32(float64(a) * float64(x[i]))
	}
	return y
}

// RefAxpy returns a*x[i] + y[i] for every i, rounded once; y is not modified.
// The argument order follows the kernel's: y first.
func RefAxpy(y, x []float32, a float32) []float32 {
	sameLen("RefAxpy", len(y), len(x))
	out := make([]float32, len(x))
	for i := range x {
		out[i] = float32(float64(a)*float64(x[i]) + float64(y[i]))
	}
	return out
}

// RefAdd returns x[i] + y[i] for every i.
func RefAdd(x, y []float32) []float32 {
	sameLen("RefAdd", len(x), len(y))
	z := make([]float32, len(x))
	for i := range x {
		z[i] = x[i] + y[i]
	}
	return z
}

// RefMul returns x[i] * y[i] for every i.
func RefMul(x, y []float32) []float32 {
	sameLen("RefMul", len(x), len(y))
	z := make([]float32, len(x))
	for i := range x {
		z[i] = x[i] * y[i]
	}
	return z
}

// RefReduceSum returns the sum of x, accumulated in float64 from first to
// last. Compare a backend's float32 total with it using ReductionTolerance.
func RefReduceSum(x []float32) float64 {
	var s float64
	for _, v := range x {
		s += float64(v)
	}
	return s
}

// RefDot returns the sum of x[i]*y[i], accumulated in float64.
func RefDot(x, y []float32) float64 {
	sameLen("RefDot", len(x), len(y))
	var s float64
	for i := range x {
		s += float64(x[i]) * float64(y[i])
	}
	return s
}

// RefTranspose returns the cols×rows transpose of the rows×cols row-major
// matrix in: out[c*rows+r] = in[r*cols+c].
func RefTranspose(in []float32, rows, cols int) []float32 {
	sameLen("RefTranspose", len(in), rows*cols)
	out := make([]float32, len(in))
	for r := 0; r < rows; r++ {
		for c := 0; c < cols; c++ {
			out[c*rows+r] = in[r*cols+c]
		}
	}
	return out
}

// RefSgemm returns alpha*A·B + beta*C for row-major C (m×n), A (m×k) and B
// (k×n); c is not modified. Each element's dot product is accumulated in
// float64 and rounded to float32, then alpha and beta are applied in float32.
// When beta is 0, C is not read (as in BLAS).
func RefSgemm(c, a, b []float32, m, n, k int, alpha, beta float32) []float32 {
	sameLen("RefSgemm c", len(c), m*n)
	sameLen("RefSgemm a", len(a), m*k)
	sameLen("RefSgemm b", len(b), k*n)
	out := make([]float32, m*n)
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			var s float64
			for p := 0; p < k; p++ {
				s += float64(a[i*k+p]) * float64(b[p*n+j])
			}
			v := alpha * float32(s)
			if beta != 0 {
				v += beta * c[i*n+j]
			}
			out[i*n+j] = v
		}
	}
	return out
}

func sameLen(what string, got, want int) {
	if got != want {
		panic(fmt.Sprintf("kernels.%s: slice holds %d elements, want %d", what, got, want))
	}
}
