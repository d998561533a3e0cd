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

// geluTanh is GELU's tanh form at v.
func geluTanh(v float32) float32 {
	return 0.5 * v * (1 + kernel.Tanh(0.7978845608028654*(v+0.044715*v*v*v)))
}

// geluErf is the exact GELU at v.
func geluErf(v float32) float32 { return 0.5 * v * (1 + erf(v*0.7071067811865476)) }

// silu is v·σ(v).
func silu(v float32) float32 { return v / (1 + kernel.Exp(min(-v, expArgMax))) }

// unaryValue applies unary op code op to v.
func unaryValue(op uint32, v, a float32) float32 {
	if op == UnaryScale {
		return a * v
	} else if op == UnaryReLU {
		return max(v, 0)
	} else if op == UnaryGELUTanh {
		return geluTanh(v)
	} else if op == UnaryGELUErf {
		return geluErf(v)
	} else if op == UnarySiLU {
		return silu(v)
	} else if op == UnaryExp {
		return kernel.Exp(v)
	}
	return kernel.Tanh(v)
}

// unary sets y[i] = f(x_view[i]) for the n elements of a strided view of x
// (offset xoff, sizes s0..s5, strides t0..t5); y is contiguous, of x's
// dtype code dt. a is the scale's factor. Each thread writes whole words of
// y (perWord elements); the bytes of y's last word past the n-th element are
// set to 0. The buffers are words (float32 only for Load4 and Store4: a
// 16-bit pair is moved as its bits, never computed with).
//
// A contiguous x whose start is on a 16-byte boundary (flatMode) goes 16
// bytes at a time, vectorSteps independent vectors per thread and step;
// the words past the last whole vector, and any other view, go one word at a
// time through offset6. Its variants fix dt (package tensor launches the
// one of x's dtype): each holds only its dtype's path, and the GELU ones
// (tanh form) only GELU's, the op of transformers' MLPs.
//
//gpu:kernel
//gpu:variant unaryF32 dt=DTFloat32
//gpu:variant unaryBF16 dt=DTBFloat16
//gpu:variant unaryF16 dt=DTFloat16
//gpu:variant unaryGELUF32 dt=DTFloat32 op=UnaryGELUTanh
//gpu:variant unaryGELUBF16 dt=DTBFloat16 op=UnaryGELUTanh
//gpu:variant unaryGELUF16 dt=DTFloat16 op=UnaryGELUTanh
func unary(y, x []float32, n, dt, op, xoff, s0, s1, s2, s3, s4, s5, t0, t1, t2, t3, t4, t5 uint32, a float32) {
	if n == 0 {
		return
	}
	per := perWord(dt)
	words := (n + per - 1) / per
	step := kernel.GroupSizeX() * kernel.GridX()
	first := kernel.GroupX()*kernel.GroupSizeX() + kernel.ThreadX()
	r := rank6(s0, s1, s2, s3, s4)
	head := uint32(0) // the words the vector loop wrote
	if flatMode(r, s5, t4, t5, xoff, per) == flatWhole {
		vecs := n / (4 * per)
		xv := xoff / (4 * per)
		for v := first; v < vecs; v += vectorSteps * step {
			var us [vectorSteps]kernel.Float4
			for k := uint32(0); k < vectorSteps; k++ {
				us[k] = kernel.Load4(x, xv+min(v+k*step, vecs-1)) // past the end: the last vector again
			}
			for k := uint32(0); k < vectorSteps; k++ {
				if vk := v + k*step; vk < vecs {
					kernel.Store4(y, vk, unary4(op, dt, us[k], a))
				}
			}
			if last(v, vectorSteps*step, vecs) {
				break
			}
		}
		head = 4 * vecs
	}
	for w := head + first; w < words; w += step {
		if per == 1 {
			xa := xoff + offset6(w, r, s1, s2, s3, s4, s5, t0, t1, t2, t3, t4, t5)
			y[w] = unaryValue(op, x[xa], a)
		} else {
			var out uint32
			for j := uint32(0); j < 2; j++ {
				if i := 2*w + j; i < n {
					xa := xoff + offset6(i, r, s1, s2, s3, s4, s5, t0, t1, t2, t3, t4, t5)
					v := kernel.Float32frombits(half16(kernel.Float32bits(x[xa/2]), dt, xa))
					out |= encode16(unaryValue(op, v, a), dt) << (16 * j)
				}
			}
			y[w] = kernel.Float32frombits(out)
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
// When each input is contiguous or a row repeated over the output's rows
// (flatMode), 16-byte aligned, the kernel goes 16 bytes at a time as
// unary's; the rest goes one word at a time through offset6. Its variants
// fix dt, as unary's.
//
//gpu:kernel
//gpu:variant binaryF32 dt=DTFloat32
//gpu:variant binaryBF16 dt=DTBFloat16
//gpu:variant binaryF16 dt=DTFloat16
func binary(z, x, y []float32, n, dt, op, s0, s1, s2, s3, s4, s5, xoff, xt0, xt1, xt2, xt3, xt4, xt5, yoff, yt0, yt1, yt2, yt3, yt4, yt5 uint32) {
	if n == 0 {
		return
	}
	per := perWord(dt)
	words := (n + per - 1) / per
	step := kernel.GroupSizeX() * kernel.GridX()
	first := kernel.GroupX()*kernel.GroupSizeX() + kernel.ThreadX()
	r := rank6(s0, s1, s2, s3, s4)
	head := uint32(0) // the words the vector loop wrote
	xm, ym := flatMode(r, s5, xt4, xt5, xoff, per), flatMode(r, s5, yt4, yt5, yoff, per)
	if xm != flatNone && ym != flatNone {
		vecs := n / (4 * per)
		rowVecs := s5 / (4 * per) // a row's vectors, when an input repeats a row
		xv, yv := xoff/(4*per), yoff/(4*per)
		for v := first; v < vecs; v += vectorSteps * step {
			var us, ws [vectorSteps]kernel.Float4
			for k := uint32(0); k < vectorSteps; k++ {
				vk := min(v+k*step, vecs-1) // past the end: the last vector again
				us[k] = kernel.Load4(x, xv+flatVector(xm, vk, rowVecs))
				ws[k] = kernel.Load4(y, yv+flatVector(ym, vk, rowVecs))
			}
			for k := uint32(0); k < vectorSteps; k++ {
				if vk := v + k*step; vk < vecs {
					kernel.Store4(z, vk, binary4(op, dt, us[k], ws[k]))
				}
			}
			if last(v, vectorSteps*step, vecs) {
				break
			}
		}
		head = 4 * vecs
	}
	for w := head + first; w < words; w += step {
		if per == 1 {
			xa := xoff + offset6(w, r, s1, s2, s3, s4, s5, xt0, xt1, xt2, xt3, xt4, xt5)
			u := x[xa]
			ya := yoff + offset6(w, r, s1, s2, s3, s4, s5, yt0, yt1, yt2, yt3, yt4, yt5)
			v := y[ya]
			z[w] = binaryValue(op, u, v)
		} else {
			var out uint32
			for j := uint32(0); j < 2; j++ {
				if i := 2*w + j; i < n {
					xa := xoff + offset6(i, r, s1, s2, s3, s4, s5, xt0, xt1, xt2, xt3, xt4, xt5)
					u := kernel.Float32frombits(half16(kernel.Float32bits(x[xa/2]), dt, xa))
					ya := yoff + offset6(i, r, s1, s2, s3, s4, s5, yt0, yt1, yt2, yt3, yt4, yt5)
					v := kernel.Float32frombits(half16(kernel.Float32bits(y[ya/2]), dt, ya))
					out |= encode16(binaryValue(op, u, v), dt) << (16 * j)
				}
			}
			z[w] = kernel.Float32frombits(out)
		}
		if last(w, step, words) {
			break
		}
	}
}
