package handwritten

import (
	"math"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/internal/gemm"
)

// goSgemm runs one group's share of sgemm with the packed, register-blocked
// kernels of package gemm (assembly micro-kernels where the CPU has them).
// A 16×16 tile per group is too small for them (packing a 16-wide panel of A
// and B costs as much as the multiply), so the groups do not take the tiles
// the launch's geometry names: gemm.Blocks splits C among the grid's groups
// with z = 0 (numbered x-fastest) in tiles of 128×256 to 512×1024 (larger
// for a larger C), spread evenly over the group numbers, so the consecutive
// groups the backend hands each core carry equal work. Every element of C is
// still written by exactly one group of the launch, whatever its grid and
// block (tested with grids larger and smaller than C in TestSgemm and
// TestSgemmLargeTiles).
func goSgemm(g backend.Group, args []backend.Arg) {
	if len(args) < 8 {
		return
	}
	c, a, b := args[0].Float32s(), args[1].Float32s(), args[2].Float32s()
	m, n, k := int(args[3].U32()), int(args[4].U32()), int(args[5].U32())
	alpha, beta := args[6].F32(), args[7].F32()
	if _, _, _, _, _, _, ok := tiles2(g); !ok || m == 0 || n == 0 || !fits(len(c), m, n) || !fits(len(a), m, k) || !fits(len(b), k, n) {
		return // C is empty: nothing to walk over (m or n may be huge)
	}
	grid := g.Grid.Norm()
	if g.ID.X >= grid.X || g.ID.Y >= grid.Y || !fits(math.MaxInt, grid.X, grid.Y) {
		return // not a group of this grid
	}
	for blk := range gemm.Blocks(g.ID.Y*grid.X+g.ID.X, grid.X*grid.Y, m, n) {
		ab, bb := a[blk.I0*k:], b
		if k > 0 { // with k = 0, A and B may be empty
			bb = b[blk.J0:]
		}
		// The sizes fit the buffers (checked above), so Sgemm cannot fail.
		_ = gemm.Sgemm(blk.I1-blk.I0, blk.J1-blk.J0, k, alpha, ab, max(k, 1), bb, n, beta, c[blk.I0*n+blk.J0:], n)
	}
}
