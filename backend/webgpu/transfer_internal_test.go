//go:build cgo

package webgpu

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu/backend/backendtest"
	"github.com/anygpu/gpu/errors"
)

// openTransferDevice opens the first adapter for the transfer tests.
func openTransferDevice(t *testing.T) (*device, *stream) {
	t.Helper()
	backendtest.SkipUnlessAvailable(t, Driver{})
	dv, err := open(context.Background(), 0)
	require.NoError(t, err)
	d := dv.(*device)
	t.Cleanup(func() { _ = d.Close() })
	s, err := d.NewStream()
	require.NoError(t, err)
	return d, s.(*stream)
}

// randomBytes returns n bytes from a generator seeded with seed.
func randomBytes(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 11))
	out := make([]byte, n)
	for i := range out {
		out[i] = byte(r.Uint32())
	}
	return out
}

// transferCases are sizes and offsets around the staged write's threshold
// and the chunk size, aligned and not.
var transferCases = []struct{ off, n int }{
	{0, stagedWriteMin - 1},
	{3, stagedWriteMin},
	{0, transferChunk},
	{1, transferChunk},
	{4, transferChunk - 4},
	{0, transferChunk + 1},
	{2, transferChunk + 2},
	{5, 2*transferChunk + 7},
	{transferChunk - 3, transferChunk + 6},
	{16, 3 * transferChunk},
}

// TestStagedTransfers writes and reads ranges of every case into a buffer
// holding other data, and checks the range and what surrounds it.
func TestStagedTransfers(t *testing.T) {
	d, s := openTransferDevice(t)
	ctx := context.Background()
	for i, tc := range transferCases {
		t.Run(fmt.Sprintf("off=%d,n=%d", tc.off, tc.n), func(t *testing.T) {
			size := tc.off + tc.n + 9
			bv, err := d.Alloc(int64(size))
			require.NoError(t, err)
			defer bv.Close()
			ref := randomBytes(size, uint64(i))
			require.NoError(t, s.Write(bv, 0, ref))
			data := randomBytes(tc.n, uint64(100+i))
			require.NoError(t, s.Write(bv, int64(tc.off), data))
			copy(ref[tc.off:], data)
			// The caller's slice is free once Write returns.
			clear(data)

			whole := make([]byte, size)
			part := make([]byte, tc.n)
			require.NoError(t, s.Read(whole, bv, 0))
			require.NoError(t, s.Read(part, bv, int64(tc.off)))
			require.NoError(t, s.Synchronize(ctx))
			require.Empty(t, firstDiff(ref, whole), "the whole buffer after the write")
			require.Empty(t, firstDiff(ref[tc.off:tc.off+tc.n], part), "the range read back alone")
		})
	}
}

// firstDiff describes the first difference between want and got, or
// returns "" when they are equal: require.Equal would print megabytes.
func firstDiff(want, got []byte) string {
	if len(want) != len(got) {
		return fmt.Sprintf("%d bytes, want %d", len(got), len(want))
	}
	for i := range want {
		if want[i] != got[i] {
			return fmt.Sprintf("byte %d is %#x, want %#x", i, got[i], want[i])
		}
	}
	return ""
}

// TestStagedWriteOrder checks that a large write stays in stream order with
// the operations around it: a fill before it, a copy and a small write
// after it.
func TestStagedWriteOrder(t *testing.T) {
	d, s := openTransferDevice(t)
	n := 2*transferChunk + 12
	a, err := d.Alloc(int64(n))
	require.NoError(t, err)
	defer a.Close()
	b, err := d.Alloc(int64(n))
	require.NoError(t, err)
	defer b.Close()
	data := randomBytes(n, 3)
	require.NoError(t, s.Fill(a, 0, int64(n), 0x01010101))
	require.NoError(t, s.Write(a, 0, data))
	require.NoError(t, s.Copy(b, 0, a, 0, int64(n)))
	require.NoError(t, s.Write(a, 8, []byte{9, 9, 9, 9}))
	gotA, gotB := make([]byte, n), make([]byte, n)
	require.NoError(t, s.Read(gotA, a, 0))
	require.NoError(t, s.Read(gotB, b, 0))
	require.NoError(t, s.Synchronize(context.Background()))
	require.Empty(t, firstDiff(data, gotB), "the copy saw the whole write")
	copy(data[8:], []byte{9, 9, 9, 9})
	require.Empty(t, firstDiff(data, gotA), "the small write landed after the large one")
}

// TestConcurrentStagedTransfers runs large writes and reads on several
// streams at once, each on its own buffer.
func TestConcurrentStagedTransfers(t *testing.T) {
	d, _ := openTransferDevice(t)
	const streams = 4
	n := transferChunk + transferChunk/2 + 3
	var wg sync.WaitGroup
	errs := make([]error, streams)
	for i := range streams {
		wg.Go(func() {
			errs[i] = func() error {
				sv, err := d.NewStream()
				if err != nil {
					return err
				}
				s := sv.(*stream)
				bv, err := d.Alloc(int64(n))
				if err != nil {
					return err
				}
				defer bv.Close()
				for round := range 3 {
					data := randomBytes(n, uint64(10*i+round))
					if err := s.Write(bv, 0, data); err != nil {
						return err
					}
					got := make([]byte, n)
					if err := s.Read(got, bv, 0); err != nil {
						return err
					}
					if err := s.Synchronize(context.Background()); err != nil {
						return err
					}
					if diff := firstDiff(data, got); diff != "" {
						return fmt.Errorf("stream %d, round %d: %s", i, round, diff)
					}
				}
				return nil
			}()
		})
	}
	wg.Wait()
	for i, err := range errs {
		assert.NoError(t, err, "stream %d", i)
	}
}

// TestUploadPoolBounded checks that repeated large writes reuse the upload
// buffers and that the pool keeps no more than its capacity.
func TestUploadPoolBounded(t *testing.T) {
	d, s := openTransferDevice(t)
	n := 12*transferChunk + 4
	bv, err := d.Alloc(int64(n))
	require.NoError(t, err)
	defer bv.Close()
	data := randomBytes(n, 8)
	for range 3 {
		require.NoError(t, s.Write(bv, 0, data))
		require.NoError(t, s.Synchronize(context.Background()))
	}
	// Let the last mappings arrive.
	require.NoError(t, d.wait(context.Background(), "test", func() bool { return len(d.uploads.remapping) == 0 }))
	d.mu.Lock()
	kept := len(d.uploads.ready)
	d.mu.Unlock()
	assert.Positive(t, kept, "upload buffers kept for reuse")
	assert.LessOrEqual(t, kept*transferChunk, uploadPoolCap)
	got := make([]byte, n)
	require.NoError(t, s.Read(got, bv, 0))
	require.NoError(t, s.Synchronize(context.Background()))
	require.Empty(t, firstDiff(data, got))
}

// TestChunkedReadCancel cancels the wait for a large read: Synchronize
// returns at once with a Timeout error, and a later Synchronize delivers the
// data.
func TestChunkedReadCancel(t *testing.T) {
	d, s := openTransferDevice(t)
	n := 4*transferChunk + 1
	bv, err := d.Alloc(int64(n))
	require.NoError(t, err)
	defer bv.Close()
	data := randomBytes(n, 9)
	require.NoError(t, s.Write(bv, 0, data))
	got := make([]byte, n)
	require.NoError(t, s.Read(got, bv, 0))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	start := time.Now()
	err = s.Synchronize(ctx)
	if err != nil {
		assert.Equal(t, errors.Timeout, errors.CategoryOf(err), "%v", err)
		assert.Less(t, time.Since(start), 5*time.Second, "Synchronize returned soon after its context ended")
	}
	require.NoError(t, s.Synchronize(context.Background()))
	require.Empty(t, firstDiff(data, got))
}

// TestCloseDuringTransfers closes the device with large transfers in
// flight: Close waits for the downloads and releases the upload buffers
// whose mapping is still pending.
func TestCloseDuringTransfers(t *testing.T) {
	backendtest.SkipUnlessAvailable(t, Driver{})
	dv, err := open(context.Background(), 0)
	require.NoError(t, err)
	d := dv.(*device)
	sv, err := d.NewStream()
	require.NoError(t, err)
	n := 3*transferChunk + 2
	bv, err := d.Alloc(int64(n))
	require.NoError(t, err)
	data := randomBytes(n, 4)
	require.NoError(t, sv.Write(bv, 0, data))
	got := make([]byte, n)
	require.NoError(t, sv.Read(got, bv, 0))
	require.NoError(t, d.Close())
	require.Empty(t, firstDiff(data, got), "Close waited for the download")
	assert.Empty(t, d.uploads.ready)
	assert.Empty(t, d.uploads.remapping)
}

func TestParallelCopy(t *testing.T) {
	for _, piece := range []int{uploadPiece, downloadPiece, 0} {
		for _, n := range []int{0, 1, 63, parallelCopyMin - 1, parallelCopyMin, parallelCopyMin + 1, 3*uploadPiece + 13, 9<<20 + 5} {
			t.Run(fmt.Sprintf("piece=%d/n=%d", piece, n), func(t *testing.T) {
				src := randomBytes(n, uint64(n))
				dst := make([]byte, n+8)
				for i := range dst {
					dst[i] = 0xee
				}
				parallelCopy(dst, src, piece)
				require.Empty(t, firstDiff(src, dst[:n]))
				for _, c := range dst[n:] {
					require.Equal(t, byte(0xee), c, "byte past the copy")
				}
			})
		}
	}
}

// TestTailStamp records an event right after a long copy: the event takes
// the tail stamp's time, which lies after the start event's and within the
// host's time around the work; an event after a short copy does not.
func TestTailStamp(t *testing.T) {
	d, s := openTransferDevice(t)
	if !d.timestamps {
		t.Skip("the adapter has no timestamp queries")
	}
	n := uint64(64 << 20)
	a, err := d.Alloc(int64(n))
	require.NoError(t, err)
	defer a.Close()
	b, err := d.Alloc(int64(n))
	require.NoError(t, err)
	defer b.Close()
	ctx := context.Background()
	for _, tc := range []struct {
		bytes uint64
		tail  bool
	}{{n, true}, {longWork, true}, {longWork - 16, false}, {16, false}} {
		t.Run(fmt.Sprint(tc.bytes), func(t *testing.T) {
			require.NoError(t, s.Synchronize(ctx))
			wall := time.Now()
			startEv, err := s.Record()
			require.NoError(t, err)
			require.NoError(t, s.Copy(b, 0, a, 0, int64(tc.bytes)))
			endEv, err := s.Record()
			require.NoError(t, err)
			require.NoError(t, s.Synchronize(ctx))
			host := time.Since(wall)
			assert.Equal(t, tc.tail, endEv.(*event).fromTail, "the closing event's time is the tail stamp's")
			el, err := endEv.Elapsed(startEv)
			require.NoError(t, err)
			assert.Positive(t, el)
			assert.LessOrEqual(t, el, host, "device time within the host's")
			require.NoError(t, startEv.Close())
			require.NoError(t, endEv.Close())
		})
	}
}

// TestUploadUsage writes and reads back through upload buffers of each
// usage EnvUpload offers; the read-write usage (the default) falls back to
// write-only buffers on an adapter without mappable primary buffers.
func TestUploadUsage(t *testing.T) {
	for _, tc := range []struct{ env, want string }{
		{"", "MAP_READ|MAP_WRITE|COPY_SRC"},
		{"readwrite", "MAP_READ|MAP_WRITE|COPY_SRC"},
		{"write", "MAP_WRITE|COPY_SRC"},
	} {
		t.Run(tc.env, func(t *testing.T) {
			t.Setenv(EnvUpload, tc.env)
			d, s := openTransferDevice(t)
			if tc.env != "write" && d.info.Extra["upload"] != tc.want {
				assert.Equal(t, "MAP_WRITE|COPY_SRC", d.info.Extra["upload"], "the fallback")
				t.Skip("the adapter has no mappable primary buffers")
			}
			assert.Equal(t, tc.want, d.info.Extra["upload"])
			n := 2*transferChunk + 5
			bv, err := d.Alloc(int64(n))
			require.NoError(t, err)
			defer bv.Close()
			for round := range 2 {
				data := randomBytes(n, uint64(round+20))
				require.NoError(t, s.Write(bv, 0, data))
				got := make([]byte, n)
				require.NoError(t, s.Read(got, bv, 0))
				require.NoError(t, s.Synchronize(context.Background()))
				require.Empty(t, firstDiff(data, got), "round %d", round)
			}
		})
	}
}
