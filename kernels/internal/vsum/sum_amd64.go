package vsum

// cpuid executes the CPUID instruction for leaf and subleaf.
func cpuid(leaf, subleaf uint32) (eax, ebx, ecx, edx uint32)

// xgetbv0 reads XCR0, the register state the operating system saves.
func xgetbv0() (eax, edx uint32)

// sum4AVX2 returns the float32 sum of n elements from each of p0..p3
// (n a multiple of 16).
//
//go:noescape
func sum4AVX2(p0, p1, p2, p3 *float32, n int) float32

// dot4AVX2 returns the float32 sum of x·y over n elements of each of four
// pairs (n a multiple of 16), with fused multiply-adds.
//
//go:noescape
func dot4AVX2(x0, x1, x2, x3, y0, y1, y2, y3 *float32, n int) float32

// hasAVX2FMA reports whether the CPU has AVX2 and FMA3 and the operating
// system saves the YMM registers (the same test as package gemm's).
func hasAVX2FMA() bool {
	maxLeaf, _, _, _ := cpuid(0, 0)
	if maxLeaf < 7 {
		return false
	}
	_, _, ecx1, _ := cpuid(1, 0)
	const fmaBit, osxsaveBit, avxBit = 1 << 12, 1 << 27, 1 << 28
	if ecx1&osxsaveBit == 0 || ecx1&avxBit == 0 || ecx1&fmaBit == 0 {
		return false
	}
	if xcr0, _ := xgetbv0(); xcr0&(1<<1|1<<2) != 1<<1|1<<2 {
		return false
	}
	_, ebx7, _, _ := cpuid(7, 0)
	return ebx7&(1<<5) != 0
}

var avx2 = hasAVX2FMA()

// The loops in use: the assembly ones where the CPU has AVX2 and FMA.
var (
	sum4 = sum4Generic
	dot4 = dot4Generic
)

func init() {
	if avx2 {
		sum4, dot4 = sum4Asm, dot4Asm
	}
}

// Arch names the loops in use: "avx2" or "generic" (pure Go).
func Arch() string {
	if avx2 {
		return "avx2"
	}
	return "generic"
}

// sum4Asm runs sum4AVX2 over the runs' leading multiple of 16 elements and
// adds the rest in Go.
func sum4Asm(x0, x1, x2, x3 []float32) float32 {
	m := len(x0)
	x1, x2, x3 = x1[:m], x2[:m], x3[:m]
	v := m &^ 15
	var s float32
	if v > 0 {
		s = sum4AVX2(&x0[0], &x1[0], &x2[0], &x3[0], v)
	}
	if v < m {
		s += sum4Generic(x0[v:], x1[v:], x2[v:], x3[v:])
	}
	return s
}

// dot4Asm is sum4Asm's counterpart for dot4AVX2.
func dot4Asm(x0, x1, x2, x3, y0, y1, y2, y3 []float32) float32 {
	m := len(x0)
	x1, x2, x3 = x1[:m], x2[:m], x3[:m]
	y0, y1, y2, y3 = y0[:m], y1[:m], y2[:m], y3[:m]
	v := m &^ 15
	var s float32
	if v > 0 {
		s = dot4AVX2(&x0[0], &x1[0], &x2[0], &x3[0], &y0[0], &y1[0], &y2[0], &y3[0], v)
	}
	if v < m {
		s += dot4Generic(x0[v:], x1[v:], x2[v:], x3[v:], y0[v:], y1[v:], y2[v:], y3[v:])
	}
	return s
}

// prefetch4 asks for the cache lines of n floats from each of p0..p3 (into
// L2).
//
//go:noescape
func prefetch4(p0, p1, p2, p3 *float32, n int)

// Prefetch4 asks the memory system for the cache lines of four runs of the
// length of x0 (x1, x2 and x3 at least as long) that a later Sum4 or Dot4
// will read, into the core's L2 cache, so that the misses of runs too short
// for the hardware prefetchers overlap the work before them.
func Prefetch4(x0, x1, x2, x3 []float32) {
	m := len(x0)
	if m == 0 {
		return
	}
	x1, x2, x3 = x1[:m], x2[:m], x3[:m]
	prefetch4(&x0[0], &x1[0], &x2[0], &x3[0], m)
}
