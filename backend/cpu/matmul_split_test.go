package cpu

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestMatMulBlocks: the blocks of a product cover every element of C exactly
// once, and there are enough of them to keep every core busy when the
// matrix has that many micro-kernel tiles.
func TestMatMulBlocks(t *testing.T) {
	for _, tc := range []struct{ m, n, batch, workers int }{
		{2048, 2048, 1, 16},
		{1024, 3072, 1, 16},
		{1024, 768, 1, 16},
		{1, 2304, 1, 16},
		{1, 768, 1, 2},
		{7, 33, 3, 2},
		{1, 1, 1, 16},
		{300, 260, 2, 2},
		{1024, 50257, 1, 128},
		{64, 64, 48, 16},
	} {
		t.Run(fmt.Sprintf("%dx%d/batch=%d/workers=%d", tc.m, tc.n, tc.batch, tc.workers), func(t *testing.T) {
			blocks := matMulBlocks(tc.m, tc.n, tc.batch, tc.workers)
			seen := make([]uint8, tc.m*tc.n)
			for _, b := range blocks {
				require.True(t, 0 <= b.I0 && b.I0 < b.I1 && b.I1 <= tc.m && 0 <= b.J0 && b.J0 < b.J1 && b.J1 <= tc.n, "block %+v", b)
				for i := b.I0; i < b.I1; i++ {
					for j := b.J0; j < b.J1; j++ {
						seen[i*tc.n+j]++
					}
				}
			}
			for x, s := range seen {
				if s != 1 { // checked here, not by require for each of millions
					require.Failf(t, "not covered once", "element (%d, %d) in %d blocks", x/tc.n, x%tc.n, s)
				}
			}
			tiles := ceilDiv(tc.m, pieceRows) * ceilDiv(tc.n, pieceCols)
			require.GreaterOrEqual(t, tc.batch*len(blocks), min(tc.workers, tiles), "blocks %v", blocks)
		})
	}
}
