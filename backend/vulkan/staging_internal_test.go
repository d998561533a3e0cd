//go:build (darwin || freebsd || linux || netbsd || windows) && (amd64 || arm64)

package vulkan

import (
	"bytes"
	"context"
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
	t.Run("default", func(t *testing.T) { testPipelined(t, Driver{stageHost: true}) })
	t.Run("transfer-lane", func(t *testing.T) { testPipelined(t, Driver{stageHost: true, transferOnCompute: true}) })
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
