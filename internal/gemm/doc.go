// Package gemm is the CPU backend's single-precision matrix multiply: C =
// alpha·A·B + beta·C over row-major matrices with leading dimensions, on one
// goroutine (the caller spreads a launch over the cores).
//
// It is laid out the way BLAS libraries are: the product is cut into blocks
// of kc steps of k, mc rows of A and nc columns of B (sized for the L2 and L3
// caches); each block of A and B is packed into contiguous panels of mr rows
// and nr columns (packing buffers come from a pool and are reused, not
// allocated per call), and a register-blocked micro-kernel multiplies one
// mr×kc panel of A by one kc×nr panel of B into an mr×nr tile of C held in
// registers. The micro-kernel is chosen once at start-up from what the CPU
// offers: AVX-512 (8×32) or AVX2 with FMA (6×16) in Go assembly on amd64,
// NEON (8×12, Advanced SIMD, which every arm64 CPU has, so nothing is
// detected) in Go assembly on arm64, and a pure-Go kernel (4×4) everywhere
// else. On amd64 the panels of B are copied in assembly too, reading rows
// ahead into the cache; elsewhere they are copied in Go.
//
// Region splits a matrix among the work groups of a launch so that each
// group multiplies a block large enough for the micro-kernel to run near the
// machine's peak, and every element belongs to exactly one group.
package gemm
