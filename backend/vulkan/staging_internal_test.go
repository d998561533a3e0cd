//go:build (darwin || freebsd || linux || netbsd || windows) && (amd64 || arm64)

package vulkan

import (
	"bytes"
	"context"
	"fmt"
	"runtime"
	"testing"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/backend/backendtest"
	"github.com/stretchr/testify/require"
)

// TestConformanceStaged runs the suite with every pageable Write and Read
// staged, as on a discrete GPU, where device memory is mapped (lavapipe).
func TestConformanceStaged(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	backendtest.Run(t, Driver{stageHost: true})
}

// BenchmarkPageableStaged: 256 MiB Write and Read of a Go slice through
// staging (forced where device memory is mapped), wall clock to the end of
// a Synchronize: the path of `gpu bench`'s h2d_pageable_gbps and
// d2h_pageable_gbps on a discrete GPU.
func BenchmarkPageableStaged(b *testing.B) {
	const n = 256 << 20
	ctx := context.Background()
	for _, dir := range []string{"write", "read"} {
		b.Run(dir, func(b *testing.B) {
			backendtest.SkipUnlessAvailable(b, Driver{})
			buf, streams := openRaw(b, Driver{stageHost: true}, n, 1)
			st := streams[0]
			host := make([]byte, n)
			for i := range host {
				host[i] = byte(i * 7)
			}
			backendtest.TimeWall(b, n, func() error {
				var err error
				if dir == "write" {
					err = st.Write(buf, 0, host)
				} else {
					err = st.Read(host, buf, 0)
				}
				if err != nil {
					return err
				}
				return st.Synchronize(ctx)
			})
		})
	}
}

// TestPipelinedTransfers: large staged Writes and Reads with 12 copy
// workers (whatever the machine has), back to back without synchronizing
// (so a transfer waits for staging of the previous one), interleaved with
// device work and ordered across streams, at odd offsets and sizes.
func TestPipelinedTransfers(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(12))
	backendtest.SkipUnlessAvailable(t, Driver{})
	for _, batch := range []struct {
		name  string
		bytes int
	}{{"batched", pipeBatch}, {"unbatched", 0}, {"one-chunk-batches", pipeChunk}} {
		t.Run(batch.name, func(t *testing.T) {
			defer setPipe(&pipeBatch, batch.bytes)()
			t.Run("default", func(t *testing.T) { testPipelined(t, Driver{stageHost: true}) })
			t.Run("transfer-lane", func(t *testing.T) { testPipelined(t, Driver{stageHost: true, transferOnCompute: true}) })
		})
	}
}

// setPipe sets a pipeline variable and returns what restores it.
func setPipe[T any](v *T, x T) func() {
	old := *v
	*v = x
	return func() { *v = old }
}

func testPipelined(t *testing.T, drv Driver) {
	ctx := context.Background()
	const size = 96<<20 + 12
	buf, streams := openRaw(t, drv, size, 2)
	s1, s2 := streams[0], streams[1]
	want := make([]byte, size)
	for i := range want {
		want[i] = byte(i*131 + i>>16)
	}
	// Three writes back to back, the middle one overlapping a fill before it.
	require.NoError(t, s1.Fill(buf, 0, size, 0xabababab))
	require.NoError(t, s1.Write(buf, 3, want[3:40<<20+7]))
	require.NoError(t, s1.Write(buf, 40<<20+7, want[40<<20+7:80<<20]))
	require.NoError(t, s1.Write(buf, 80<<20, want[80<<20:]))
	src := make([]byte, 3)
	copy(src, want)
	require.NoError(t, s1.Write(buf, 0, src))
	for i := range src {
		src[i] = 0 // Write returned: the slice may be reused
	}
	ev, err := s1.Record()
	require.NoError(t, err)
	defer ev.Close()
	// Read on another stream after the event, in two large pieces.
	require.NoError(t, s2.Wait(ev))
	got := make([]byte, size)
	require.NoError(t, s2.Read(got[:50<<20+1], buf, 0))
	require.NoError(t, s2.Read(got[50<<20+1:], buf, 50<<20+1))
	after, err := s2.Record()
	require.NoError(t, err)
	defer after.Close()
	// Overwrite after the reads: they must not see it.
	require.NoError(t, s2.Fill(buf, 0, size-12, 0))
	require.NoError(t, after.Synchronize(ctx))
	require.True(t, bytes.Equal(got, want), "first difference at %d", firstDiff(got, want))
	require.NoError(t, s2.Synchronize(ctx))
	require.NoError(t, s2.Read(got[:8<<20], buf, 1))
	require.NoError(t, s2.Synchronize(ctx))
	require.True(t, bytes.Equal(got[:8<<20], make([]byte, 8<<20)))
	require.Empty(t, ValidationMessages())
}

// openRaw opens device 0 of drv at the backend level, allocates size bytes
// on it and creates the given number of streams; all close with tb.
func openRaw(tb testing.TB, drv Driver, size int64, streams int) (backend.Buffer, []backend.Stream) {
	tb.Helper()
	bd, err := drv.Open(context.Background(), 0)
	require.NoError(tb, err)
	tb.Cleanup(func() { _ = bd.Close() })
	buf, err := bd.Alloc(size)
	require.NoError(tb, err)
	tb.Cleanup(func() { _ = buf.Close() })
	sts := make([]backend.Stream, streams)
	for i := range sts {
		sts[i], err = bd.NewStream()
		require.NoError(tb, err)
		tb.Cleanup(func() { _ = sts[i].Close() })
	}
	return buf, sts
}

func firstDiff(a, b []byte) int {
	for i := range a {
		if a[i] != b[i] {
			return i
		}
	}
	return -1
}

// BenchmarkPipeSweep times 256 MiB pageable Writes and Reads through the
// pipelined staging (forced where device memory is mapped) over a grid of
// chunk sizes, worker counts and batch sizes (pipeChunk, pipeMaxWorkers,
// pipeBatch), on the transfer queue and on the compute queue: the sweep
// behind the defaults. On a GPU machine:
//
//	go test ./backend/vulkan -run '^$' -bench PipeSweep -benchtime 5x
func BenchmarkPipeSweep(b *testing.B) {
	const n = 256 << 20
	ctx := context.Background()
	host := make([]byte, n)
	for i := range host {
		host[i] = byte(i * 7)
	}
	for _, q := range []struct {
		name string
		drv  Driver
	}{{"transferq", Driver{stageHost: true}}, {"computeq", Driver{stageHost: true, NoTransferQueue: true}}} {
		b.Run(q.name, func(b *testing.B) {
			backendtest.SkipUnlessAvailable(b, Driver{})
			buf, streams := openRaw(b, q.drv, n, 1)
			st := streams[0]
			for _, chunk := range []int{2 << 20, 4 << 20} {
				for _, workers := range []int{8, 12, 16} {
					for _, batch := range []int{0, 8 << 20, 16 << 20} {
						name := fmt.Sprintf("chunk%dM/w%d/batch%dM", chunk>>20, workers, batch>>20)
						for _, dir := range []string{"write", "read"} {
							b.Run(name+"/"+dir, func(b *testing.B) {
								defer setPipe(&pipeChunk, chunk)()
								defer setPipe(&pipeMaxWorkers, workers)()
								defer setPipe(&pipeBatch, batch)()
								backendtest.TimeWall(b, n, func() error {
									var err error
									if dir == "write" {
										err = st.Write(buf, 0, host)
									} else {
										err = st.Read(host, buf, 0)
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
			}
		})
	}
}
