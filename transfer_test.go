package gpu_test

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/errors"
	"github.com/stretchr/testify/require"
)

func patternBytes(n int, seed byte) []byte {
	p := make([]byte, n)
	for i := range p {
		p[i] = byte(i*131+i>>9) ^ seed
	}
	return p
}

// smallWrites is an io.WriterTo that writes in pieces of 1000 bytes, and a
// large writer that writes everything at once.
type smallWrites struct{ data []byte }

func (s *smallWrites) Read(p []byte) (int, error) { panic("ReadFrom must use WriteTo") }

func (s *smallWrites) WriteTo(w io.Writer) (int64, error) {
	var total int64
	for len(s.data) > 0 {
		n, err := w.Write(s.data[:min(1000, len(s.data))])
		total += int64(n)
		s.data = s.data[n:]
		if err != nil {
			return total, err
		}
	}
	return total, nil
}

// TestReadFromReaders fills buffers from every kind of reader ReadFrom
// treats differently: ReaderAt+Seeker (read in parallel), WriterTo, and plain.
func TestReadFromReaders(t *testing.T) {
	ctx := context.Background()
	dev, err := gpu.Open(ctx, gpu.WithBackends("cpu"))
	require.NoError(t, err)
	defer dev.Close()
	dir := t.TempDir()
	for _, size := range []int{1, 1000, gpu.ReadFromChunk, 3*gpu.ReadFromChunk + 12345, 9*gpu.ReadFromChunk + 1} {
		data := patternBytes(size, byte(size))
		path := filepath.Join(dir, "data")
		require.NoError(t, os.WriteFile(path, data, 0o644))
		readers := []struct {
			name string
			r    func() io.Reader
		}{
			{"bytes.Reader", func() io.Reader { return bytes.NewReader(data) }},
			{"strings.Reader", func() io.Reader { return strings.NewReader(string(data)) }},
			{"bytes.Buffer", func() io.Reader { return bytes.NewBuffer(bytes.Clone(data)) }},
			{"small writes", func() io.Reader { return &smallWrites{data: data} }},
			{"plain", func() io.Reader { return struct{ io.Reader }{bytes.NewReader(data)} }},
			{"file", func() io.Reader {
				f, err := os.Open(path)
				require.NoError(t, err)
				t.Cleanup(func() { f.Close() })
				return f
			}},
		}
		for _, rd := range readers {
			for _, extra := range []int{0, 1, 5000} { // the buffer is larger than the data, or exactly as large
				buf, err := dev.Alloc(int64(size + extra))
				require.NoError(t, err)
				var calls int
				var last int64
				r := rd.r()
				n, err := buf.ReadFromContext(ctx, r, func(done, total int64) {
					calls++
					require.GreaterOrEqual(t, done, last, "progress goes forward")
					require.Equal(t, int64(size+extra), total)
					last = done
				})
				require.NoError(t, err, "%s size %d extra %d", rd.name, size, extra)
				require.Equal(t, int64(size), n, rd.name)
				require.Equal(t, n, last, "%s: the last progress call reports everything", rd.name)
				got := make([]byte, size)
				_, err = buf.ReadAt(got, 0)
				require.NoError(t, err)
				require.True(t, bytes.Equal(got, data), "%s size %d", rd.name, size)
				if s, ok := r.(io.Seeker); ok { // left at the end, as a sequential read leaves it
					pos, err := s.Seek(0, io.SeekCurrent)
					require.NoError(t, err)
					require.Equal(t, int64(size), pos, rd.name)
				}
				require.NoError(t, buf.Close())
			}
			// Too much data: the buffer is filled, then an InvalidArgument error.
			if size > 1 {
				buf, err := dev.Alloc(int64(size - 1))
				require.NoError(t, err)
				n, err := buf.ReadFrom(rd.r())
				require.Equal(t, errors.InvalidArgument, errors.CategoryOf(err), "%s: %v", rd.name, err)
				require.Equal(t, int64(size-1), n, rd.name)
				got := make([]byte, size-1)
				_, err = buf.ReadAt(got, 0)
				require.NoError(t, err)
				require.True(t, bytes.Equal(got, data[:size-1]), rd.name)
				require.NoError(t, buf.Close())
			}
		}
	}
}

// TestReadFromOffset reads a ReaderAt from where its offset is, not from 0.
func TestReadFromOffset(t *testing.T) {
	ctx := context.Background()
	dev, err := gpu.Open(ctx, gpu.WithBackends("cpu"))
	require.NoError(t, err)
	defer dev.Close()
	data := patternBytes(2*gpu.ReadFromChunk+77, 3)
	r := bytes.NewReader(data)
	_, err = r.Seek(1234, io.SeekStart)
	require.NoError(t, err)
	buf, err := dev.Alloc(int64(len(data)))
	require.NoError(t, err)
	defer buf.Close()
	n, err := buf.ReadFrom(r)
	require.NoError(t, err)
	require.Equal(t, int64(len(data)-1234), n)
	got := make([]byte, n)
	_, err = buf.ReadAt(got, 0)
	require.NoError(t, err)
	require.True(t, bytes.Equal(got, data[1234:]))
	require.Equal(t, 0, r.Len())
}

// TestReadFromCancel stops a ReadFrom whose context ends.
func TestReadFromCancel(t *testing.T) {
	dev, err := gpu.Open(context.Background(), gpu.WithBackends("cpu"))
	require.NoError(t, err)
	defer dev.Close()
	data := patternBytes(20*gpu.ReadFromChunk, 5) // more than two of the pieces a WriterTo's large write is cut into
	for _, r := range []io.Reader{bytes.NewReader(data), bytes.NewBuffer(data), struct{ io.Reader }{bytes.NewReader(data)}} {
		buf, err := dev.Alloc(int64(len(data)))
		require.NoError(t, err)
		ctx, cancel := context.WithCancel(context.Background())
		_, err = buf.ReadFromContext(ctx, r, func(done, total int64) { cancel() })
		require.Error(t, err)
		require.ErrorIs(t, err, context.Canceled, "%T", r)
		cancel()
		require.NoError(t, buf.Close())
	}
}
