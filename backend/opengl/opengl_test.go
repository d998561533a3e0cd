//go:build linux

package opengl_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/backend/backendtest"
	"github.com/anygpu/gpu/backend/opengl"
	"github.com/anygpu/gpu/errors"
	"github.com/anygpu/gpu/kernels"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// openDevice opens OpenGL device 0, or skips the test when there is none
// (a failure when ANYGPU_TEST_REQUIRE names opengl).
func openDevice(t testing.TB) *gpu.Device {
	t.Helper()
	backendtest.SkipUnlessAvailable(t, opengl.Driver{})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dev, err := gpu.OpenDriver(ctx, opengl.Driver{}, 0)
	require.NoError(t, err)
	t.Cleanup(func() { _ = dev.Close() })
	return dev
}

func ctx(t testing.TB) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return c
}

func compile(t *testing.T, dev *gpu.Device, src gpu.Source, opts ...gpu.CompileOption) *gpu.Kernel {
	t.Helper()
	mod, err := dev.Compile(ctx(t), src, opts...)
	require.NoError(t, err, "log:\n%s", errors.LogOf(err))
	t.Cleanup(func() { _ = mod.Close() })
	k, err := mod.Kernel(src.Name)
	require.NoError(t, err)
	return k
}

func requireCategory(t *testing.T, err error, want errors.Category, contains ...string) {
	t.Helper()
	require.Error(t, err)
	require.Equal(t, want, errors.CategoryOf(err), "%v", err)
	require.NotEmpty(t, errors.Hint(err))
	for _, s := range contains {
		require.Contains(t, err.Error(), s)
	}
}

// TestScalarABI checks that PackScalars matches the std140 uniform block a
// GLSL kernel declares: mixed 4- and 8-byte scalars arrive bit for bit.
func TestScalarABI(t *testing.T) {
	dev := openDevice(t)
	k := compile(t, dev, gpu.Source{Name: "abi", GLSL: `#version 430
layout(local_size_x = 1) in;
layout(std430, binding = 0) buffer Out { uint o[]; };
layout(std140, binding = 1) uniform Params { uint a; float b; int c; double d; uint e; };
void main() {
	uvec2 dd = unpackDouble2x32(d);
	o[0] = a; o[1] = floatBitsToUint(b); o[2] = uint(c); o[3] = dd.x; o[4] = dd.y; o[5] = e;
}
`})
	out, err := gpu.AllocSlice[uint32](dev, 6)
	require.NoError(t, err)
	defer out.Close()
	st := dev.DefaultStream()
	require.NoError(t, st.Launch(k, gpu.D1(1), gpu.D1(1), gpu.Buf(out), gpu.U32(7), gpu.F32(1.5), gpu.I32(-3), gpu.F64(2.25), gpu.U32(9)))
	got, err := gpu.ToSlice[uint32](ctx(t), out)
	require.NoError(t, err)
	d := math.Float64bits(2.25)
	neg3 := int32(-3)
	assert.Equal(t, []uint32{7, math.Float32bits(1.5), uint32(neg3), uint32(d), uint32(d >> 32), 9}, got)
}

// TestWorkGroupSize: a kernel whose local_size is fixed refuses another
// block with a Launch error naming both; one sized by the ANYGPU_BLOCK
// macros is compiled per block.
func TestWorkGroupSize(t *testing.T) {
	dev := openDevice(t)
	st := dev.DefaultStream()
	fixed := compile(t, dev, gpu.Source{Name: "fixed", GLSL: `#version 430
layout(local_size_x = 64) in;
layout(std430, binding = 0) buffer Out { uint o[]; };
void main() { o[gl_GlobalInvocationID.x] = gl_GlobalInvocationID.x; }
`})
	attrs, err := fixed.Attributes()
	require.NoError(t, err)
	assert.Equal(t, gpu.Dim3{X: 64, Y: 1, Z: 1}, attrs.WorkGroupSize)
	out, err := gpu.AllocSlice[uint32](dev, 128)
	require.NoError(t, err)
	defer out.Close()
	err = st.Launch(fixed, gpu.D1(4), gpu.D1(32), gpu.Buf(out))
	requireCategory(t, err, errors.Launch, "(64,1,1)", "(32,1,1)")
	require.NoError(t, st.Launch(fixed, gpu.D1(2), gpu.D1(64), gpu.Buf(out)))
	got, err := gpu.ToSlice[uint32](ctx(t), out)
	require.NoError(t, err)
	for i, v := range got {
		require.Equal(t, uint32(i), v)
	}

	sized := compile(t, dev, gpu.Source{Name: "sized", GLSL: `#version 430
#ifndef ANYGPU_BLOCK_X
#define ANYGPU_BLOCK_X 8
#define ANYGPU_BLOCK_Y 1
#define ANYGPU_BLOCK_Z 1
#endif
layout(local_size_x = ANYGPU_BLOCK_X, local_size_y = ANYGPU_BLOCK_Y, local_size_z = ANYGPU_BLOCK_Z) in;
layout(std430, binding = 0) buffer Out { uint o[]; };
void main() { if (gl_LocalInvocationIndex == 0u) o[gl_WorkGroupID.x] = gl_WorkGroupSize.x * gl_WorkGroupSize.y * gl_WorkGroupSize.z; }
`})
	attrs, err = sized.Attributes()
	require.NoError(t, err)
	assert.Equal(t, gpu.Dim3{}, attrs.WorkGroupSize, "the launch chooses the size")
	for _, b := range []gpu.Dim3{gpu.D1(8), gpu.D1(3), gpu.D2(4, 5), {X: 2, Y: 3, Z: 4}} {
		require.NoError(t, st.Launch(sized, gpu.D1(2), b, gpu.Buf(out)), "block %v", b)
		got, err := gpu.ToSlice[uint32](ctx(t), out)
		require.NoError(t, err)
		require.Equal(t, uint32(b.Count()), got[1], "block %v", b)
	}
}

// TestBuiltinBlocks runs the built-in kernels with blocks other than the
// default ones: 1-D ops with odd and 2-D blocks, reductions with blocks that
// are not powers of two, transpose and sgemm through every code path.
func TestBuiltinBlocks(t *testing.T) {
	dev := openDevice(t)
	st := dev.DefaultStream()
	mod, err := dev.Compile(ctx(t), kernels.Source())
	require.NoError(t, err)
	defer mod.Close()
	kernel := func(op string) *gpu.Kernel {
		k, err := mod.Kernel(op)
		require.NoError(t, err)
		return k
	}
	attrs, err := kernel(kernels.OpAxpy).Attributes()
	require.NoError(t, err)
	assert.Equal(t, gpu.Dim3{}, attrs.WorkGroupSize, "the built-ins follow the launch's block")
	upload := func(x []float32) *gpu.Buffer {
		b, err := gpu.FromSlice(ctx(t), dev, x)
		require.NoError(t, err)
		t.Cleanup(func() { _ = b.Close() })
		return b
	}
	rnd := func(n int, seed float32) []float32 {
		x := make([]float32, n)
		for i := range x {
			x[i] = float32(math.Sin(float64(seed) + float64(i)*0.37))
		}
		return x
	}

	for _, n := range []int{3, 1003} {
		testBlocks1D(t, dev, kernel, upload, rnd(n, 1), rnd(n, 2))
	}
	for _, b := range []gpu.Dim3{gpu.D2(16, 16), gpu.D2(8, 8), gpu.D2(32, 4), gpu.D2(24, 40), gpu.D2(32, 32), gpu.D2(128, 8), gpu.D2(3, 5), {X: 4, Y: 4, Z: 2}} {
		for _, sh := range [][3]int{{37, 53, 19}, {130, 70, 33}} {
			m, nn, kk := sh[0], sh[1], sh[2]
			t.Run(fmt.Sprintf("sgemm/%dx%dx%d/block%v", m, nn, kk, b), func(t *testing.T) {
				a, bb, c := rnd(m*kk, 3), rnd(kk*nn, 4), rnd(m*nn, 5)
				ba, bbb, bc := upload(a), upload(bb), upload(c)
				grid := gpu.D2(max(1, nn/(2*b.X)), max(1, m/(3*b.Y))) // fewer groups than tiles: grid-stride
				require.NoError(t, st.Launch(kernel(kernels.OpSgemm), grid, b, gpu.Buf(bc), gpu.Buf(ba), gpu.Buf(bbb),
					gpu.U32(uint32(m)), gpu.U32(uint32(nn)), gpu.U32(uint32(kk)), gpu.F32(1.5), gpu.F32(-0.5)))
				got, err := gpu.ToSlice[float32](ctx(t), bc)
				require.NoError(t, err)
				want := kernels.RefSgemm(c, a, bb, m, nn, kk, 1.5, -0.5)
				for i := range got {
					require.InDelta(t, want[i], got[i], 1e-4, "C[%d]", i)
				}
			})
			t.Run(fmt.Sprintf("transpose/%dx%d/block%v", m, nn, b), func(t *testing.T) {
				in := rnd(m*nn, 6)
				bin := upload(in)
				out, err := gpu.AllocSlice[float32](dev, m*nn)
				require.NoError(t, err)
				defer out.Close()
				grid := gpu.D2(max(1, nn/(2*b.X)), max(1, m/(2*b.Y)))
				require.NoError(t, st.Launch(kernel(kernels.OpTranspose), grid, b, gpu.Buf(out), gpu.Buf(bin), gpu.U32(uint32(m)), gpu.U32(uint32(nn))))
				got, err := gpu.ToSlice[float32](ctx(t), out)
				require.NoError(t, err)
				require.Equal(t, kernels.RefTranspose(in, m, nn), got)
			})
		}
	}
	// sgemm with beta 0 never reads C: NaN there does not reach the result.
	t.Run("sgemm/beta0", func(t *testing.T) {
		a, bb := rnd(20*30, 7), rnd(30*10, 8)
		c := make([]float32, 20*10)
		for i := range c {
			c[i] = float32(math.NaN())
		}
		bc := upload(c)
		require.NoError(t, st.Launch(kernel(kernels.OpSgemm), gpu.D2(1, 2), gpu.D2(16, 16), gpu.Buf(bc), gpu.Buf(upload(a)), gpu.Buf(upload(bb)),
			gpu.U32(20), gpu.U32(10), gpu.U32(30), gpu.F32(1), gpu.F32(0)))
		got, err := gpu.ToSlice[float32](ctx(t), bc)
		require.NoError(t, err)
		want := kernels.RefSgemm(make([]float32, 200), a, bb, 20, 10, 30, 1, 0)
		for i := range got {
			require.InDelta(t, want[i], got[i], 1e-4, "C[%d]", i)
		}
	})
}

// TestLaunchChecks: bindings the arguments do not cover, a uniform block off
// the portable ABI's binding, and a buffer larger than the largest shader
// storage block are refused before anything runs.
func TestLaunchChecks(t *testing.T) {
	dev := openDevice(t)
	st := dev.DefaultStream()
	a, err := gpu.AllocSlice[uint32](dev, 4)
	require.NoError(t, err)
	defer a.Close()
	gap := compile(t, dev, gpu.Source{Name: "gap", GLSL: `#version 430
layout(local_size_x = 1) in;
layout(std430, binding = 0) buffer A { uint a[]; };
layout(std430, binding = 2) buffer C { uint c[]; };
void main() { a[0] = c[0]; }
`})
	requireCategory(t, st.Launch(gap, gpu.D1(1), gpu.D1(1), gpu.Buf(a), gpu.Buf(a)), errors.InvalidArgument, "binding 2")
	offABI := compile(t, dev, gpu.Source{Name: "off", GLSL: `#version 430
layout(local_size_x = 1) in;
layout(std430, binding = 0) buffer A { uint a[]; };
layout(std140, binding = 3) uniform P { uint v; };
void main() { a[0] = v; }
`})
	requireCategory(t, st.Launch(offABI, gpu.D1(1), gpu.D1(1), gpu.Buf(a), gpu.U32(1)), errors.InvalidArgument, "binding 3")
	require.NoError(t, st.Synchronize(ctx(t)), "refused launches leave no error behind")

	maxBlock := dev.Info().Extra["max_storage_block"]
	var limit int64
	_, err = fmt.Sscan(maxBlock, &limit)
	require.NoError(t, err)
	if limit > 512<<20 {
		t.Logf("largest storage block %d bytes: the oversize binding is not tried", limit)
		return
	}
	big, err := dev.Alloc(limit + 4)
	require.NoError(t, err, "buffers larger than a storage block can be allocated")
	defer big.Close()
	require.NoError(t, st.Fill(big, limit-4, 8, 0x01020304), "and filled")
	mod, err := dev.Compile(ctx(t), kernels.Source())
	require.NoError(t, err)
	defer mod.Close()
	fill, err := mod.Kernel(kernels.OpFill)
	require.NoError(t, err)
	requireCategory(t, st.Launch(fill, gpu.D1(1), gpu.D1(256), gpu.Buf(big), gpu.U32(1), gpu.F32(0)), errors.InvalidArgument, "GL_MAX_SHADER_STORAGE_BLOCK_SIZE")
	got := make([]byte, 8)
	require.NoError(t, st.Read(got, big, limit-4))
	require.NoError(t, st.Synchronize(ctx(t)))
	require.Equal(t, []byte{4, 3, 2, 1, 4, 3, 2, 1}, got)
}

// TestCompile: defines reach the source, flags are refused, logs carry the
// source's own line numbers, a source without Params is one kernel named
// after it.
func TestCompile(t *testing.T) {
	dev := openDevice(t)
	st := dev.DefaultStream()
	src := gpu.Source{Name: "define", GLSL: `#version 430
layout(local_size_x = 1) in;
layout(std430, binding = 0) buffer Out { uint o[]; };
void main() { o[0] = uint(VALUE); }
`}
	k := compile(t, dev, src, gpu.Define("VALUE", "42"))
	out, err := gpu.AllocSlice[uint32](dev, 1)
	require.NoError(t, err)
	defer out.Close()
	require.NoError(t, st.Launch(k, gpu.D1(1), gpu.D1(1), gpu.Buf(out)))
	got, err := gpu.ToSlice[uint32](ctx(t), out)
	require.NoError(t, err)
	require.Equal(t, []uint32{42}, got)

	_, err = dev.Compile(ctx(t), src, gpu.CompilerFlags("-O3"))
	requireCategory(t, err, errors.NotSupported)
	_, err = dev.Compile(ctx(t), src, gpu.Define("BAD NAME", "1"))
	requireCategory(t, err, errors.InvalidArgument)

	_, err = dev.Compile(ctx(t), gpu.Source{Name: "lines", GLSL: "#version 430\nlayout(local_size_x = 1) in;\n\nvoid main() { not_a_function(); }\n"})
	requireCategory(t, err, errors.Compilation)
	log := errors.LogOf(err)
	t.Logf("log:\n%s", log)
	// Mesa writes 0:4(15), NVIDIA 0(4) : error: line 4 either way.
	require.Regexp(t, regexp.MustCompile(`\b0[:(]4\b`), log, "the error is on line 4 of the source")
	require.Contains(t, log, "kernel lines")

	// Several kernels, one of them broken: the error names it.
	_, err = dev.Compile(ctx(t), gpu.Source{Name: "two", GLSL: "#version 430\nlayout(local_size_x = 1) in;\n#ifdef ANYGPU_KERNEL_bad\nvoid main() { nope(); }\n#else\nvoid main() {}\n#endif\n",
		Params: map[string][]gpu.ArgKind{"good": nil, "bad": nil}})
	requireCategory(t, err, errors.Compilation, "1 of 2", "bad")
	require.False(t, strings.Contains(errors.LogOf(err), "kernel good"), "only the broken kernel's log")
}

// TestStreamsShareOneQueue: work of two streams runs in call order, so a
// consumer sees what a producer enqueued before it even without Wait.
func TestStreamsShareOneQueue(t *testing.T) {
	dev := openDevice(t)
	s1, err := dev.NewStream()
	require.NoError(t, err)
	defer s1.Close()
	s2, err := dev.NewStream()
	require.NoError(t, err)
	defer s2.Close()
	b, err := gpu.AllocSlice[uint32](dev, 1<<16)
	require.NoError(t, err)
	defer b.Close()
	for i := uint32(1); i <= 20; i++ {
		require.NoError(t, s1.Fill(b, 0, 4<<16, i))
		got := make([]uint32, 1)
		require.NoError(t, gpu.Download(s2, got, b))
		require.NoError(t, s2.Synchronize(ctx(t)))
		require.Equal(t, i, got[0])
	}
	ev, err := s1.Record()
	require.NoError(t, err)
	require.NoError(t, s2.Wait(ev))
	require.NoError(t, ev.Synchronize(ctx(t)))
	done, err := ev.Done()
	require.NoError(t, err)
	require.True(t, done)
	free, total, err := dev.MemInfo()
	if errors.Is(err, errors.NotSupported) {
		t.Logf("mem info: %v", err)
	} else {
		require.NoError(t, err)
		require.Positive(t, total)
		require.GreaterOrEqual(t, free, int64(0))
	}
}

// TestDeviceInfo logs what the device reports.
func TestDeviceInfo(t *testing.T) {
	dev := openDevice(t)
	info, err := json.MarshalIndent(dev.Info(), "", "  ")
	require.NoError(t, err)
	t.Logf("%s", info)
	require.Equal(t, "opengl", dev.Info().Backend)
	require.NotEmpty(t, dev.Info().Extra["max_storage_block"])
}

// testBlocks1D runs axpy and the two-pass dot over x and y with many blocks
// and grids, fewer and more work items than elements.
func testBlocks1D(t *testing.T, dev *gpu.Device, kernel func(string) *gpu.Kernel, upload func([]float32) *gpu.Buffer, x, y []float32) {
	st := dev.DefaultStream()
	n := len(x)
	bx := upload(x)
	for _, b := range []gpu.Dim3{gpu.D1(1), gpu.D1(7), gpu.D1(100), gpu.D2(8, 4), {X: 4, Y: 2, Z: 2}, gpu.D1(1024)} {
		for _, grid := range []gpu.Dim3{gpu.D1(1), gpu.D1(3), gpu.D2(2, 2), gpu.D1((n + b.X - 1) / b.X)} {
			t.Run(fmt.Sprintf("axpy/n=%d/block%v/grid%v", n, b, grid), func(t *testing.T) {
				by := upload(y)
				require.NoError(t, st.Launch(kernel(kernels.OpAxpy), grid, b, gpu.Buf(by), gpu.Buf(bx), gpu.U32(uint32(n)), gpu.F32(0.5)))
				got, err := gpu.ToSlice[float32](ctx(t), by)
				require.NoError(t, err)
				for i := range got {
					want := float32(0.5*x[i]) + y[i]
					fused := float32(math.FMA(0.5, float64(x[i]), float64(y[i])))
					require.True(t, kernels.AlmostEqual(got[i], want, 2, 0) || kernels.AlmostEqual(got[i], fused, 2, 0), "y[%d] = %v, want %v", i, got[i], want)
				}
			})
			t.Run(fmt.Sprintf("reduce/n=%d/block%v/grid%v", n, b, grid), func(t *testing.T) {
				partial, err := gpu.AllocSlice[float32](dev, grid.X)
				require.NoError(t, err)
				defer partial.Close()
				require.NoError(t, st.Launch(kernel(kernels.OpDot), grid, b, gpu.Buf(partial), gpu.Buf(bx), gpu.Buf(bx), gpu.U32(uint32(n))))
				require.NoError(t, st.Launch(kernel(kernels.OpReduceSum), gpu.D1(1), b, gpu.Buf(partial), gpu.Buf(partial), gpu.U32(uint32(grid.X))))
				got, err := gpu.ToSlice[float32](ctx(t), partial)
				require.NoError(t, err)
				want := kernels.RefDot(x, x)
				require.InDelta(t, want, float64(got[0]), kernels.ReductionTolerance(n)*math.Abs(want)+1e-6)
			})
		}
	}
}
