package gemm

// cpuid executes the CPUID instruction for leaf and subleaf.
func cpuid(leaf, subleaf uint32) (eax, ebx, ecx, edx uint32)

// xgetbv0 reads XCR0, the register state the operating system saves.
func xgetbv0() (eax, edx uint32)

// x86Features is what the micro-kernels need from the CPU and the OS.
type x86Features struct {
	avx2FMA bool // AVX2 and FMA3, with YMM state saved by the OS
	avx512F bool // AVX-512 Foundation, with ZMM and mask state saved by the OS
}

// detectX86 reads the features from CPUID and XCR0 (the standard library's
// internal/cpu is not importable, and golang.org/x/sys is not a dependency
// of the module).
func detectX86() x86Features {
	maxLeaf, _, _, _ := cpuid(0, 0)
	if maxLeaf < 7 {
		return x86Features{}
	}
	_, _, ecx1, _ := cpuid(1, 0)
	const (
		fmaBit     = 1 << 12
		osxsaveBit = 1 << 27
		avxBit     = 1 << 28
	)
	if ecx1&osxsaveBit == 0 || ecx1&avxBit == 0 {
		return x86Features{}
	}
	xcr0, _ := xgetbv0()
	const (
		sseAVXState = 1<<1 | 1<<2        // XMM and YMM upper halves
		avx512State = 1<<5 | 1<<6 | 1<<7 // opmask, ZMM0-15 upper halves, ZMM16-31
	)
	if xcr0&sseAVXState != sseAVXState {
		return x86Features{}
	}
	_, ebx7, _, _ := cpuid(7, 0)
	const (
		avx2Bit    = 1 << 5
		avx512FBit = 1 << 16
	)
	f := x86Features{avx2FMA: ebx7&avx2Bit != 0 && ecx1&fmaBit != 0}
	f.avx512F = f.avx2FMA && ebx7&avx512FBit != 0 && xcr0&avx512State == avx512State
	return f
}
