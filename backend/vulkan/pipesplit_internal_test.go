//go:build (darwin || freebsd || linux || netbsd || windows) && (amd64 || arm64)

package vulkan

import (
	"bytes"
	"context"
	"runtime"
	"testing"

	"github.com/anygpu/gpu/backend/backendtest"
	"github.com/stretchr/testify/require"
)

// TestPipelinedSplit runs the pipelined transfer test with the copies split
// over two lanes (EnvPipeSplit) in every mode, batched and unbatched, on the
// compute queue and on a transfer lane. "same" always splits (a second lane
// on the transfer's own queue); the other modes split where the device has
// a second queue and otherwise keep one.
func TestPipelinedSplit(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(12))
	backendtest.SkipUnlessAvailable(t, Driver{})
	for _, mode := range []string{"same", "compute", "transfer"} {
		for _, batch := range []struct {
			name  string
			bytes int
		}{{"batched", pipeBatch}, {"unbatched", 0}} {
			t.Run(mode+"/"+batch.name, func(t *testing.T) {
				defer setPipe(&pipeSplit, mode)()
				defer setPipe(&pipeBatch, batch.bytes)()
				t.Run("default", func(t *testing.T) { testPipelined(t, Driver{stageHost: true}) })
				t.Run("transfer-lane", func(t *testing.T) { testPipelined(t, Driver{stageHost: true, transferOnCompute: true}) })
			})
		}
	}
}

// TestPipelinedSplitUsesSecondLane checks that a split Write and Read put
// copies on the second lane, that the stream's next work is ordered after
// them (a Fill right after the Write overwrites part of what it wrote) and
// that the second lane goes away with the stream.
func TestPipelinedSplitUsesSecondLane(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(12))
	backendtest.SkipUnlessAvailable(t, Driver{})
	defer setPipe(&pipeSplit, "same")()
	ctx := context.Background()
	const size = 32<<20 + 5
	buf, streams := openRaw(t, Driver{stageHost: true}, size, 1)
	st := streams[0].(*stream)
	want := make([]byte, size)
	for i := range want {
		want[i] = byte(i*13 + i>>12)
	}
	require.NoError(t, st.Write(buf, 0, want))
	st.mu.Lock()
	a := st.aux
	st.mu.Unlock()
	require.NotNil(t, a, "no second lane after a split Write")
	firstGood := a.good
	require.Positive(t, firstGood, "no batch submitted on the second lane")
	// Stream order: the fill must land after every copy of the Write.
	require.NoError(t, st.Fill(buf, 4, 24<<20, 0))
	for i := 4; i < 4+24<<20; i++ {
		want[i] = 0
	}
	got := make([]byte, size)
	require.NoError(t, st.Read(got, buf, 0))
	require.True(t, bytes.Equal(got, want), "first difference at %d", firstDiff(got, want))
	st.mu.Lock()
	require.Greater(t, a.good, firstGood, "the Read used no second lane")
	st.mu.Unlock()
	require.NoError(t, st.Synchronize(ctx))
	require.NoError(t, st.Close())
	require.Nil(t, st.aux, "second lane kept after Close")
	require.Empty(t, ValidationMessages())
}

// TestPipelinedSplitOff: with EnvPipeSplit unset, a large transfer keeps to
// one queue.
func TestPipelinedSplitOff(t *testing.T) {
	backendtest.SkipUnlessAvailable(t, Driver{})
	defer setPipe(&pipeSplit, "")()
	const size = 16 << 20
	buf, streams := openRaw(t, Driver{stageHost: true}, size, 1)
	st := streams[0].(*stream)
	src := bytes.Repeat([]byte{1, 2, 3}, size/3)
	require.NoError(t, st.Write(buf, 0, src))
	require.NoError(t, st.Synchronize(context.Background()))
	require.Nil(t, st.aux)
}
