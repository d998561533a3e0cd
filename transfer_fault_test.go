package gpu_test

import (
	"bytes"
	"context"
	"io"
	"sync/atomic"
	"testing"
	"time"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/errors"
	"github.com/stretchr/testify/require"
)

// emptyReader returns no data and no error, for ever.
type emptyReader struct{ reads atomic.Int64 }

func (r *emptyReader) Read(p []byte) (int, error) { r.reads.Add(1); return 0, nil }

// slowReader returns 4 KiB every 100 ms, for ever.
type slowReader struct{ reads atomic.Int64 }

func (r *slowReader) Read(p []byte) (int, error) {
	r.reads.Add(1)
	time.Sleep(100 * time.Millisecond)
	return copy(p, make([]byte, 4096)), nil
}

// countReader returns the count it was made with from every Read.
type countReader struct{ n func(p []byte) int }

func (r countReader) Read(p []byte) (int, error) { return r.n(p), nil }

// countReaderAt is a bytes.Reader (a ReaderAt and Seeker, read in parallel)
// whose ReadAt returns the count it was made with.
type countReaderAt struct {
	*bytes.Reader
	n func(p []byte) int
}

func (r countReaderAt) ReadAt(p []byte, off int64) (int, error) { return r.n(p), nil }

// within runs f and fails the test if it has not returned after limit, so
// that a hang fails instead of stopping the test binary.
func within(t *testing.T, limit time.Duration, f func()) time.Duration {
	t.Helper()
	done := make(chan struct{})
	start := time.Now()
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
		return time.Since(start)
	case <-time.After(limit):
		t.Fatalf("still running after %v", limit)
		return 0
	}
}

func openCPU(t *testing.T) *gpu.Device {
	t.Helper()
	dev, err := gpu.Open(context.Background(), gpu.WithBackends("cpu"))
	require.NoError(t, err)
	t.Cleanup(func() { dev.Close() })
	return dev
}

// requireStopped fails if reads keeps growing after the call returned.
func requireStopped(t *testing.T, reads *atomic.Int64) {
	t.Helper()
	before := reads.Load()
	time.Sleep(300 * time.Millisecond)
	require.Equal(t, before, reads.Load(), "the reader is still being read after the call returned")
}

// TestReadFromNoProgress gives up on a reader that returns nothing, with
// io.ErrNoProgress, long before the deadline.
func TestReadFromNoProgress(t *testing.T) {
	dev := openCPU(t)
	buf, err := dev.Alloc(1 << 20)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	r := &emptyReader{}
	within(t, 10*time.Second, func() { _, err = buf.ReadFromContext(ctx, r, nil) })
	require.ErrorIs(t, err, io.ErrNoProgress)
	require.Equal(t, errors.InvalidArgument, errors.CategoryOf(err), "%v", err)
	require.NoError(t, ctx.Err(), "given up before the deadline")
	requireStopped(t, &r.reads)
}

// TestReadFromSlowReader returns within about one read of the deadline, and
// of the device's Close, not after the chunk is full.
func TestReadFromSlowReader(t *testing.T) {
	t.Run("deadline", func(t *testing.T) {
		dev := openCPU(t)
		buf, err := dev.Alloc(1 << 20) // 25 s of this reader
		require.NoError(t, err)
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		r := &slowReader{}
		took := within(t, 10*time.Second, func() { _, err = buf.ReadFromContext(ctx, r, nil) })
		require.ErrorIs(t, err, context.DeadlineExceeded)
		require.Less(t, took, 2*time.Second)
		requireStopped(t, &r.reads)
	})
	t.Run("device closed", func(t *testing.T) {
		dev := openCPU(t)
		buf, err := dev.Alloc(1 << 20)
		require.NoError(t, err)
		r := &slowReader{}
		time.AfterFunc(200*time.Millisecond, func() { dev.Close() })
		took := within(t, 10*time.Second, func() { _, err = buf.ReadFrom(r) })
		require.Equal(t, errors.Closed, errors.CategoryOf(err), "%v", err)
		require.Less(t, took, 2*time.Second)
		requireStopped(t, &r.reads)
	})
}

// TestReadFromBadCounts refuses counts an io.Reader or io.ReaderAt must not
// return, without a panic.
func TestReadFromBadCounts(t *testing.T) {
	dev := openCPU(t)
	negative := func([]byte) int { return -1 }
	oversized := func(p []byte) int { return len(p) + 1 }
	for _, c := range []struct {
		name string
		r    io.Reader
	}{
		{"Read negative", countReader{negative}},
		{"Read oversized", countReader{oversized}},
		{"ReadAt negative", countReaderAt{bytes.NewReader(make([]byte, 1000)), negative}},
		{"ReadAt oversized", countReaderAt{bytes.NewReader(make([]byte, 1000)), oversized}},
	} {
		t.Run(c.name, func(t *testing.T) {
			buf, err := dev.Alloc(1000)
			require.NoError(t, err)
			defer buf.Close()
			var n int64
			require.NotPanics(t, func() { n, err = buf.ReadFrom(c.r) })
			require.Equal(t, errors.InvalidArgument, errors.CategoryOf(err), "%v", err)
			require.ErrorContains(t, err, "returned a count of")
			require.GreaterOrEqual(t, n, int64(0))
		})
	}
}

// TestWriteToRoundTrip writes buffers of several sizes back out, with
// progress, and what ReadFrom put in comes out.
func TestWriteToRoundTrip(t *testing.T) {
	dev := openCPU(t)
	for _, size := range []int{1, 1000, gpu.ReadFromChunk, 2*gpu.ReadFromChunk + 123} {
		data := patternBytes(size, byte(size))
		buf, err := dev.Alloc(int64(size))
		require.NoError(t, err)
		_, err = buf.ReadFrom(bytes.NewReader(data))
		require.NoError(t, err)

		var out bytes.Buffer
		n, err := buf.WriteTo(&out)
		require.NoError(t, err)
		require.Equal(t, int64(size), n)
		require.True(t, bytes.Equal(data, out.Bytes()), "size %d", size)

		out.Reset()
		var last int64
		n, err = buf.WriteToContext(context.Background(), &out, func(done, total int64) {
			require.GreaterOrEqual(t, done, last)
			require.Equal(t, int64(size), total)
			last = done
		})
		require.NoError(t, err)
		require.Equal(t, int64(size), n)
		require.Equal(t, int64(size), last)
		require.True(t, bytes.Equal(data, out.Bytes()), "size %d", size)
		require.NoError(t, buf.Close())
	}
}

// failingWriter accepts ok bytes, then fails, or writes short or returns a
// bad count.
type failingWriter struct {
	ok    int
	err   error
	count func(p []byte) int // what Write returns once ok is spent
}

func (w *failingWriter) Write(p []byte) (int, error) {
	if w.ok >= len(p) {
		w.ok -= len(p)
		return len(p), nil
	}
	if w.count != nil {
		return w.count(p), w.err
	}
	n := w.ok
	w.ok = 0
	return n, w.err
}

// TestWriteToFailingWriter stops at the writer's first failure and says why.
func TestWriteToFailingWriter(t *testing.T) {
	dev := openCPU(t)
	size := 3*gpu.ReadFromChunk + 5
	buf, err := dev.Alloc(int64(size))
	require.NoError(t, err)
	defer buf.Close()
	boom := errors.New("disk full")
	for _, c := range []struct {
		name  string
		w     io.Writer
		n     int64
		is    error
		cat   errors.Category // None: not checked (the writer's own error)
		words string
	}{
		{"error", &failingWriter{ok: gpu.ReadFromChunk + 10, err: boom}, gpu.ReadFromChunk + 10, boom, errors.None, "disk full"},
		{"short write", &failingWriter{ok: gpu.ReadFromChunk + 10}, gpu.ReadFromChunk + 10, io.ErrShortWrite, errors.None, "short write"},
		{"negative count", &failingWriter{count: func([]byte) int { return -1 }}, 0, nil, errors.InvalidArgument, "returned a count of -1"},
		{"oversized count", &failingWriter{count: func(p []byte) int { return len(p) + 1 }}, 0, nil, errors.InvalidArgument, "returned a count of"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var n int64
			require.NotPanics(t, func() { n, err = buf.WriteTo(c.w) })
			require.Error(t, err)
			require.Equal(t, c.n, n)
			if c.is != nil {
				require.ErrorIs(t, err, c.is)
			}
			if c.cat != errors.None {
				require.Equal(t, c.cat, errors.CategoryOf(err), "%v", err)
			}
			require.ErrorContains(t, err, c.words)
		})
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = buf.WriteToContext(ctx, io.Discard, nil)
	require.ErrorIs(t, err, context.Canceled)
	_, err = buf.WriteToContext(context.Background(), nil, nil)
	require.Equal(t, errors.InvalidArgument, errors.CategoryOf(err))
}
