package ops

import "github.com/anygpu/gpu/kernel"

// Unary op codes (unary's op).
const (
	UnaryScale    = 0 // a·x
	UnaryReLU     = 1 // max(x, 0)
	UnaryGELUTanh = 2 // x/2·(1 + tanh(√(2/π)·(x + 0.044715x³)))
	UnaryGELUErf  = 3 // x/2·(1 + erf(x/√2))
	UnarySiLU     = 4 // x/(1 + e^-x)
	UnaryExp      = 5 // e^x
	UnaryTanh     = 6 // tanh x
)

// Binary op codes (binary's op).
const (
	BinaryAdd = 0
	BinarySub = 1
	BinaryMul = 2
	BinaryDiv = 3
)

// expArgMax bounds the argument of the exponentials in silu, which then
// stay finite (e^80 < float32's largest): the dialects that may assume no
// infinities (Vulkan, OpenGL, WebGPU) compute the right limit.
const expArgMax = 80

// erf is the error function: Abramowitz and Stegun's formula 7.1.26 (a
// polynomial in 1/(1+p·|x|) times e^(-x²)), whose absolute error is at most
// 1.5e-7, about float32's resolution near 1; the sign is restored by oddness.
func erf(x float32) float32 {
	a := kernel.Abs(x)
	t := 1 / (1 + 0.3275911*a)
	poly := t * (0.254829592 + t*(-0.284496736+t*(1.421413741+t*(-1.453152027+t*1.061405429))))
	r := 1 - poly*kernel.Exp(-a*a)
	if x < 0 {
		return -r
	}
	return r
}

// unaryValue applies unary op code op to v.
func unaryValue(op uint32, v, a float32) float32 {
	if op == UnaryScale {
		return a * v
	} else if op == UnaryReLU {
		return max(v, 0)
	} else if op == UnaryGELUTanh {
		return 0.5 * v * (1 + kernel.Tanh(0.7978845608028654*(v+0.044715*v*v*v)))
	} else if op == UnaryGELUErf {
		return 0.5 * v * (1 + erf(v*0.7071067811865476))
	} else if op == UnarySiLU {
		return v / (1 + kernel.Exp(min(-v, expArgMax)))
	} else if op == UnaryExp {
		return kernel.Exp(v)
	}
	return kernel.Tanh(v)
}

// unary sets y[i] = f(x_view[i]) for the n elements of a strided view of x
// (offset xoff, sizes s0..s5, strides t0..t5); y is contiguous, of x's
// dtype code dt. a is the scale's factor. Each thread writes whole words of
// y (perWord elements); the bytes of y's last word past the n-th element are
// set to 0.
//
//gpu:kernel
func unary(y, x []uint32, n, dt, op, xoff, s0, s1, s2, s3, s4, s5, t0, t1, t2, t3, t4, t5 uint32, a float32) {
	if n == 0 {
		return
	}
	per := perWord(dt)
	words := (n + per - 1) / per
	step := kernel.GroupSizeX() * kernel.GridX()
	r := rank6(s0, s1, s2, s3, s4)
	for w := kernel.GroupX()*kernel.GroupSizeX() + kernel.ThreadX(); w < words; w += step {
		if per == 1 {
			xa := xoff + offset6(w, r, s1, s2, s3, s4, s5, t0, t1, t2, t3, t4, t5)
			v := kernel.Float32frombits(bitsOf(x[wordOf(xa, dt)], dt, xa))
			y[w] = kernel.Float32bits(unaryValue(op, v, a))
		} else {
			var out uint32
			for j := uint32(0); j < 2; j++ {
				if i := 2*w + j; i < n {
					xa := xoff + offset6(i, r, s1, s2, s3, s4, s5, t0, t1, t2, t3, t4, t5)
					v := kernel.Float32frombits(bitsOf(x[wordOf(xa, dt)], dt, xa))
					out |= encode16(unaryValue(op, v, a), dt) << (16 * j)
				}
			}
			y[w] = out
		}
		if last(w, step, words) {
			break
		}
	}
}

// binaryValue is u op v for binary op code op.
func binaryValue(op uint32, u, v float32) float32 {
	if op == BinaryAdd {
		return u + v
	} else if op == BinarySub {
		return u - v
	} else if op == BinaryMul {
		return u * v
	}
	return u / v
}

// binary sets z[i] = x_view[i] op y_view[i] for the n elements of the output
// shape s0..s5 (contiguous z); the inputs are strided views of that shape
// (offsets xoff, yoff; strides xt*, yt*; a broadcast dimension has stride 0).
// All three are of dtype code dt; each thread writes whole words of z, as
// unary's.
//
//gpu:kernel
func binary(z, x, y []uint32, n, dt, op, s0, s1, s2, s3, s4, s5, xoff, xt0, xt1, xt2, xt3, xt4, xt5, yoff, yt0, yt1, yt2, yt3, yt4, yt5 uint32) {
	if n == 0 {
		return
	}
	per := perWord(dt)
	words := (n + per - 1) / per
	step := kernel.GroupSizeX() * kernel.GridX()
	r := rank6(s0, s1, s2, s3, s4)
	for w := kernel.GroupX()*kernel.GroupSizeX() + kernel.ThreadX(); w < words; w += step {
		if per == 1 {
			xa := xoff + offset6(w, r, s1, s2, s3, s4, s5, xt0, xt1, xt2, xt3, xt4, xt5)
			u := kernel.Float32frombits(bitsOf(x[wordOf(xa, dt)], dt, xa))
			ya := yoff + offset6(w, r, s1, s2, s3, s4, s5, yt0, yt1, yt2, yt3, yt4, yt5)
			v := kernel.Float32frombits(bitsOf(y[wordOf(ya, dt)], dt, ya))
			z[w] = kernel.Float32bits(binaryValue(op, u, v))
		} else {
			var out uint32
			for j := uint32(0); j < 2; j++ {
				if i := 2*w + j; i < n {
					xa := xoff + offset6(i, r, s1, s2, s3, s4, s5, xt0, xt1, xt2, xt3, xt4, xt5)
					u := kernel.Float32frombits(bitsOf(x[wordOf(xa, dt)], dt, xa))
					ya := yoff + offset6(i, r, s1, s2, s3, s4, s5, yt0, yt1, yt2, yt3, yt4, yt5)
					v := kernel.Float32frombits(bitsOf(y[wordOf(ya, dt)], dt, ya))
					out |= encode16(binaryValue(op, u, v), dt) << (16 * j)
				}
			}
			z[w] = out
		}
		if last(w, step, words) {
			break
		}
	}
}
