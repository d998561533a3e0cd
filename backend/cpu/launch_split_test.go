package cpu

import (
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu/backend"
)

// TestLaunchSpreadsHeavyGroups: a launch of a few groups of 256 threads
// (under serialThreads in all) whose groups take milliseconds runs them on
// every core, and still runs each group once.
func TestLaunchSpreadsHeavyGroups(t *testing.T) {
	const groups = 16
	var running, most atomic.Int32
	var ran [groups]atomic.Int32
	k := &kernel{name: "heavy", fn: func(g backend.Group, _ []backend.Arg) {
		now := running.Add(1)
		for {
			m := most.Load()
			if now <= m || most.CompareAndSwap(m, now) {
				break
			}
		}
		time.Sleep(2 * time.Millisecond)
		ran[g.ID.X].Add(1)
		running.Add(-1)
	}}
	require.NoError(t, k.run(backend.Dim3{X: groups, Y: 1, Z: 1}, backend.Dim3{X: 256, Y: 1, Z: 1}, nil))
	for i := range ran {
		require.Equal(t, int32(1), ran[i].Load(), "group %d", i)
	}
	require.Equal(t, int32(min(runtime.GOMAXPROCS(0), groups-1)), most.Load())
}

// BenchmarkHeavyGroups is a launch of 16 groups of 256 threads that each
// spin for 100 µs: 1.6 ms on one core.
func BenchmarkHeavyGroups(b *testing.B) {
	k := &kernel{name: "heavy", fn: func(backend.Group, []backend.Arg) {
		for start := time.Now(); time.Since(start) < 100*time.Microsecond; {
		}
	}}
	for range b.N {
		if err := k.run(backend.Dim3{X: 16, Y: 1, Z: 1}, backend.Dim3{X: 256, Y: 1, Z: 1}, nil); err != nil {
			b.Fatal(err)
		}
	}
}
