package vsum

// cpuid executes the CPUID instruction for leaf and subleaf.
func cpuid(leaf, subleaf uint32) (eax, ebx, ecx, edx uint32)

// xgetbv0 reads XCR0, the register state the operating system saves.
func xgetbv0() (eax, edx uint32)

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
	sum4       = sum4Generic
	dot4       = dot4Generic
	sumChunks4 = sumChunks4By4
	dotChunks4 = dotChunks4By4
)

func init() {
	if avx2 {
		sum4, dot4 = sum4Asm, dot4Asm
		sumChunks4, dotChunks4 = sumChunks4Asm, dotChunks4Asm
	}
}

// Arch names the loops in use: "avx2" or "generic" (pure Go).
func Arch() string {
	if avx2 {
		return "avx2"
	}
	return "generic"
}

// sumChunks4Vector sets out[i], for i below m, to the float32 sum of the n
// floats at each of p0..p3 + i·stride (n a multiple of 16, m at least 1),
// with AVX2 (sum_amd64.s).
//
//go:noescape
func sumChunks4Vector(p0, p1, p2, p3 *float32, stride, n, m int, out *float32)

// dotChunks4Vector is sumChunks4Vector for x[i]·y[i], with FMA.
//
//go:noescape
func dotChunks4Vector(x0, x1, x2, x3, y0, y1, y2, y3 *float32, stride, n, m int, out *float32)

// sumChunks4Asm is sumChunks4By4 with each chunk's leading multiple of 16
// elements in sumChunks4Vector and the rest in Go.
func sumChunks4Asm(x0, x1, x2, x3 []float32, b int, out []float32) {
	v := b &^ 15
	if v == 0 || len(out) == 0 {
		sumChunks4By4(x0, x1, x2, x3, b, out)
		return
	}
	m := len(out) * b
	x0, x1, x2, x3 = x0[:m], x1[:m], x2[:m], x3[:m]
	sumChunks4Vector(&x0[0], &x1[0], &x2[0], &x3[0], b, v, len(out), &out[0])
	if v < b {
		for i := range out {
			lo, hi := i*b+v, (i+1)*b
			out[i] += sum4Generic(x0[lo:hi], x1[lo:hi], x2[lo:hi], x3[lo:hi])
		}
	}
}

// dotChunks4Asm is sumChunks4Asm for x[i]·y[i], by dotChunks4Vector.
func dotChunks4Asm(x0, x1, x2, x3, y0, y1, y2, y3 []float32, b int, out []float32) {
	v := b &^ 15
	if v == 0 || len(out) == 0 {
		dotChunks4By4(x0, x1, x2, x3, y0, y1, y2, y3, b, out)
		return
	}
	m := len(out) * b
	x0, x1, x2, x3 = x0[:m], x1[:m], x2[:m], x3[:m]
	y0, y1, y2, y3 = y0[:m], y1[:m], y2[:m], y3[:m]
	dotChunks4Vector(&x0[0], &x1[0], &x2[0], &x3[0], &y0[0], &y1[0], &y2[0], &y3[0], b, v, len(out), &out[0])
	if v < b {
		for i := range out {
			lo, hi := i*b+v, (i+1)*b
			out[i] += dot4Generic(x0[lo:hi], x1[lo:hi], x2[lo:hi], x3[lo:hi], y0[lo:hi], y1[lo:hi], y2[lo:hi], y3[lo:hi])
		}
	}
}
