package kernelcorpus

import (
	"math"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/kernel"
)

// The MMA cases' sizes: units of 32 threads, two per group of 64.
const (
	mmaUnits = 4
	mmaSteps = 3
)

// mmaWords is n words of two values in [-1, 1) each, rounded to p and
// packed by kernel.PackHalves, seeded.
func mmaWords(n int, seed uint64, p kernel.Precision) []uint32 {
	xs := randF32(2*n, seed, -1, 1)
	out := make([]uint32, n)
	for i := range out {
		out[i] = kernel.PackHalves(xs[2*i], xs[2*i+1], p)
	}
	return out
}

// withoutNaN is xs without its NaNs, whose bits CUDA's conversions may
// canonicalize (the other values' packing is exact everywhere), padded to
// an even length.
func withoutNaN(xs []float32) []float32 {
	out := make([]float32, 0, len(xs)+1)
	for _, x := range xs {
		if !math.IsNaN(float64(x)) {
			out = append(out, x)
		}
	}
	if len(out)%2 == 1 {
		out = append(out, 0.5)
	}
	return out
}

// mmaCases are the cases of the MMA kernels (mma.go).
func mmaCases() []Case {
	words := mmaUnits * mmaSteps * 128
	var cases []Case
	for _, p := range []struct {
		name string
		prec kernel.Precision
		seed uint64
	}{{"bf16", kernel.PrecisionBFloat16, 80}, {"f16", kernel.PrecisionFloat16, 84}} {
		cases = append(cases, Case{Name: "mma_chain_" + p.name, Kernel: "MMAChain", Grid: gpu.D1(mmaUnits / 2), Block: gpu.D1(64),
			Args: []Arg{bF32(randF32(mmaUnits*256, p.seed, -1, 1)), bU32(mmaWords(words, p.seed+1, p.prec)),
				bU32(mmaWords(words, p.seed+2, p.prec)), sU32(mmaSteps), sU32(uint32(p.prec))},
			ULP: 64, Abs: 1e-4})
	}
	// One group of 32 threads, then groups of 64.
	cases = append(cases,
		Case{Name: "mma_reuse_one_unit", Kernel: "MMAReuse", Grid: gpu.D1(1), Block: gpu.D1(32),
			Args: []Arg{bF32(zerosF32(128)), bU32(mmaWords(256, 90, kernel.PrecisionBFloat16)), bU32(mmaWords(256, 91, kernel.PrecisionBFloat16))},
			ULP:  64, Abs: 1e-3},
		Case{Name: "mma_reuse", Kernel: "MMAReuse", Grid: gpu.D1(mmaUnits / 2), Block: gpu.D1(64),
			Args: []Arg{bF32(zerosF32(mmaUnits * 128)), bU32(mmaWords(mmaUnits*256, 92, kernel.PrecisionBFloat16)),
				bU32(mmaWords(mmaUnits*256, 93, kernel.PrecisionBFloat16))},
			ULP: 64, Abs: 1e-3})
	cases = append(cases, Case{Name: "subgroup_mma_row_max", Kernel: "SubgroupMMARowMax", Grid: gpu.D1(mmaUnits / 2), Block: gpu.D1(64),
		Args: []Arg{bF32(zerosF32(mmaUnits * 16)), bU32(mmaWords(mmaUnits*128, 96, kernel.PrecisionBFloat16)),
			bU32(mmaWords(mmaUnits*128, 97, kernel.PrecisionBFloat16))},
		ULP: 64, Abs: 1e-4})
	for _, p := range []struct {
		name  string
		prec  kernel.Precision
		edges []float32
	}{{"bf16", kernel.PrecisionBFloat16, bf16Edges}, {"f16", kernel.PrecisionFloat16, halfEdges}} {
		xs := withoutNaN(append(specialF32(40, 95), p.edges...))
		n := len(xs) / 2
		cases = append(cases, Case{Name: "pack_halves_" + p.name, Kernel: "PackHalvesWords", Grid: gpu.D1((n + 63) / 64), Block: gpu.D1(64),
			Args: []Arg{bU32(zerosU32(n)), bF32(xs), sU32(uint32(n)), sU32(uint32(p.prec))}})
	}
	return cases
}
