package kernelcorpus

import (
	"math"
	"math/rand/v2"

	"github.com/anygpu/gpu/kernel"
)

// HalfConvert rounds x to float16 and reads it back: h gets the halves'
// bits (round to nearest even: ties, subnormals, overflow to Inf) and back
// their float32 values.
//
//gpu:kernel
func HalfConvert(h []kernel.Float16, back, x []float32, n uint32) {
	if i := kernel.GlobalX(); i < n {
		h[i] = kernel.ToFloat16(x[i])
		back[i] = kernel.ToFloat32(h[i])
	}
}

// HalfScale is y = a*x on float16 buffers, computed in float32; each
// thread writes one half of a 4-byte word whose other half a neighbour
// writes at the same time. It also copies x to c, element by element.
//
//gpu:kernel
func HalfScale(y, c, x []kernel.Float16, a float32, n uint32) {
	i := kernel.GlobalX()
	if i >= n {
		return
	}
	y[i] = kernel.ToFloat16(a * kernel.ToFloat32(x[i]))
	c[n-1-i] = x[n-1-i]
}

// toHalfPrecision rounds v to the nearest float16, kept as a float32.
func toHalfPrecision(v float32) float32 { return kernel.ToFloat32(kernel.ToFloat16(v)) }

// HalfRowSum sums each row of a rows×cols float16 matrix in float32, and
// also gives the sum rounded to float16's precision.
//
//gpu:kernel
func HalfRowSum(out, rounded []float32, x []kernel.Float16, rows, cols uint32) {
	r := kernel.GlobalX()
	if r >= rows {
		return
	}
	var acc float32
	for j := range cols {
		acc += kernel.ToFloat32(x[r*cols+j])
	}
	out[r] = acc
	rounded[r] = toHalfPrecision(acc * 100)
}

// halves packs xs, rounded to float16, two to a uint32 word (element 2k in
// the low half of word k), as a []kernel.Float16 lies in memory; an odd
// length drops the last.
func halves(xs []float32) []uint32 {
	out := make([]uint32, len(xs)/2)
	for k := range out {
		out[k] = uint32(kernel.ToFloat16(xs[2*k])) | uint32(kernel.ToFloat16(xs[2*k+1]))<<16
	}
	return out
}

// halfEdges are float32s where rounding to float16 decides: ties to even,
// the subnormal range and its zero tie, overflow to Inf, signed zeros and
// infinities, a float32 subnormal; then a spread of magnitudes. No NaN: its
// payload and sign after a conversion are the device's.
var halfEdges = func() []float32 {
	xs := []float32{0, float32(math.Copysign(0, -1)), 1, -2, 65504, 65519.99, 65520, 1e6,
		float32(math.Inf(1)), float32(math.Inf(-1)), 1 + 1.0/2048, 1 + 3.0/2048, -(1 + 5.0/2048),
		1.0 / 16384, 1.0 / 16777216, 1.0 / 33554432, math.Float32frombits(0x33000001), 1.5 / 16777216,
		2.5 / 16777216, -3.5 / 16777216, math.Float32frombits(1), 0.1, -0.3, 3.14159}
	r := rand.New(rand.NewPCG(47, 4))
	for len(xs) < 512 {
		e := r.IntN(44) - 28 // 2**-28 to 2**15
		xs = append(xs, float32(math.Ldexp(r.Float64()*2-1, e)))
	}
	return xs
}()
