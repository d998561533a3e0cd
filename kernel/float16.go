package kernel

import "github.com/anygpu/gpu/kernel/internal/kmath"

// Float16 is an IEEE 754 binary16 number, held as its bits. It is a buffer
// element type ([]kernel.Float16): a kernel converts an element to float32
// as it loads it and rounds a float32 to Float16 as it stores it, and does
// its arithmetic in float32:
//
//	//gpu:kernel
//	func Scale(y, x []kernel.Float16, a float32, n uint32) {
//		if i := kernel.GlobalX(); i < n {
//			y[i] = kernel.ToFloat16(a * kernel.ToFloat32(x[i]))
//		}
//	}
//
// A Float16 value lives only in a buffer: a kernel may not hold one in a
// local, an array or a parameter, do arithmetic on it, compare it, convert it
// with a Go conversion (which would take its bits as an integer) or give it a
// constant. Elements are two bytes; keep the length of a []Float16 even,
// since the WGSL, SPIR-V, GLSL and MSL dialects address the buffer in 4-byte
// words (a store there is an atomic update of its word, so neighbouring
// elements written by different threads never race). The CUDA dialect
// stores 16-bit elements directly; the CPU runs the same conversions as Go.
type Float16 uint16

// ToFloat16 rounds x to the nearest Float16, ties to even: values that round
// beyond 65504 become infinities, values of magnitude 2**-25 or less become
// zeros of x's sign (subnormal halves are kept), and NaN stays NaN.
func ToFloat16(x float32) Float16 { return Float16(kmath.HalfFromFloat32(x)) }

// ToFloat32 is h as a float32 (exact: every Float16 is a float32).
func ToFloat32(h Float16) float32 { return kmath.Float32FromHalf(uint16(h)) }
