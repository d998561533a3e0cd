package kernel

import (
	"math"

	"github.com/anygpu/gpu/kernel/internal/kmath"
)

// MMA is a matrix unit's multiply-accumulate on fragments held in
// registers: C += A·B, where A is 16×16, B is 16×8 and C is 16×8, each
// spread over the 32 threads of the unit as PTX's mma.m16n8k16 spreads them.
//
// A matrix unit is 32 consecutive threads of the group by ThreadIndex: unit
// ThreadIndex()/32, lane ThreadIndex()%32. With g = lane/4 and t = lane%4,
// a thread holds
//
//	a[0] = A[g][2t..2t+1]    a[1] = A[g+8][2t..2t+1]
//	a[2] = A[g][2t+8..2t+9]  a[3] = A[g+8][2t+8..2t+9]
//	b[0] = B[2t..2t+1][g]    b[1] = B[2t+8..2t+9][g]
//	c[0] = C[g][2t]   c[1] = C[g][2t+1]   c[2] = C[g+8][2t]   c[3] = C[g+8][2t+1]
//
// Each word of a and b holds two 16-bit values of precision p (bfloat16 or
// float16 bits, as PackHalves makes them), the lower index (the smaller
// column of A, the smaller row of B) in the low 16 bits. p is
// PrecisionBFloat16 or PrecisionFloat16, a constant. Each C[i][j] becomes
// C[i][j] plus the sum over k of A[i][k]·B[k][j]: the products are exact
// (unless they leave float32's range), the sums are in float32 in an
// order that is the device's (the tensor cores' on CUDA; k order, starting
// from C, elsewhere). Since C's layout is A's, a kernel can scale or
// exponentiate C's values in its registers (row g in c[0] and c[1], row g+8
// in c[2] and c[3]; the four threads of a row are the lanes 4g..4g+3, which
// SubgroupShuffleXor with 1 and 2 combines where SubgroupSize() is 4 or
// more, and a shared array elsewhere: the portable dialects have subgroups
// of one thread) and reuse them as the A operand of another MMA:
// PackHalves(c[0], c[1], p) and PackHalves(c[2], c[3], p) are the a[0] and
// a[1] of the 16×16 A whose columns 0..7 are C's, and those of a second C
// (columns 8..15) its a[2] and a[3].
//
// The rules, which the translator checks (with file:line:col errors):
//
//   - every thread of the group calls it, in control flow that is the same
//     for the whole group (the rule of Barrier), in the kernel, not in a
//     helper;
//   - the kernel declares //gpu:maxthreads N with N a positive multiple of
//     32. It must be launched with a group of at most N threads whose size
//     is a multiple of 32 (the caller's to ensure: a partial unit computes
//     garbage);
//   - c, a and b are the addresses of local arrays of exactly the types
//     *[4]float32, *[4]uint32 and *[2]uint32, or of elements of local
//     arrays of such arrays (&acc[j] of var acc [16][4]float32, &q[k] of
//     var q [8][4]uint32), whose indices have no effects. Indexed by the
//     counters of loops with constant bounds, which the translator
//     unrolls, they stay in registers;
//   - p is a constant.
//
// It is a group-wide operation, but what it implies for the rest of the
// group differs: CUDA (sm_80 and newer: mma.sync on the tensor cores;
// older devices exchange the operands with __shfl_sync) synchronizes only
// the 32 threads of the unit and implies no barrier, while the other
// dialects (Vulkan, OpenGL, WebGPU, Metal and the CPU) store the fragments
// in a shared array the translator adds to the kernel (768 bytes per 32
// threads of N, one array for all of a kernel's MMAs) and run a Barrier
// before and after reading it. A kernel must rely on neither: it
// synchronizes its shared arrays with Barrier itself.
//
// Run as plain Go outside a translated kernel, it cannot see the other
// threads of its unit, and panics.
func MMA(c *[4]float32, a *[4]uint32, b *[2]uint32, p Precision) {
	panic("kernel.MMA: a matrix unit's operation needs the 32 threads of its unit; it runs only in a translated kernel")
}

// PackHalves rounds lo and hi to precision p (PrecisionBFloat16 or
// PrecisionFloat16, a constant in a kernel) to nearest, ties to even, and
// packs their 16-bit patterns into a word, lo in the low 16 bits: an operand
// word of MMA. Rounding is as ToFloat16 does for float16 (subnormal halves
// kept, overflow to infinity) and the same for bfloat16, float32's top 16
// bits rounded (an overflow to infinity; float32's subnormals kept); a NaN
// stays a quiet NaN of its sign with its top payload bits (on CUDA's sm_80
// and newer, whose packed conversion may write the canonical NaN, a NaN).
// On CUDA it is cvt.rn.bf16x2.f32 or cvt.rn.f16x2.f32 (sm_80 and newer);
// elsewhere integer rounding. Run as plain Go, with a p that is neither, it
// panics.
func PackHalves(lo, hi float32, p Precision) uint32 {
	switch p {
	case PrecisionBFloat16:
		return uint32(bfloat16Bits(lo)) | uint32(bfloat16Bits(hi))<<16
	case PrecisionFloat16:
		return uint32(kmath.HalfFromFloat32(lo)) | uint32(kmath.HalfFromFloat32(hi))<<16
	}
	panic("kernel.PackHalves: the precision must be PrecisionBFloat16 or PrecisionFloat16")
}

// bfloat16Bits rounds x to the nearest bfloat16 (ties to even) and returns
// its bits; a NaN becomes a quiet NaN with x's sign and its top payload
// bits.
func bfloat16Bits(x float32) uint16 { return uint16(math.Float32bits(kmath.RoundBFloat16(x)) >> 16) }
