package sgemm_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/kernels"
)

// variantShapes are odd m×n×k that cross every tile size (32, 64 and 128
// rows or columns), with n%4 == 0 (B and C move as Float4s) and not, and
// k = 0.
var variantShapes = [][3]int{{1, 1, 1}, {17, 31, 13}, {33, 70, 45}, {130, 67, 35}, {65, 132, 20}, {129, 129, 17}, {5, 8, 0}}

// TestVariantsOnEveryBackend launches every sgemm kernel (OpSgemm and its
// variants) on every backend this machine has, with the kernel's own block
// over a group per tile and over a single group (which strides over the
// tiles), and with another block (the one-element-per-thread path), and
// compares C with kernels.RefSgemm: bit for bit on small integers, within
// the reduction tolerance on floats of either sign.
func TestVariantsOnEveryBackend(t *testing.T) {
	for _, tg := range targets {
		t.Run(tg.name, func(t *testing.T) {
			dev := open(t, tg)
			mods := compileBoth(t, dev)
			st := dev.DefaultStream()
			for _, v := range kernels.SgemmVariants() {
				kern, err := mods.kernel(v.Kernel)
				require.NoError(t, err)
				for _, s := range variantShapes {
					m, n, k := s[0], s[1], s[2]
					tiles := gpu.D2((n+v.TileN-1)/v.TileN, (m+v.TileM-1)/v.TileM)
					launches := []struct {
						name        string
						grid, block gpu.Dim3
					}{
						{"tiles", tiles, v.Block},
						{"one group", gpu.D2(1, 1), v.Block},
						{"simple path", gpu.D2((n+7)/8, (m+3)/4), gpu.D2(8, 4)},
					}
					for _, l := range launches {
						t.Run(fmt.Sprintf("%s/%dx%dx%d/%s", v.Kernel, m, n, k, l.name), func(t *testing.T) {
							rng := rand.New(rand.NewPCG(uint64(m*n), uint64(k)))
							run := func(a, b, c []float32, alpha, beta float32) []float32 {
								bc := upload(t, dev, c)
								require.NoError(t, st.Launch(kern, l.grid, l.block, gpu.Buf(bc), gpu.Buf(upload(t, dev, a)), gpu.Buf(upload(t, dev, b)),
									gpu.U32(uint32(m)), gpu.U32(uint32(n)), gpu.U32(uint32(k)), gpu.F32(alpha), gpu.F32(beta)))
								require.NoError(t, st.Synchronize(context.Background()))
								return download(t, bc, m*n)
							}
							a, b, c := ints(rng, m*k, -3, 3), ints(rng, k*n, -3, 3), ints(rng, m*n, -5, 5)
							require.NoError(t, kernels.CompareF32(run(a, b, c, 2, -1), kernels.RefSgemm(c, a, b, m, n, k, 2, -1), 0, 0))

							a, b, c = floats(rng, m*k, -1, 1), floats(rng, k*n, -1, 1), floats(rng, m*n, -1, 1)
							got, want := run(a, b, c, 1, 0), kernels.RefSgemm(c, a, b, m, n, k, 1, 0)
							// Dot products of k terms of either sign: compared
							// against the magnitude of the terms.
							tol := kernels.ReductionTolerance(k)*math.Sqrt(float64(k)) + 1e-6
							for i := range got {
								require.InDelta(t, want[i], got[i], tol, "C[%d]", i)
							}
						})
					}
				}
			}
		})
	}
}
