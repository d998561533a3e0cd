package ranges

import (
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCounter checks that the ranges of a transfer, taken by several
// goroutines at once, tile it exactly: contiguous, in order of offset, none
// over a chunk, and (guided) shrinking towards the end but not under
// GuidedMin except the very last.
func TestCounter(t *testing.T) {
	for _, tc := range []struct {
		n, chunk, workers int
		guided            bool
	}{
		{256 << 20, 2 << 20, 12, true},
		{256 << 20, 2 << 20, 12, false},
		{3<<20 + 5, 2 << 20, 2, true},
		{100 << 20, 4 << 20, 8, true},
		{5 << 20, 2 << 20, 1, true}, // one worker: whole chunks
		{1<<20 + 1, 256 << 10, 3, true},
	} {
		name := fmt.Sprintf("n=%d/chunk=%d/workers=%d/guided=%v", tc.n, tc.chunk, tc.workers, tc.guided)
		cc := New(tc.n, tc.chunk, tc.workers, tc.guided)
		var stop atomic.Bool
		got := make([][][2]int, tc.workers)
		var wg sync.WaitGroup
		for w := range tc.workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					lo, m, ok := cc.Take(&stop)
					if !ok {
						return
					}
					got[w] = append(got[w], [2]int{lo, m})
				}
			}()
		}
		wg.Wait()
		var all [][2]int
		for _, g := range got {
			all = append(all, g...)
		}
		slices.SortFunc(all, func(a, b [2]int) int { return a[0] - b[0] })
		off := 0
		for i, r := range all {
			require.Equal(t, off, r[0], "%s: range %d starts where the last ended", name, i)
			require.LessOrEqual(t, r[1], tc.chunk, name)
			require.Positive(t, r[1], name)
			if i < len(all)-1 {
				if tc.guided {
					require.GreaterOrEqual(t, r[1], min(GuidedMin, tc.chunk), name)
					require.LessOrEqual(t, all[i+1][1], r[1], "%s: guided ranges never grow", name)
				} else {
					require.Equal(t, tc.chunk, r[1], name)
				}
			}
			off += r[1]
		}
		require.Equal(t, tc.n, off, name)
		if tc.guided && tc.n >= 64*tc.chunk {
			require.Less(t, all[len(all)-2][1], tc.chunk, "%s: the last ranges are smaller than a chunk", name)
		}
	}
	var stop atomic.Bool
	stop.Store(true)
	_, _, ok := New(1<<20, 1<<16, 4, true).Take(&stop)
	require.False(t, ok, "stop ends the hand-out")
}
