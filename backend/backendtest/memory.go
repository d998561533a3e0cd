package backendtest

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/errors"
	"github.com/stretchr/testify/require"
)

// pattern returns n deterministic pseudo-random bytes.
func pattern(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	b := make([]byte, n)
	for i := 0; i+8 <= n; i += 8 {
		v := r.Uint64()
		for j := 0; j < 8; j++ {
			b[i+j] = byte(v >> (8 * j))
		}
	}
	for i := n &^ 7; i < n; i++ {
		b[i] = byte(r.Uint32())
	}
	return b
}

// guardWord is the value the bytes around a written range are filled with.
const guardWord = 0xA5C3_5A3C

func guardBytes(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(uint32(guardWord) >> (8 * (i % 4)))
	}
	return b
}

func (s *suite) roundTripSizes(t *testing.T) []int {
	sizes := []int{1, 2, 3, 4, 5, 7, 63, 64, 65, 1000, 4095, 4096, 4097, 65537, 1 << 20, 1<<20 + 3, 16<<20 + 1, 64 << 20}
	if !testing.Short() {
		sizes = append(sizes, 256<<20)
	}
	return slices.DeleteFunc(sizes, func(n int) bool { return !s.fits(t, int64(n+4097+8)) })
}

// fits reports whether a buffer of size bytes is within the device's
// largest-buffer limit, logging the sizes a device cannot hold.
func (s *suite) fits(t testing.TB, size int64) bool {
	if max := s.info.MaxBufferBytes; max > 0 && size > max {
		t.Logf("%d bytes exceed the device's largest buffer (%d): not tested", size, max)
		return false
	}
	return true
}

// testRoundTrip writes patterns at odd offsets into guarded buffers and reads
// the whole buffer back: the range must hold the pattern, the rest the guard.
func (s *suite) testRoundTrip(t *testing.T) {
	ctx := ctxT(t)
	st := s.dev.DefaultStream()
	for _, n := range s.roundTripSizes(t) {
		for _, off := range []int{0, 1, 3, 4, 4097} {
			if n >= 16<<20 && off != 0 && off != 3 {
				continue // big sizes: two offsets are enough
			}
			if testing.Short() && n >= 16<<20 && off != bigOffsetShort(n) {
				continue // -short: one offset per big size, odd and aligned
			}
			t.Run(fmt.Sprintf("%dB@%d", n, off), func(t *testing.T) {
				const tail = 5
				total := off + n + tail
				total4 := (total + 3) &^ 3
				buf, err := s.dev.Alloc(int64(total4))
				require.NoError(t, err)
				defer buf.Close()
				require.NoError(t, st.Fill(buf, 0, int64(total4), guardWord))
				want := pattern(n, uint64(n*31+off))
				require.NoError(t, st.Write(buf, int64(off), want))
				got := make([]byte, total4)
				require.NoError(t, st.Read(got, buf, 0))
				require.NoError(t, st.Synchronize(ctx))
				guard := guardBytes(total4)
				if !bytes.Equal(got[:off], guard[:off]) {
					t.Fatalf("bytes before offset %d were changed", off)
				}
				if !bytes.Equal(got[off:off+n], want) {
					t.Fatalf("round trip of %d bytes at %d: first difference at %d", n, off, firstDiff(got[off:off+n], want))
				}
				if !bytes.Equal(got[off+n:], guard[off+n:]) {
					t.Fatalf("bytes after the range were changed (first at %d)", off+n+firstDiff(got[off+n:], guard[off+n:]))
				}
				// And a partial read at an odd offset of the written range.
				if n > 2 {
					part := make([]byte, n-2)
					require.NoError(t, st.Read(part, buf, int64(off+1)))
					require.NoError(t, st.Synchronize(ctx))
					require.True(t, bytes.Equal(part, want[1:n-1]), "partial read at offset %d", off+1)
				}
			})
		}
	}
}

// bigOffsetShort is the one offset -short round-trips a big size at: the
// odd offset for the odd size (16 MiB + 1) and offset 0 for the largest,
// which still takes its own allocation path (dedicated memory, no pooling).
func bigOffsetShort(n int) int {
	if n%4 != 0 {
		return 3
	}
	return 0
}

func firstDiff(a, b []byte) int {
	for i := range a {
		if i >= len(b) || a[i] != b[i] {
			return i
		}
	}
	return len(a)
}

func (s *suite) testReaderWriterAt(t *testing.T) {
	buf, err := s.dev.Alloc(1000)
	require.NoError(t, err)
	defer buf.Close()
	data := pattern(1000, 7)
	n, err := buf.WriteAt(data, 0)
	require.NoError(t, err)
	require.Equal(t, 1000, n)

	got := make([]byte, 100)
	n, err = buf.ReadAt(got, 450)
	require.NoError(t, err)
	require.Equal(t, 100, n)
	require.Equal(t, data[450:550], got)

	// Past the end: a short read with io.EOF, as io.ReaderAt requires.
	n, err = buf.ReadAt(got, 950)
	require.ErrorIs(t, err, io.EOF)
	require.Equal(t, 50, n)
	require.Equal(t, data[950:], got[:50])
	_, err = buf.ReadAt(got, 1000)
	require.ErrorIs(t, err, io.EOF)

	// A write that does not fit is refused whole.
	_, err = buf.WriteAt(make([]byte, 10), 995)
	requireCategory(t, err, errors.InvalidArgument)
	_, err = buf.ReadAt(got, -1)
	requireCategory(t, err, errors.InvalidArgument)

	// io.NewSectionReader works over a Buffer.
	all, err := io.ReadAll(io.NewSectionReader(buf, 10, 500))
	require.NoError(t, err)
	require.Equal(t, data[10:510], all)
}

func (s *suite) testReadFrom(t *testing.T) {
	ctx := ctxT(t)
	for _, tc := range []struct {
		name      string
		bufSize   int
		dataSize  int
		wantError bool
	}{
		{"small", 1000, 1000, false},
		{"short reader", 1 << 20, 1000, false},
		{"several chunks", 3*gpu.ReadFromChunk + 12345, 3*gpu.ReadFromChunk + 12345, false},
		{"exact chunk", gpu.ReadFromChunk, gpu.ReadFromChunk, false},
		{"too much data", 4096, 4097, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			buf, err := s.dev.Alloc(int64(tc.bufSize))
			require.NoError(t, err)
			defer buf.Close()
			data := pattern(tc.dataSize, uint64(tc.dataSize))
			var calls int
			var last int64
			n, err := buf.ReadFromContext(ctx, iotestHalfReader{bytes.NewReader(data)}, func(done, total int64) {
				calls++
				require.GreaterOrEqual(t, done, last, "progress goes forward")
				require.Equal(t, int64(tc.bufSize), total)
				last = done
			})
			if tc.wantError {
				requireCategory(t, err, errors.InvalidArgument)
				return
			}
			require.NoError(t, err)
			require.Equal(t, int64(tc.dataSize), n)
			require.Equal(t, n, last, "the last progress call reports everything")
			require.Positive(t, calls)
			got := make([]byte, tc.dataSize)
			_, err = buf.ReadAt(got, 0)
			require.NoError(t, err)
			require.True(t, bytes.Equal(got, data), "ReadFrom content (first difference at %d)", firstDiff(got, data))
		})
	}
	// The plain io.ReaderFrom form.
	buf, err := s.dev.Alloc(100)
	require.NoError(t, err)
	defer buf.Close()
	n, err := buf.ReadFrom(bytes.NewReader(pattern(100, 1)))
	require.NoError(t, err)
	require.Equal(t, int64(100), n)
}

// iotestHalfReader returns at most half of what is asked, as network readers
// do, to exercise chunk assembly.
type iotestHalfReader struct{ r io.Reader }

func (h iotestHalfReader) Read(p []byte) (int, error) {
	if len(p) > 1 {
		p = p[:(len(p)+1)/2]
	}
	return h.r.Read(p)
}

func (s *suite) testHostBuffers(t *testing.T) {
	ctx := ctxT(t)
	st := s.dev.DefaultStream()
	const n = 3<<20 + 7
	hb, err := s.dev.AllocHost(n)
	require.NoError(t, err)
	defer hb.Close()
	require.Len(t, hb.Bytes(), n)
	require.Equal(t, int64(n), hb.Size())
	copy(hb.Bytes(), pattern(n, 99))
	buf, err := s.dev.Alloc(n + 1)
	require.NoError(t, err)
	defer buf.Close()
	require.NoError(t, st.WriteHost(buf, 1, hb, 0, n))
	back, err := s.dev.AllocHost(n)
	require.NoError(t, err)
	defer back.Close()
	require.NoError(t, st.ReadHost(back, 0, buf, 1, n))
	require.NoError(t, st.Synchronize(ctx))
	require.True(t, bytes.Equal(hb.Bytes(), back.Bytes()), "host buffer round trip")

	requireCategory(t, st.WriteHost(buf, 0, hb, 1, n), errors.InvalidArgument, "host range past the end")
	requireCategory(t, st.ReadHost(back, 0, buf, 2, n), errors.InvalidArgument, "device range past the end")
	requireCategory(t, st.WriteHost(buf, 0, nil, 0, 1), errors.InvalidArgument, "nil host buffer")
}

func (s *suite) testTyped(t *testing.T) {
	ctx := ctxT(t)
	src := []float32{1.5, -2, 3.25, 0, 1e-30, 65504}
	b, err := gpu.FromSlice(ctx, s.dev, src)
	require.NoError(t, err)
	defer b.Close()
	require.Equal(t, int64(len(src)*4), b.Size())
	got, err := gpu.ToSlice[float32](ctx, b)
	require.NoError(t, err)
	require.Equal(t, src, got)

	ints := []int64{-1, 1 << 40, 7}
	ib, err := gpu.AllocSlice[int64](s.dev, len(ints))
	require.NoError(t, err)
	defer ib.Close()
	st := s.dev.DefaultStream()
	require.NoError(t, gpu.Upload(st, ib, ints))
	back := make([]int64, len(ints))
	require.NoError(t, gpu.Download(st, back, ib))
	require.NoError(t, st.Synchronize(ctx))
	require.Equal(t, ints, back)

	_, err = gpu.AllocSlice[float32](s.dev, 0)
	requireCategory(t, err, errors.InvalidArgument)
	odd, err := s.dev.Alloc(6)
	require.NoError(t, err)
	defer odd.Close()
	_, err = gpu.ToSlice[float32](ctx, odd)
	requireCategory(t, err, errors.InvalidArgument, "6 bytes are not whole float32s")
}

func (s *suite) testCopy(t *testing.T) {
	ctx := ctxT(t)
	st := s.dev.DefaultStream()
	for _, n := range []int{1, 3, 4096, 1<<20 + 5, 32 << 20} {
		if !s.fits(t, int64(n+8)) {
			continue
		}
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			src, err := s.dev.Alloc(int64(n + 3))
			require.NoError(t, err)
			defer src.Close()
			dst, err := s.dev.Alloc(int64(n + 8))
			require.NoError(t, err)
			defer dst.Close()
			data := pattern(n+3, uint64(n))
			require.NoError(t, st.Write(src, 0, data))
			require.NoError(t, st.Copy(dst, 5, src, 3, int64(n)))
			got := make([]byte, n)
			require.NoError(t, st.Read(got, dst, 5))
			require.NoError(t, st.Synchronize(ctx))
			require.True(t, bytes.Equal(got, data[3:3+n]), "D2D copy of %d bytes (first difference at %d)", n, firstDiff(got, data[3:3+n]))
		})
	}
	// Within one buffer: disjoint ranges work, overlapping ones are refused.
	b, err := s.dev.Alloc(64)
	require.NoError(t, err)
	defer b.Close()
	data := pattern(64, 3)
	require.NoError(t, st.Write(b, 0, data))
	require.NoError(t, st.Copy(b, 32, b, 0, 32))
	got := make([]byte, 64)
	require.NoError(t, st.Read(got, b, 0))
	require.NoError(t, st.Synchronize(ctx))
	require.Equal(t, data[:32], got[32:])
	requireCategory(t, st.Copy(b, 8, b, 0, 16), errors.InvalidArgument, "overlapping copy")
}

func (s *suite) testFill(t *testing.T) {
	ctx := ctxT(t)
	st := s.dev.DefaultStream()
	for _, tc := range []struct {
		size, off, n int
		value        uint32
	}{
		{4, 0, 4, 0xdeadbeef},
		{64, 8, 16, 0},
		{4096, 4, 4088, 0x3f800000},
		{3 << 20, 1 << 20, 1<<20 + 4, 0x01020304},
		{64 << 20, 0, 64 << 20, 0xffffffff},
	} {
		if !s.fits(t, int64(tc.size)) {
			continue
		}
		t.Run(fmt.Sprintf("%d@%d/%d", tc.n, tc.off, tc.size), func(t *testing.T) {
			b, err := s.dev.Alloc(int64(tc.size))
			require.NoError(t, err)
			defer b.Close()
			before := pattern(tc.size, 5)
			require.NoError(t, st.Write(b, 0, before))
			require.NoError(t, st.Fill(b, int64(tc.off), int64(tc.n), tc.value))
			got := make([]byte, tc.size)
			require.NoError(t, st.Read(got, b, 0))
			require.NoError(t, st.Synchronize(ctx))
			want := append([]byte(nil), before...)
			for i := tc.off; i < tc.off+tc.n; i++ {
				want[i] = byte(tc.value >> (8 * ((i - tc.off) % 4)))
			}
			require.True(t, bytes.Equal(got, want), "fill (first difference at %d)", firstDiff(got, want))
		})
	}
	b, err := s.dev.Alloc(64)
	require.NoError(t, err)
	defer b.Close()
	requireCategory(t, st.Fill(b, 2, 8, 0), errors.InvalidArgument, "unaligned offset")
	requireCategory(t, st.Fill(b, 0, 6, 0), errors.InvalidArgument, "size not a multiple of 4")
	requireCategory(t, st.Fill(b, 60, 8, 0), errors.InvalidArgument, "past the end")
}
