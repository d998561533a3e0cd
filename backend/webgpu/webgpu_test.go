//go:build cgo

package webgpu_test

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/backend/backendtest"
	"github.com/anygpu/gpu/backend/webgpu"
	"github.com/anygpu/gpu/errors"
	"github.com/anygpu/gpu/kernels"
	"github.com/anygpu/gpu/profiling"
)

func TestConformance(t *testing.T) { backendtest.Run(t, webgpu.Driver{}) }

// TestConformanceHostTiming runs the suite again with events timed on the
// host clock, as on adapters without timestamp queries.
func TestConformanceHostTiming(t *testing.T) {
	if testing.Short() {
		t.Skip("the host-timed conformance run is left out under -short")
	}
	defer webgpu.SetForceHostTiming(true)()
	backendtest.Run(t, webgpu.Driver{})
}

func openDev(t testing.TB, opts ...gpu.Option) *gpu.Device {
	t.Helper()
	backendtest.SkipUnlessAvailable(t, webgpu.Driver{})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dev, err := gpu.OpenDriver(ctx, webgpu.Driver{}, 0, opts...)
	require.NoError(t, err)
	t.Cleanup(func() { _ = dev.Close() })
	return dev
}

func builtin(t testing.TB, dev *gpu.Device, op string) *gpu.Kernel {
	t.Helper()
	mod, err := dev.Compile(context.Background(), kernels.Source())
	require.NoError(t, err)
	t.Cleanup(func() { _ = mod.Close() })
	k, err := mod.Kernel(op)
	require.NoError(t, err)
	return k
}

func randoms(n int, seed uint64) []float32 {
	r := rand.New(rand.NewPCG(seed, 7))
	out := make([]float32, n)
	for i := range out {
		out[i] = r.Float32()
	}
	return out
}

// TestLargeGrid launches 1-D grids of 262144 groups (65537 under -short),
// more than WebGPU's 65535 per dimension: the backend folds them and the
// kernels unfold them.
func TestLargeGrid(t *testing.T) {
	dev := openDev(t)
	ctx := context.Background()
	// -short keeps both grids wider than 65535 groups (reduce_sum's folds
	// into two rows, the second part idle) with a quarter of the elements.
	const block = 64
	groups, fillBlock := 262144, 256
	if testing.Short() {
		groups, fillBlock = 65537, 64
	}
	n := block * groups
	x, y := randoms(n, 1), randoms(n, 2)
	bx, err := gpu.FromSlice(ctx, dev, x)
	require.NoError(t, err)
	defer bx.Close()
	by, err := gpu.FromSlice(ctx, dev, y)
	require.NoError(t, err)
	defer by.Close()
	st := dev.DefaultStream()

	require.NoError(t, st.Launch(builtin(t, dev, kernels.OpAxpy), gpu.D1(groups), gpu.D1(block), gpu.Buf(by), gpu.Buf(bx), gpu.U32(uint32(n)), gpu.F32(2)))
	got, err := gpu.ToSlice[float32](ctx, by)
	require.NoError(t, err)
	for i := 0; i < n; i += 997 {
		want := float64(2*x[i]) + float64(y[i])
		require.InDelta(t, want, float64(got[i]), 1e-6*math.Abs(want)+1e-6, "y[%d]", i)
	}
	require.Equal(t, float32(math.FMA(2, float64(x[n-1]), float64(y[n-1]))), got[n-1], "the last element")

	// reduce_sum keeps the Go kernels' partials: group g of G groups of B
	// threads sums x[g·B : g·B+B] when G·B = n.
	partials, err := gpu.AllocSlice[float32](dev, groups)
	require.NoError(t, err)
	defer partials.Close()
	require.NoError(t, st.Launch(builtin(t, dev, kernels.OpReduceSum), gpu.D1(groups), gpu.D1(block), gpu.Buf(partials), gpu.Buf(bx), gpu.U32(uint32(n))))
	p, err := gpu.ToSlice[float32](ctx, partials)
	require.NoError(t, err)
	for g := 0; g < groups; g += 101 {
		var want float64
		for _, v := range x[g*block : g*block+block] {
			want += float64(v)
		}
		require.InDelta(t, want, float64(p[g]), 1e-5*want, "partial %d", g)
	}

	// A 2-D grid wider than 65535: groups with y != 0 do nothing in 1-D
	// ops, and fill covers everything either way.
	out, err := gpu.AllocSlice[float32](dev, 70000*fillBlock)
	require.NoError(t, err)
	defer out.Close()
	require.NoError(t, st.Launch(builtin(t, dev, kernels.OpFill), gpu.D2(70000, 2), gpu.D1(fillBlock), gpu.Buf(out), gpu.U32(uint32(70000*fillBlock)), gpu.F32(3)))
	f, err := gpu.ToSlice[float32](ctx, out)
	require.NoError(t, err)
	for i := 0; i < len(f); i += 4099 {
		require.Equal(t, float32(3), f[i], "fill[%d]", i)
	}
	require.Equal(t, float32(3), f[len(f)-1])
}

// TestReducePartials checks partials for blocks other than the WGSL
// kernels' 256 threads, with grids that stride over the data several times.
func TestReducePartials(t *testing.T) {
	dev := openDev(t)
	ctx := context.Background()
	const n = 100003
	x := randoms(n, 3)
	bx, err := gpu.FromSlice(ctx, dev, x)
	require.NoError(t, err)
	defer bx.Close()
	for _, geo := range []struct{ grid, block int }{{7, 1}, {13, 100}, {3, 1000}, {1, 1024}, {500, 512}} {
		out, err := gpu.AllocSlice[float32](dev, geo.grid)
		require.NoError(t, err)
		require.NoError(t, dev.DefaultStream().Launch(builtin(t, dev, kernels.OpReduceSum), gpu.D1(geo.grid), gpu.D1(geo.block), gpu.Buf(out), gpu.Buf(bx), gpu.U32(uint32(n))))
		got, err := gpu.ToSlice[float32](ctx, out)
		require.NoError(t, err)
		G, B := geo.grid, geo.block
		for g := 0; g < G; g++ {
			var want float64
			for c := 0; ; c++ {
				lo := c*G*B + g*B
				if lo >= n {
					break
				}
				for _, v := range x[lo:min(lo+B, n)] {
					want += float64(v)
				}
			}
			require.InDelta(t, want, float64(got[g]), kernels.ReductionTolerance(n)*want+1e-6, "grid %d block %d partial %d", G, B, g)
		}
		require.NoError(t, out.Close())
	}
}

// TestUnalignedTransfers moves bytes at every offset and length modulo 4,
// and copies within one buffer, through the byte-patching kernels.
func TestUnalignedTransfers(t *testing.T) {
	dev := openDev(t)
	ctx := context.Background()
	st := dev.DefaultStream()
	const size = 64
	b, err := dev.Alloc(size)
	require.NoError(t, err)
	defer b.Close()
	ref := make([]byte, size)
	for i := range ref {
		ref[i] = byte(i)
	}
	require.NoError(t, st.Write(b, 0, ref))
	r := rand.New(rand.NewPCG(5, 5))
	for iter := 0; iter < 60; iter++ {
		off, n := r.IntN(size), 0
		n = r.IntN(size - off + 1)
		if iter%2 == 0 {
			data := make([]byte, n)
			for i := range data {
				data[i] = byte(r.Uint32())
			}
			require.NoError(t, st.Write(b, int64(off), data))
			copy(ref[off:], data)
		} else if n > 0 && off+2*n <= size {
			dst := off + n + r.IntN(size-off-2*n+1)
			require.NoError(t, st.Copy(b, int64(dst), b, int64(off), int64(n)))
			copy(ref[dst:dst+n], ref[off:off+n])
		}
		got := make([]byte, size)
		require.NoError(t, st.Read(got, b, 0))
		require.NoError(t, st.Synchronize(ctx))
		require.Equal(t, ref, got, "iteration %d (offset %d, %d bytes)", iter, off, n)
	}
}

// TestTiming checks that events carry device time and the profiler gets it.
func TestTiming(t *testing.T) {
	p := profiling.New()
	dev := openDev(t, gpu.WithProfiler(p))
	ctx := context.Background()
	const n = 1 << 20
	x, err := gpu.AllocSlice[float32](dev, n)
	require.NoError(t, err)
	defer x.Close()
	st := dev.DefaultStream()
	fill := builtin(t, dev, kernels.OpFill)
	start, err := st.Record()
	require.NoError(t, err)
	defer start.Close()
	for i := 0; i < 20; i++ {
		require.NoError(t, st.Launch(fill, gpu.D1(n/256), gpu.D1(256), gpu.Buf(x), gpu.U32(n), gpu.F32(1)))
	}
	end, err := st.Record()
	require.NoError(t, err)
	defer end.Close()
	require.NoError(t, end.Synchronize(ctx))
	d, err := end.Elapsed(start)
	require.NoError(t, err)
	require.Positive(t, d)
	require.Less(t, d, 10*time.Second)
	recs := dev.Profiler().Records()
	require.NotEmpty(t, recs)
	info := dev.Info()
	t.Logf("20 fills of 4 MiB: %v (%s, timestamp period %.3g ns)", d, info.Extra["timing"], info.TimestampPeriodNs)
}

// TestCompileDialects compiles GLSL (the OpenGL dialect, uniform block at
// binding n) and refuses broken SPIR-V without crashing.
func TestCompileDialects(t *testing.T) {
	dev := openDev(t)
	ctx := context.Background()
	src := gpu.Source{
		Name: "glsl_scale",
		GLSL: `#version 430
layout(local_size_x = 64) in;
layout(std430, binding = 0) buffer Y { float y[]; };
layout(std430, binding = 1) buffer X { float x[]; };
layout(std140, binding = 2) uniform P { uint n; float a; };
void main() {
#ifdef ANYGPU_KERNEL_glsl_scale
	uint i = gl_GlobalInvocationID.x;
	if (i < n) y[i] = a * x[i];
#endif
}
`,
		Params: map[string][]gpu.ArgKind{"glsl_scale": {gpu.KindBuffer, gpu.KindBuffer, gpu.KindU32, gpu.KindF32}},
	}
	mod, err := dev.Compile(ctx, src)
	require.NoError(t, err)
	defer mod.Close()
	k, err := mod.Kernel("glsl_scale")
	require.NoError(t, err)
	x := []float32{1, 2, 3, 4, 5}
	bx, err := gpu.FromSlice(ctx, dev, x)
	require.NoError(t, err)
	defer bx.Close()
	by, err := gpu.AllocSlice[float32](dev, len(x))
	require.NoError(t, err)
	defer by.Close()
	require.NoError(t, dev.DefaultStream().Launch(k, gpu.D1(1), gpu.D1(64), gpu.Buf(by), gpu.Buf(bx), gpu.U32(uint32(len(x))), gpu.F32(3)))
	got, err := gpu.ToSlice[float32](ctx, by)
	require.NoError(t, err)
	require.Equal(t, []float32{3, 6, 9, 12, 15}, got)

	for _, spirv := range [][]byte{{1, 2, 3}, make([]byte, 64), {0x03, 0x02, 0x23, 0x07, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff}} {
		_, err = dev.Compile(ctx, gpu.Source{Name: "bad_spirv", SPIRV: spirv})
		require.Error(t, err)
		require.Equal(t, errors.Compilation, errors.CategoryOf(err), "%v", err)
		require.NotEmpty(t, errors.LogOf(err))
	}

	// Without Params, WGSL kernels are made on first use.
	lazy, err := dev.Compile(ctx, gpu.Source{Name: "lazy", WGSL: kernels.Source().WGSL})
	require.NoError(t, err)
	defer lazy.Close()
	_, err = lazy.Kernel(kernels.OpCopy)
	require.NoError(t, err)
	_, err = lazy.Kernel("missing")
	require.Equal(t, errors.InvalidArgument, errors.CategoryOf(err), "%v", err)
}

// TestDeviceInfo checks what the backend reports beyond the suite.
func TestDeviceInfo(t *testing.T) {
	dev := openDev(t)
	info := dev.Info()
	require.Equal(t, 1<<31-1, info.MaxGridDim.X, "grids are folded past 65535")
	require.Positive(t, info.MaxBufferBytes)
	require.NotEmpty(t, info.APIVersion)
	require.NotEmpty(t, info.Extra["timing"])
	require.NotEmpty(t, info.Extra["max_storage_binding"])
	t.Logf("%s: %s, %s, max buffer %d, storage binding %s, threads/block %d, timing %s",
		info.Name, info.Type, info.APIVersion, info.MaxBufferBytes, info.Extra["max_storage_binding"], info.MaxThreadsPerBlock, info.Extra["timing"])
}

// TestSmallBuffers launches built-in kernels with buffers too small for
// their sizes (the root does not check them): WebGPU clamps the accesses
// (package kernels: such a launch may write part of a buffer), nothing
// faults, and the device goes on: a launch that fits then computes what it
// should. (Without a pool, so that buffers have the size asked for.)
func TestSmallBuffers(t *testing.T) {
	dev := openDev(t, gpu.WithPool(gpu.NoPool))
	ctx := context.Background()
	st := dev.DefaultStream()
	ones := make([]float32, 256)
	for i := range ones {
		ones[i] = 1
	}
	y, err := gpu.FromSlice(ctx, dev, ones)
	require.NoError(t, err)
	defer y.Close()
	x, err := gpu.AllocSlice[float32](dev, 4096)
	require.NoError(t, err)
	defer x.Close()
	require.NoError(t, st.Launch(builtin(t, dev, kernels.OpAxpy), gpu.D1(16), gpu.D1(256), gpu.Buf(y), gpu.Buf(x), gpu.U32(4096), gpu.F32(2)))
	require.NoError(t, st.Launch(builtin(t, dev, kernels.OpFill), gpu.D1(16), gpu.D1(256), gpu.Buf(y), gpu.U32(4096), gpu.F32(2)))
	require.NoError(t, st.Launch(builtin(t, dev, kernels.OpSgemm), gpu.D2(4, 4), gpu.D2(16, 16),
		gpu.Buf(y), gpu.Buf(x), gpu.Buf(x), gpu.U32(64), gpu.U32(64), gpu.U32(64), gpu.F32(1), gpu.F32(0)))
	require.NoError(t, st.Launch(builtin(t, dev, kernels.OpTranspose), gpu.D2(4, 4), gpu.D2(16, 16),
		gpu.Buf(y), gpu.Buf(x), gpu.U32(64), gpu.U32(64)))
	require.NoError(t, st.Launch(builtin(t, dev, kernels.OpFill), gpu.D1(1), gpu.D1(256), gpu.Buf(y), gpu.U32(256), gpu.F32(1)))
	got, err := gpu.ToSlice[float32](ctx, y)
	require.NoError(t, err)
	require.Equal(t, ones, got)
}
