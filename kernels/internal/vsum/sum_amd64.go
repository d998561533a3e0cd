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
