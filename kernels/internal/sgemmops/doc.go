// Package sgemmops is the one source of sgemm's variants (package kernels:
// OpSgemm128x64, OpSgemm64x64, OpSgemm32x32, OpSgemm64MMA, OpSgemmFrom): Go functions in the kernel
// language (package kernel), translated by `gpu kernels` into every dialect
// (sgemmops_kernels_gen.go). They compute what the built-in sgemm computes,
// with its parameters, in other tiles; kernels.ChooseSgemm picks among them
// and sgemm per launch. They are a Source of their own, apart from the
// built-in ops (kernels/internal/ops), so that compiling the built-ins does
// not compile them: a device whose library multiplies (cuBLASLt on CUDA), or
// a program that never multiplies, never pays for them.
package sgemmops

//go:generate go run github.com/anygpu/gpu/cmd/gpu kernels --name builtin_sgemm

// The tiling the variants share with the built-in sgemm (see its
// documentation in kernels/internal/ops): slices sgemmDepth deep, 128-row
// tiles made of two halves of 64 rows, eight tile rows taken side by side.
const (
	sgemmThreads = 256
	sgemmTile    = 128
	sgemmDepth   = 16
	sgemmQuads   = sgemmTile / 4 // Float4s across a staged 128-row slice of A
	sgemmHalf    = sgemmTile / 2 // a thread's second four rows are this far from its first
	sgemmGroup   = 8             // tile rows taken side by side, so that they share B in the L2 cache
)

// ceilDiv is ⌈x/d⌉ without overflowing near 2³².
func ceilDiv(x, d uint32) uint32 {
	return x/d + (x%d+d-1)/d
}

// swizzle is where Float4 q of a staged row of A lies at depth kk: q with
// its low three bits flipped by kk's, so that the transposed stores of eight
// consecutive depths at one q go to eight different sets of four banks.
func swizzle(q, kk uint32) uint32 {
	return q ^ kk%8
}
