package kernel

import "github.com/anygpu/gpu/kernel/internal/kmath"

// Precision is the precision of a MatMulAdd's products.
type Precision uint8

// The precisions of MatMulAdd. Every one accumulates in float32.
const (
	// PrecisionFloat32 multiplies the float32 operands as they are: each
	// product and each sum rounded to float32 (no TF32 anywhere).
	PrecisionFloat32 Precision = Precision(kmath.PrecisionFloat32)
	// PrecisionBFloat16 rounds each operand to the nearest bfloat16 (ties to
	// even) first; the products of those are exact in float32. CUDA runs it
	// on the tensor cores (sm_80 and newer).
	PrecisionBFloat16 Precision = Precision(kmath.PrecisionBFloat16)
	// PrecisionFloat16 rounds each operand to the nearest float16 (ties to
	// even, subnormal halves kept) first; the products are exact in float32.
	// CUDA runs it on the tensor cores (sm_80 and newer).
	PrecisionFloat16 Precision = Precision(kmath.PrecisionFloat16)
)

// MatMul is the shape of a MatMulAdd, written as a literal whose fields are
// constants: kernel.MatMul{M: 16, N: 32, K: 64, TransposeB: true,
// Precision: kernel.PrecisionBFloat16}.
type MatMul struct {
	// M, N and K are the tile's dimensions: C is M×N, A is M×K, B is K×N.
	// Each is a positive multiple of 16.
	M, N, K int
	// LDA, LDB and LDC are the row strides of A, B and C in elements; 0
	// means the row's length (K, N or, for a transposed B, K, and N). A
	// stride longer than the row pads it: on CUDA's tensor cores, strides
	// of 8 more than a multiple of 32 (136 for 128 columns) for A, C and a
	// transposed B, and 4 more for a B that is not transposed, keep the
	// loads free of shared-memory bank conflicts.
	LDA, LDB, LDC int
	// TransposeB says that b holds Bᵀ: N rows of K elements (keys, for
	// Q·Kᵀ in attention).
	TransposeB bool
	// Precision is how the operands are rounded.
	Precision Precision
}

// MatMulAdd is a group-wide tile multiply-accumulate on shared arrays:
// C += A·B, where c, a and b are kernel.Shared arrays of float32
// (one-dimensional: [N]float32) long enough for shape s, which is a literal
// of constants. C must not be a or b.
//
// Every thread of the group calls it, in control flow that is the same for
// the whole group (the rule of Barrier, which the translator checks the same
// way), and not in a helper. It implies a Barrier before and after: it reads
// what the group wrote to a, b and c before the call, and on return c holds
// the result in every thread.
//
// Each C[i][j] is C[i][j] plus the sum over k of A[i][k]·B[k][j], with the
// operands rounded to s.Precision, the products exact (16-bit precisions)
// or rounded to float32 (or fused into the sum, where the device fuses a
// multiply-add), and the sum in float32 in an order that is the device's:
// CUDA sums fragments of 16 (the tensor cores' order, for 16-bit
// precisions), the other dialects sum in k order, and the CPU sums the
// products from zero in k order, in blocks of 256 steps of k, with fused
// multiply-adds, and adds each block's sum to C. CUDA runs the 16-bit
// precisions on the tensor cores (mma.sync, sm_80 and newer; a scalar loop
// on older devices); Vulkan, OpenGL, WebGPU and Metal run a loop in which
// each thread computes elements of C from shared memory; the CPU runs the
// tile once per group through its packed, register-blocked matrix multiply
// (the one the CPU backend's hand-written sgemm used: AVX-512 or AVX2 on
// amd64, NEON on arm64), or, on a CPU without those, a loop that sums in k
// order with each product rounded.
//
// Run as plain Go outside a translated kernel, it computes the product; a
// call the translator would reject (arrays too short, a shape that is not
// one) panics there, as an index out of range does.
func MatMulAdd[C, A, B any](c *C, a *A, b *B, s MatMul) {
	ts := kmath.TileShape{M: s.M, N: s.N, K: s.K, LDA: s.LDA, LDB: s.LDB, LDC: s.LDC,
		TransposeB: s.TransposeB, Precision: kmath.Precision(s.Precision)}
	ts = ts.WithDefaults()
	cs, as, bs := kmath.Floats(c), kmath.Floats(a), kmath.Floats(b)
	if cs == nil || as == nil || bs == nil {
		panic("kernel.MatMulAdd: c, a and b must be arrays of float32")
	}
	if err := kmath.MatMulAdd(cs, as, bs, ts); err != nil {
		panic("kernel." + err.Error())
	}
}

// MatMulAddFrom is MatMulAdd with A and B read straight from buffers: C +=
// A·B, where c is a kernel.Shared array of float32 as for MatMulAdd, A's
// element (i, k) is a[aOff + i·lda + k], and B's element (k, j) is
// b[bOff + k·ldb + j] (b[bOff + j·ldb + k] when s.TransposeB). s is a
// literal of constants as for MatMulAdd, with LDA and LDB left out (zero):
// lda and ldb give the strides, at least the rows' lengths (K for A; N, or
// K when transposed, for B). a and b name []float32 parameters of the
// kernel; aOff, lda, bOff and ldb may be any uint32 expressions that are
// the same in every thread of the group (parameters, constants, group
// indices and sizes, and locals computed from those), which the translator
// checks: the group multiplies once. A part of A or B outside its buffer is
// the kernel's error, as indexing out of range is (the CPU fails the
// launch; a GPU reads what it reads).
//
// Every thread of the group calls it, in control flow that is the same for
// the whole group, and not in a helper, as for MatMulAdd, and it implies a
// Barrier before and after. Its sums are MatMulAdd's, in the same order on
// each device. Reading the operands from the buffers, it spares a kernel the
// staging of A and B in shared memory: on the CPU, where the group's
// product runs once through the packed matrix multiply, the tile of C is
// the only shared memory the product takes.
//
// Run as plain Go outside a translated kernel, it computes the product; a
// call the translator would reject, or one that reads outside a or b,
// panics there.
func MatMulAddFrom[C any](c *C, a []float32, aOff, lda uint32, b []float32, bOff, ldb uint32, s MatMul) {
	ts := kmath.TileShape{M: s.M, N: s.N, K: s.K, LDA: int(lda), LDB: int(ldb), LDC: s.LDC,
		TransposeB: s.TransposeB, Precision: kmath.Precision(s.Precision)}
	if s.LDA != 0 || s.LDB != 0 {
		panic("kernel.MatMulAddFrom: give the strides of a and b as lda and ldb, not in the shape")
	}
	if s.LDC == 0 {
		ts.LDC = s.N
	}
	cs := kmath.Floats(c)
	if cs == nil {
		panic("kernel.MatMulAddFrom: c must be an array of float32")
	}
	if uint64(aOff) > uint64(len(a)) || uint64(bOff) > uint64(len(b)) {
		panic("kernel.MatMulAddFrom: an offset lies past the end of its buffer")
	}
	if err := kmath.MatMulAdd(cs, a[aOff:], b[bOff:], ts); err != nil {
		panic("kernel.MatMulAddFrom: " + err.Error())
	}
}
