package kernelcorpus

import "github.com/anygpu/gpu/kernel"

//gpu:kernel
func MathUnary(out []float32, in []float32, n uint32) {
	i := kernel.GlobalX()
	if i < n {
		x := in[i]
		ax := kernel.Abs(x) + 0.5
		o := 16 * i
		out[o+0] = kernel.Sqrt(ax)
		out[o+1] = kernel.Rsqrt(ax)
		out[o+2] = kernel.Exp(x)
		out[o+3] = kernel.Exp2(x)
		out[o+4] = kernel.Log(ax)
		out[o+5] = kernel.Log2(ax)
		out[o+6] = kernel.Sin(x)
		out[o+7] = kernel.Cos(x)
		out[o+8] = kernel.Tanh(x)
		out[o+9] = kernel.Pow(ax, 1.5)
		out[o+10] = kernel.Floor(x)
		out[o+11] = kernel.Ceil(x)
		out[o+12] = kernel.Trunc(x)
		out[o+13] = kernel.Fma(x, x, -1)
		out[o+14] = kernel.Abs(x)
		out[o+15] = kernel.Clamp(x, -1, 1)
	}
}

//gpu:kernel
func FloatMinMax(out []float32, a, b []float32, n uint32) {
	i := kernel.GlobalX()
	if i < n {
		out[2*i] = min(a[i], b[i])
		out[2*i+1] = max(a[i], b[i])
	}
}

// NaNInf classifies its inputs and passes NaN and Inf through arithmetic.
// It tells NaN by its bits, not by x != x, and compares only numbers with
// the infinities: Vulkan, OpenGL and WebGPU compilers may assume that
// arithmetic and comparisons meet no NaN (x != x false, x*0 and x-x 0), and
// NVIDIA's flush subnormal inputs to zero (a subnormal x == 0 is true).
//
//gpu:kernel
func NaNInf(out []float32, flags []uint32, in []float32, n uint32) {
	i := kernel.GlobalX()
	if i < n {
		x := in[i]
		b := kernel.Float32bits(x)
		var f uint32
		if b&0x7fffffff > 0x7f800000 {
			f = 1
		} else {
			if x > 3.4e38 {
				f += 2
			}
			if x < -3.4e38 {
				f += 4
			}
			if b&0x7f800000 == 0 { // zero or subnormal: a GPU may flush subnormals, so not x == 0
				f += 8
			}
			if x <= 1 {
				f += 16
			}
		}
		flags[i] = f
		out[3*i] = x * 2
		out[3*i+1] = 1 / x
		out[3*i+2] = x + 1
	}
}

//gpu:kernel
func Polynomial(y []float32, x []float32, n uint32) {
	i := kernel.GlobalX()
	if i < n {
		y[i] = horner(x[i])
	}
}

// horner evaluates a fixed polynomial.
func horner(x float32) float32 {
	const c0, c1, c2, c3 = 0.5, -1.25, 2, 0.125
	return ((c3*x+c2)*x+c1)*x + c0
}

//gpu:kernel
func Helpers(y []float32, x []float32, n uint32, k float32) {
	i := kernel.GlobalX()
	if i < n {
		y[i] = gelu(x[i]) + scaleAdd(x[i], k, 1)
	}
}

func gelu(x float32) float32 {
	return 0.5 * x * (1 + kernel.Tanh(0.7978845608*(x+0.044715*x*x*x)))
}

func scaleAdd(x, k, c float32) float32 {
	if x < 0 {
		return c
	}
	return k*x + c
}
