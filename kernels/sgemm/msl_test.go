package sgemm_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/backend/metal/mslcheck"
	"github.com/anygpu/gpu/kernels"
)

// TestVariantsMSL checks the variants' Metal text where no Mac is: their
// kernel functions against OpSgemm's argument ABI, then runs them on the CPU
// through package mslcheck (the MSL compiled as C++, real barriers and
// threadgroup memory) and compares C with the reference bit for bit. It
// skips without clang.
func TestVariantsMSL(t *testing.T) {
	if _, err := mslcheck.Clang(); err != nil {
		t.Skipf("no clang for the MSL check: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	src := kernels.SgemmSource()
	abi := map[string][]mslcheck.Kind{}
	for name, kinds := range src.Params {
		for _, k := range kinds {
			abi[name] = append(abi[name], k.String())
		}
	}
	require.NoError(t, mslcheck.CheckABI(ctx, "sgemm variants MSL", src.MSL, abi))
	prog, err := mslcheck.Build(ctx, "sgemm variants MSL", src.MSL)
	require.NoError(t, err)
	defer prog.Close()
	bytesOf := func(x []float32) []byte {
		out := make([]byte, 4*max(len(x), 1))
		for i, v := range x {
			binary.LittleEndian.PutUint32(out[4*i:], math.Float32bits(v))
		}
		return out
	}
	for _, v := range kernels.SgemmVariants()[1:] {
		for _, s := range [][3]int{{17, 31, 13}, {70, 65, 20}} {
			m, n, k := s[0], s[1], s[2]
			for _, grid := range [][3]int{{(n + v.TileN - 1) / v.TileN, (m + v.TileM - 1) / v.TileM, 1}, {1, 1, 1}} {
				t.Run(fmt.Sprintf("%s/%dx%dx%d/grid=%v", v.Kernel, m, n, k, grid), func(t *testing.T) {
					rng := rand.New(rand.NewPCG(uint64(m), uint64(k)))
					a, b, c := ints(rng, m*k, -3, 3), ints(rng, k*n, -3, 3), ints(rng, m*n, -5, 5)
					scalars := []backend.Arg{{Kind: backend.ArgU32, Bits: uint64(m)}, {Kind: backend.ArgU32, Bits: uint64(n)},
						{Kind: backend.ArgU32, Bits: uint64(k)}, {Kind: backend.ArgF32, Bits: uint64(math.Float32bits(2))},
						{Kind: backend.ArgF32, Bits: uint64(math.Float32bits(-1))}}
					l := mslcheck.Launch{Kernel: v.Kernel, Grid: grid, Block: [3]int{v.Block.X, v.Block.Y, v.Block.Z},
						Buffers: [][]byte{bytesOf(c), bytesOf(a), bytesOf(b)}, Params: backend.PackScalars(scalars, false)}
					require.NoError(t, prog.Run(ctx, []mslcheck.Launch{l}))
					got := make([]float32, m*n)
					for i := range got {
						got[i] = math.Float32frombits(binary.LittleEndian.Uint32(l.Buffers[0][4*i:]))
					}
					require.NoError(t, kernels.CompareF32(got, kernels.RefSgemm(c, a, b, m, n, k, 2, -1), 0, 0))
				})
			}
		}
	}
}
