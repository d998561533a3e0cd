package cpu

import (
	"fmt"
	"math"
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

// TestTanh32: tanh32 is within 3 ulps (of the result, or of 2⁻²⁶ near 0)
// of math.Tanh over a dense sweep of [−12, 12] and at the edges of its
// pieces, and ±1, NaN beyond.
func TestTanh32(t *testing.T) {
	check := func(y float32) {
		want := math.Tanh(float64(y))
		got := float64(tanh32(y))
		tol := 3 * math.Max(math.Abs(want), 1.0/8) / (1 << 23)
		if !(math.Abs(got-want) <= tol) {
			require.Failf(t, "tanh32", "tanh32(%g) = %g, want %g within %g", y, got, want, tol)
		}
	}
	for i := -1_200_000; i <= 1_200_000; i++ {
		check(float32(i) * 1e-5)
	}
	for _, y := range []float32{0, 1e-30, -1e-30, 0.625, math.Nextafter32(0.625, 0), 9, math.Nextafter32(9, 0), 30, -30, math.MaxFloat32, -math.MaxFloat32} {
		check(y)
	}
	require.True(t, math.IsNaN(float64(tanh32(float32(math.NaN())))))
	require.Equal(t, float32(1), tanh32(float32(math.Inf(1))))
	require.Equal(t, float32(-1), tanh32(float32(math.Inf(-1))))
}
