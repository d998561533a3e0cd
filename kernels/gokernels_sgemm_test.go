package kernels

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu/backend"
)

// TestSgemmLargeTiles covers what the small shapes of TestSgemm do not reach:
// C wider and taller than gemm's 128×256 tiles, so that groups own several
// tiles or none, k beyond one cache block, and k = 0 with empty A and B.
func TestSgemmLargeTiles(t *testing.T) {
	shapes := [][3]int{{300, 600, 5}, {129, 257, 300}, {3, 700, 0}, {520, 40, 17}}
	blocks := []backend.Dim3{{X: 16, Y: 16}, {X: 1, Y: 1}, {X: 256, Y: 1}}
	for _, s := range shapes {
		for _, blk := range blocks {
			for _, gm := range gridModes {
				c := sgemmCase{m: s[0], n: s[1], k: s[2], alpha: 2, beta: -1, block: blk}
				grid := backend.Dim3{X: gm.grid(ceilDiv(c.n, blk.X)), Y: gm.grid(ceilDiv(c.m, blk.Y))}
				t.Run(fmt.Sprintf("%dx%dx%d/block=%v/grid=%s%v", c.m, c.n, c.k, blk, gm.name, grid), func(t *testing.T) {
					rng := rand.New(rand.NewPCG(uint64(c.m), uint64(c.n)))
					a, b := randInts(rng, c.m*c.k, -3, 3), randInts(rng, c.k*c.n, -3, 3)
					c0 := randInts(rng, c.m*c.n, -5, 5)
					got, err := runSgemm(c, grid, a, b, c0, true)
					require.NoError(t, err)
					require.NoError(t, CompareF32(got, RefSgemm(c0, a, b, c.m, c.n, c.k, c.alpha, c.beta), 0, 0))
				})
			}
		}
	}
}
