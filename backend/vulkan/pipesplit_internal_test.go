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
	require.True(t, joined(st, a), "no stream batch waits for the second lane's last copy")
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
	defer setPipe(&pipeSplit, "off")()
	const size = 16 << 20
	buf, streams := openRaw(t, Driver{stageHost: true}, size, 1)
	st := streams[0].(*stream)
	src := bytes.Repeat([]byte{1, 2, 3}, size/3)
	require.NoError(t, st.Write(buf, 0, src))
	require.NoError(t, st.Synchronize(context.Background()))
	require.Nil(t, st.aux)
}

// TestHostCopySplit: WriteHost and ReadHost of pinned memory split over two
// lanes, at odd offsets and sizes, ordered after a fill, before a fill on
// the same stream, and across streams through an event, for sizes below
// (one lane) and above splitHostMin.
func TestHostCopySplit(t *testing.T) {
	backendtest.SkipUnlessAvailable(t, Driver{})
	defer setPipe(&pipeSplit, "same")()
	ctx := context.Background()
	for _, tc := range []struct {
		name  string
		n     int
		split bool
	}{{"small", splitHostMin - 1, false}, {"large", 3*splitHostMin + 13, true}} {
		t.Run(tc.name, func(t *testing.T) {
			n := tc.n
			size := int64(n+64) &^ 3
			bd, err := Driver{}.Open(ctx, 0)
			require.NoError(t, err)
			defer bd.Close()
			buf, err := bd.Alloc(size)
			require.NoError(t, err)
			defer buf.Close()
			src, err := bd.AllocHost(int64(n + 3))
			require.NoError(t, err)
			defer src.Close()
			dst, err := bd.AllocHost(int64(n + 5))
			require.NoError(t, err)
			defer dst.Close()
			s1b, err := bd.NewStream()
			require.NoError(t, err)
			defer s1b.Close()
			s2b, err := bd.NewStream()
			require.NoError(t, err)
			defer s2b.Close()
			s1, s2 := s1b.(*stream), s2b.(*stream)

			want := make([]byte, n)
			for i := range want {
				want[i] = byte(i*29 + i>>10)
			}
			copy(src.Bytes()[3:], want)
			require.NoError(t, s1.Fill(buf, 0, size, 0x5a5a5a5a))
			require.NoError(t, s1.WriteHost(buf, 7, src, 3, int64(n)))
			require.NoError(t, s1.Fill(buf, 8, 4096, 0)) // after the whole WriteHost
			for i := 1; i < 1+4096; i++ {
				want[i] = 0
			}
			ev, err := s1.Record()
			require.NoError(t, err)
			defer ev.Close()
			require.NoError(t, s2.Wait(ev))
			require.NoError(t, s2.ReadHost(dst, 5, buf, 7, int64(n)))
			require.NoError(t, s2.Fill(buf, 0, size, 0)) // after the whole ReadHost
			require.NoError(t, s2.Synchronize(ctx))
			got := dst.Bytes()[5 : 5+n]
			require.True(t, bytes.Equal(got, want), "first difference at %d", firstDiff(got, want))
			for _, st := range []*stream{s1, s2} {
				st.mu.Lock()
				used := st.aux != nil && st.aux.good > 0
				st.mu.Unlock()
				require.Equal(t, tc.split, used, "second lane used")
			}
			require.Empty(t, ValidationMessages())
		})
	}
}

// joined reports whether one of st's unretired batches waits for a's last
// submitted value.
func joined(st *stream, a *auxLane) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	bs := append([]*batch(nil), st.inflight...)
	if st.cur != nil {
		bs = append(bs, st.cur)
	}
	for _, b := range bs {
		for _, w := range b.waits {
			if w.sem == a.sem && w.value == a.good {
				return true
			}
		}
	}
	return false
}

// BenchmarkPipeSplit times 256 MiB pageable Writes and Reads (staging
// forced where device memory is mapped) and pinned WriteHost and ReadHost,
// wall clock to the end of a Synchronize, with the copies on one queue
// ("off") and split over two lanes in each EnvPipeSplit mode. On a GPU
// machine:
//
//	go test ./backend/vulkan -run '^$' -bench PipeSplit -benchtime 10x
func BenchmarkPipeSplit(b *testing.B) {
	const n = 256 << 20
	ctx := context.Background()
	backendtest.SkipUnlessAvailable(b, Driver{})
	bd, err := Driver{stageHost: true}.Open(ctx, 0)
	require.NoError(b, err)
	defer bd.Close()
	buf, err := bd.Alloc(n)
	require.NoError(b, err)
	defer buf.Close()
	pinned, err := bd.AllocHost(n)
	require.NoError(b, err)
	defer pinned.Close()
	host := make([]byte, n)
	for i := range host {
		host[i] = byte(i * 7)
	}
	for _, mode := range []string{"off", "transfer", "compute", "same"} {
		for _, dir := range []string{"h2d-pageable", "d2h-pageable", "h2d-pinned", "d2h-pinned"} {
			b.Run(mode+"/"+dir, func(b *testing.B) {
				defer setPipe(&pipeSplit, mode)()
				sb, err := bd.NewStream()
				require.NoError(b, err)
				defer sb.Close()
				st := sb.(*stream)
				backendtest.TimeWall(b, n, func() error {
					var err error
					switch dir {
					case "h2d-pageable":
						err = st.Write(buf, 0, host)
					case "d2h-pageable":
						err = st.Read(host, buf, 0)
					case "h2d-pinned":
						err = st.WriteHost(buf, 0, pinned, 0, n)
					default:
						err = st.ReadHost(pinned, 0, buf, 0, n)
					}
					if err != nil {
						return err
					}
					return st.Synchronize(ctx)
				})
			})
		}
	}
}
