package metal

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/errors"
	"github.com/anygpu/gpu/kernels"
)

func buf() backend.Arg         { return backend.Arg{Kind: backend.ArgBuffer} }
func u32(v uint32) backend.Arg { return backend.Arg{Kind: backend.ArgU32, Bits: uint64(v)} }
func f32(v float32) backend.Arg {
	return backend.Arg{Kind: backend.ArgF32, Bits: uint64(math.Float32bits(v))}
}
func kind(k backend.ArgKind) backend.Arg { return backend.Arg{Kind: k, Bits: 0x0102030405060708} }

// TestLayoutSgemm: sgemm(c, a, b, m, n, k, alpha, beta) binds c, a, b at
// [[buffer(0..2)]] and the struct {m, n, k, alpha, beta} at [[buffer(3)]],
// laid out as MSL lays out that struct.
func TestLayoutSgemm(t *testing.T) {
	args := []backend.Arg{buf(), buf(), buf(), u32(17), u32(31), u32(13), f32(0.5), f32(-2)}
	l, err := layoutArgs(args, nil)
	require.NoError(t, err)
	assert.Equal(t, 3, l.buffers)
	assert.Equal(t, 3, l.paramsIndex())
	require.Len(t, l.params, 24, "five 4-byte fields, rounded up to 8")
	le := binary.LittleEndian
	assert.Equal(t, uint32(17), le.Uint32(l.params[0:]))
	assert.Equal(t, uint32(31), le.Uint32(l.params[4:]))
	assert.Equal(t, uint32(13), le.Uint32(l.params[8:]))
	assert.Equal(t, float32(0.5), math.Float32frombits(le.Uint32(l.params[12:])))
	assert.Equal(t, float32(-2), math.Float32frombits(le.Uint32(l.params[16:])))
	assert.Zero(t, le.Uint32(l.params[20:]), "padding is zero")
}

// TestLayoutBuiltins: every built-in op binds its buffers first and its
// scalars at the next slot, byte for byte what backend.PackScalars packs.
func TestLayoutBuiltins(t *testing.T) {
	for op, kinds := range kernels.Params {
		args := make([]backend.Arg, len(kinds))
		nbuf := 0
		for i, k := range kinds {
			args[i] = backend.Arg{Kind: k, Bits: uint64(i*0x01010101 + 7)}
			if k == backend.ArgBuffer {
				nbuf++
			}
		}
		l, err := layoutArgs(args, make([]byte, 0, 64))
		require.NoError(t, err, op)
		assert.Equal(t, nbuf, l.buffers, op)
		assert.Equal(t, backend.PackScalars(args, false), l.params, op)
	}
}

// TestLayoutMatchesPackScalars over random argument lists of every kind,
// including 8-byte scalars after 4-byte ones (padding) and interleaved
// buffers.
func TestLayoutMatchesPackScalars(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	kinds := []backend.ArgKind{backend.ArgBuffer, backend.ArgF32, backend.ArgF64, backend.ArgI32, backend.ArgU32, backend.ArgI64, backend.ArgU64}
	scratch := make([]byte, 0, 8)
	for iter := 0; iter < 2000; iter++ {
		n := r.IntN(12)
		args := make([]backend.Arg, n)
		nbuf := 0
		for i := range args {
			args[i] = backend.Arg{Kind: kinds[r.IntN(len(kinds))], Bits: r.Uint64()}
			if args[i].Kind == backend.ArgBuffer {
				nbuf++
			}
		}
		l, err := layoutArgs(args, scratch)
		require.NoError(t, err)
		want := backend.PackScalars(args, false)
		if len(want) == 0 {
			assert.Nil(t, l.params, "no scalars: no params block, no setBytes")
		} else {
			assert.Equal(t, want, l.params)
			scratch = l.params[:0]
		}
		assert.Equal(t, nbuf, l.buffers)
	}
	l, err := layoutArgs([]backend.Arg{buf(), kind(backend.ArgU32), kind(backend.ArgF64)}, nil)
	require.NoError(t, err)
	assert.Len(t, l.params, 16, "a double after a uint is 8-aligned: 4 + 4 padding + 8")
}

func TestLayoutLimits(t *testing.T) {
	args := make([]backend.Arg, maxBufferBindings)
	for i := range args {
		args[i] = buf()
	}
	_, err := layoutArgs(args, nil)
	assert.NoError(t, err, "31 buffers and no scalars fit")
	_, err = layoutArgs(append(args, u32(1)), nil)
	assert.Equal(t, errors.InvalidArgument, errors.CategoryOf(err), "31 buffers and a params block do not")
	assert.Contains(t, err.Error(), "32 buffer slots")
	_, err = layoutArgs([]backend.Arg{buf(), {Kind: 0}}, nil)
	assert.Equal(t, errors.InvalidArgument, errors.CategoryOf(err), "an unset argument")
}

func TestCheckDispatch(t *testing.T) {
	d := func(x, y, z int) backend.Dim3 { return backend.Dim3{X: x, Y: y, Z: z} }
	ok := []struct{ grid, block backend.Dim3 }{
		{d(1, 0, 0), d(256, 0, 0)},
		{d(65535, 65535, 1), d(16, 16, 4)},
		{d(math.MaxUint32/1024, 1, 1), d(1024, 1, 1)}, // just under 2^32 threads in x
	}
	for _, tc := range ok {
		assert.NoError(t, checkDispatch("axpy", tc.grid, tc.block, 1024), "%v %v", tc.grid, tc.block)
	}
	err := checkDispatch("axpy", d(1, 1, 1), d(32, 32, 2), 1024)
	assert.Equal(t, errors.Launch, errors.CategoryOf(err), "2048 threads")
	err = checkDispatch("sgemm", d(1, 1, 1), d(32, 32, 1), 512)
	assert.Equal(t, errors.Launch, errors.CategoryOf(err), "more than the pipeline's maxTotalThreadsPerThreadgroup")
	assert.Contains(t, err.Error(), "at most 512")
	assert.Contains(t, err.Error(), "metal: launch sgemm: ")
	err = checkDispatch("axpy", d(1<<22, 1, 1), d(1024, 1, 1), 1024)
	assert.Equal(t, errors.Launch, errors.CategoryOf(err), "2^32 threads in x overflow the 32-bit positions")
	err = checkDispatch("axpy", d(1, 1<<20, 1), d(1, 1<<12, 1), 0)
	assert.Equal(t, errors.Launch, errors.CategoryOf(err), "in y too")
	assert.NoError(t, checkDispatch("axpy", d(1, 1, 1), d(4096, 1, 1), 0), "no pipeline limit known: the device limit applies (root package)")
}

func TestUniformByte(t *testing.T) {
	for v, want := range map[uint32]bool{0: true, 0xffffffff: true, 0x7f7f7f7f: true, 0x3f800000: false, 1: false, 0x01010100: false} {
		b, ok := uniformByte(v)
		assert.Equal(t, want, ok, "%#x", v)
		if ok {
			assert.Equal(t, byte(v), b)
		}
	}
}

func TestChunks(t *testing.T) {
	assert.Equal(t, [][2]int64{{0, 10}}, chunks(10, 16))
	assert.Equal(t, [][2]int64{{0, 4}, {4, 4}, {8, 2}}, chunks(10, 4))
	assert.Empty(t, chunks(0, 4))
	total := int64(0)
	for _, c := range chunks(5<<30+3, maxKernelChunk) {
		assert.LessOrEqual(t, c[1], int64(maxKernelChunk), "a chunk's count fits the kernels' 32-bit counters")
		assert.Equal(t, total, c[0])
		total += c[1]
	}
	assert.Equal(t, int64(5<<30+3), total)
	assert.Equal(t, 1, internalGroups(1, 256))
	assert.Equal(t, 4, internalGroups(1000, 256))
	assert.Equal(t, 65535, internalGroups(1<<40, 256), "grid-stride kernels: the group count is capped")
	assert.Equal(t, 5, internalGroups(5, 0), "a zero threadgroup size counts as 1")
}

func TestCompileConfig(t *testing.T) {
	c, err := compileConfigFrom(backend.CompileOptions{})
	require.NoError(t, err)
	assert.False(t, c.fastMath, "fast math is off unless asked for (Metal's own default is on)")
	assert.Zero(t, c.languageVersion, "the newest the OS supports")
	assert.Empty(t, c.macros)

	c, err = compileConfigFrom(backend.CompileOptions{
		FastMath: true,
		Defines:  map[string]string{"TILE": "16", "USE_FMA": "", "A": "x"},
		Flags:    []string{"-std=metal3.1", "-fno-fast-math"},
		Debug:    true, Arch: "applegpu_g14",
	})
	require.NoError(t, err)
	assert.False(t, c.fastMath, "the later flag wins")
	assert.Equal(t, uint64(3<<16+1), c.languageVersion)
	assert.Equal(t, [][2]string{{"A", "x"}, {"TILE", "16"}, {"USE_FMA", "1"}}, c.macros, "sorted; a bare define is 1, as -DNAME")

	for flag, want := range map[string]uint64{
		"-std=metal2.4": 2<<16 + 4, "-std=macos-metal2.3": 2<<16 + 3, "-std=ios-metal3.0": 3 << 16, "-std=metal4.0": 4 << 16,
	} {
		c, err := compileConfigFrom(backend.CompileOptions{Flags: []string{flag}})
		require.NoError(t, err, flag)
		assert.Equal(t, want, c.languageVersion, flag)
	}
	for _, flag := range []string{"-std=c++17", "-std=metal", "-std=metal3", "-std=metalx.y", "-std=xmetal3.0", "-std=metal0.9"} {
		_, err := compileConfigFrom(backend.CompileOptions{Flags: []string{flag}})
		assert.Equal(t, errors.InvalidArgument, errors.CategoryOf(err), flag)
	}
	_, err = compileConfigFrom(backend.CompileOptions{Flags: []string{"-O3"}})
	assert.Equal(t, errors.NotSupported, errors.CategoryOf(err))
	assert.Contains(t, err.Error(), `"-O3"`)
	_, err = compileConfigFrom(backend.CompileOptions{Defines: map[string]string{"": "1"}})
	assert.Equal(t, errors.InvalidArgument, errors.CategoryOf(err))
}

func TestFillPattern(t *testing.T) {
	for _, n := range []int{0, 4, 8, 12, 4096, 4100} {
		b := make([]byte, n+3)
		fillPattern(b[1:1+n], 0x3f800000) // an unaligned start
		assert.Zero(t, b[0], "before the range")
		for i := 0; i < n; i += 4 {
			require.Equal(t, uint32(0x3f800000), binary.LittleEndian.Uint32(b[1+i:]), "n=%d word %d", n, i/4)
		}
		assert.Zero(t, b[n+1], "after the range")
	}
}
