package kernelcorpus

import "github.com/anygpu/gpu/kernel"

//gpu:kernel
func IntOverflow(out []int32, in []int32, n uint32) {
	i := kernel.GlobalX()
	if i < n {
		a := in[i]
		out[4*i] = a * 1103515245
		out[4*i+1] = a + 2147483647
		out[4*i+2] = -a - 1
		out[4*i+3] = a * a * a
	}
}

//gpu:kernel
func UintOverflow(out []uint32, in []uint32, n uint32) {
	i := kernel.GlobalX()
	if i < n {
		a := in[i]
		out[3*i] = a*2654435761 + 12345
		out[3*i+1] = a - 7
		out[3*i+2] = ^a
	}
}

//gpu:kernel
func DivRem(out []int32, a, b []int32, n uint32) {
	i := kernel.GlobalX()
	if i < n {
		out[2*i] = a[i] / b[i]
		out[2*i+1] = a[i] % b[i]
	}
}

//gpu:kernel
func DivRemU(out []uint32, a, b []uint32, n uint32) {
	i := kernel.GlobalX()
	if i < n {
		out[2*i] = a[i] / b[i]
		out[2*i+1] = a[i] % b[i]
	}
}

// minInt32 is the most negative int32.
const minInt32 = -1 << 31

// DivRemConst divides by constants: those by which every dialect's / and %
// are Go's, and -1 (the most negative value / -1 wraps) and the most
// negative value.
//
//gpu:kernel
func DivRemConst(out []int32, outu []uint32, a []int32, n uint32) {
	i := kernel.GlobalX()
	if i < n {
		x := a[i]
		out[8*i] = x / 7
		out[8*i+1] = x % 7
		out[8*i+2] = x / -7
		out[8*i+3] = x % -7
		out[8*i+4] = x / -1
		out[8*i+5] = x % -1
		out[8*i+6] = x / minInt32
		out[8*i+7] = (x + 3) % minInt32
		u := uint32(x)
		outu[4*i] = u / 7
		outu[4*i+1] = u % 7
		outu[4*i+2] = u / 0x80000001
		outu[4*i+3] = u % 0xffffffff
	}
}

//gpu:kernel
func Shifts(out []int32, outu []uint32, a []int32, s []uint32, n uint32) {
	i := kernel.GlobalX()
	if i < n {
		out[2*i] = a[i] << s[i]
		out[2*i+1] = a[i] >> s[i]
		u := uint32(a[i])
		outu[2*i] = u << s[i]
		outu[2*i+1] = u >> s[i]
	}
}

//gpu:kernel
func Bitwise(out []uint32, a, b []uint32, n uint32) {
	i := kernel.GlobalX()
	if i < n {
		x, y := a[i], b[i]
		out[5*i] = x & y
		out[5*i+1] = x | y
		out[5*i+2] = x ^ y
		out[5*i+3] = x &^ y
		out[5*i+4] = (x << 3) | (y >> 29)
	}
}

//gpu:kernel
func Conversions(outi []int32, outu []uint32, outf []float32, in []float32, n uint32) {
	i := kernel.GlobalX()
	if i < n {
		f := in[i]
		outi[i] = int32(f)
		outu[i] = uint32(kernel.Abs(f))
		outf[2*i] = float32(int32(f)) + float32(uint32(i))
		outf[2*i+1] = float32(int32(i) - 5)
	}
}

//gpu:kernel
func MinMaxClampInt(out []int32, a, b []int32, n uint32) {
	i := kernel.GlobalX()
	if i < n {
		out[4*i] = min(a[i], b[i])
		out[4*i+1] = max(a[i], b[i])
		out[4*i+2] = kernel.Clamp(a[i], -100, 100)
		out[4*i+3] = kernel.Abs(b[i])
	}
}

//gpu:kernel
func BitCasts(outu []uint32, outf []float32, in []float32, n uint32) {
	i := kernel.GlobalX()
	if i < n {
		b := kernel.Float32bits(in[i])
		outu[i] = b
		outf[i] = kernel.Float32frombits(b ^ 0x80000000)
	}
}
