package kernelcorpus

import (
	"math/rand/v2"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/kernel"
)

// The LoadMatrices and CopyAsync cases' sizes: groups of 64 threads (two
// matrix units), ldmGroups of them; CopyAsyncTiles' tiles per group.
const (
	ldmGroups = 2
	cpTiles   = 5
)

// ldmRows is, for each of units matrix units, the 32 lanes' word indices
// (multiples of 4) of rows in their group's 1024 words, seeded.
func ldmRows(units int, seed uint64) []uint32 {
	r := rand.New(rand.NewPCG(seed, 5))
	out := make([]uint32, units*32)
	for i := range out {
		out[i] = 4 * uint32(r.IntN(256))
	}
	return out
}

// ldmCases are the cases of the LoadMatrices and CopyAsync kernels
// (ldmatrix.go).
func ldmCases() []Case {
	var cases []Case
	for mode, name := range []string{"x4", "x4_trans", "x2", "x2_trans"} {
		cases = append(cases, Case{Name: "load_matrices_" + name, Kernel: "LoadMatricesWords", Grid: gpu.D1(ldmGroups), Block: gpu.D1(64),
			Args: []Arg{bU32(zerosU32(ldmGroups * 64 * 4)), bU32(randU32(ldmGroups*1024, uint64(100+mode), 0)),
				bU32(ldmRows(ldmGroups*2, uint64(110+mode))), sU32(uint32(mode))}})
	}
	for mode, name := range []string{"x2_trans", "x4_trans", "x4"} {
		cases = append(cases, Case{Name: "load_matrices_mma_" + name, Kernel: "LoadMatricesMMA", Grid: gpu.D1(ldmGroups), Block: gpu.D1(64),
			Args: []Arg{bF32(zerosF32(ldmGroups * 2 * 256)), bU32(mmaWords(ldmGroups*2*256, uint64(120+mode), kernel.PrecisionBFloat16)),
				sU32(uint32(mode))}, ULP: 64, Abs: 1e-4})
	}
	cases = append(cases,
		Case{Name: "copy_async_tiles", Kernel: "CopyAsyncTiles", Grid: gpu.D1(ldmGroups), Block: gpu.D1(64),
			Args: []Arg{bU32(zerosU32(ldmGroups * cpTiles * 256)), bF32(randF32(ldmGroups*cpTiles*256, 130, -4, 4)), sU32(cpTiles)}},
		Case{Name: "copy_async_words", Kernel: "CopyAsyncWords", Grid: gpu.D1(ldmGroups), Block: gpu.D1(64),
			Args: []Arg{bU32(zerosU32(ldmGroups * 256)), bU32(randU32(ldmGroups*256, 131, 0))}})
	return cases
}
