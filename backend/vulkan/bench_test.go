package vulkan_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/backend/vulkan"
	"github.com/anygpu/gpu/kernels"
	"github.com/stretchr/testify/require"
)

// The benchmarks report device time (timestamp queries around the work, as
// `gpu bench` measures) as GB/s, at the sizes of DESIGN §11 on a GPU and at
// a quarter of them on a software driver.

type benchEnv struct {
	dev *gpu.Device
	st  *gpu.Stream
	mod *gpu.Module
	sw  bool // software driver: smaller sizes
}

func newBenchEnv(b *testing.B, drv vulkan.Driver) *benchEnv {
	b.Helper()
	ctx := context.Background()
	if _, err := drv.Probe(ctx); err != nil {
		b.Skip("no Vulkan:", err)
	}
	dev, err := gpu.OpenDriver(ctx, drv, 0)
	require.NoError(b, err)
	b.Cleanup(func() { _ = dev.Close() })
	st, err := dev.NewStream()
	require.NoError(b, err)
	mod, err := dev.Compile(ctx, kernels.Source())
	require.NoError(b, err)
	t := dev.Info().Type
	return &benchEnv{dev: dev, st: st, mod: mod, sw: t == backend.TypeSoftware || t == backend.TypeCPU}
}

func (e *benchEnv) size(full int64) int64 {
	if e.sw {
		return full / 4
	}
	return full
}

// timed runs fn between two events and returns the device time.
func (e *benchEnv) timed(b *testing.B, fn func() error) time.Duration {
	ctx := context.Background()
	require.NoError(b, e.st.Synchronize(ctx))
	start, err := e.st.Record()
	require.NoError(b, err)
	defer start.Close()
	require.NoError(b, fn())
	end, err := e.st.Record()
	require.NoError(b, err)
	defer end.Close()
	require.NoError(b, e.st.Synchronize(ctx))
	d, err := end.Elapsed(start)
	require.NoError(b, err)
	return d
}

// run times b.N runs of fn (after one warm-up) and reports bytes/ns as GB/s.
func (e *benchEnv) run(b *testing.B, bytes int64, fn func() error) {
	e.timed(b, fn)
	var total time.Duration
	b.ResetTimer()
	for range b.N {
		total += e.timed(b, fn)
	}
	b.StopTimer()
	b.ReportMetric(float64(bytes)*float64(b.N)/float64(total.Nanoseconds()), "GB/s")
	b.ReportMetric(float64(total.Microseconds())/float64(b.N), "us/op")
}

func (e *benchEnv) kernel(b *testing.B, op string) *gpu.Kernel {
	k, err := e.mod.Kernel(op)
	require.NoError(b, err)
	return k
}

func (e *benchEnv) grid(n int) gpu.Dim3 {
	g := (n + 255) / 256
	return gpu.D1(min(g, e.dev.Info().MaxGridDim.X))
}

// BenchmarkSaxpy: y = a·x + y over 64 Mi float32 (12 bytes per element),
// the built-in axpy and, for comparison, a scalar version of it
// (testdata/axpy_scalar.spv: one float per thread).
func BenchmarkSaxpy(b *testing.B) {
	scalar, err := os.ReadFile("testdata/axpy_scalar.spv")
	require.NoError(b, err)
	for _, variant := range []string{"builtin", "scalar"} {
		b.Run(variant, func(b *testing.B) {
			e := newBenchEnv(b, vulkan.Driver{})
			n := int(e.size(64 << 20))
			x, err := gpu.AllocSlice[float32](e.dev, n)
			require.NoError(b, err)
			y, err := gpu.AllocSlice[float32](e.dev, n)
			require.NoError(b, err)
			require.NoError(b, e.st.Fill(x, 0, int64(4*n), 0x3f800000))
			require.NoError(b, e.st.Fill(y, 0, int64(4*n), 0))
			k := e.kernel(b, kernels.OpAxpy)
			if variant == "scalar" {
				mod, err := e.dev.Compile(context.Background(), gpu.Source{Name: "axpy", SPIRV: scalar})
				require.NoError(b, err)
				k, err = mod.Kernel("axpy")
				require.NoError(b, err)
			}
			e.run(b, 12*int64(n), func() error {
				return e.st.Launch(k, e.grid(n), gpu.D1(256), gpu.Buf(y), gpu.Buf(x), gpu.U32(uint32(n)), gpu.F32(0.5))
			})
		})
	}
}

// BenchmarkReduce: the two-pass reduce_sum over 64 Mi float32.
func BenchmarkReduce(b *testing.B) {
	e := newBenchEnv(b, vulkan.Driver{})
	n := int(e.size(64 << 20))
	x, err := gpu.AllocSlice[float32](e.dev, n)
	require.NoError(b, err)
	require.NoError(b, e.st.Fill(x, 0, int64(4*n), 0x3f800000))
	g := gpu.D1(min(e.grid(n).X, 1024))
	part, err := gpu.AllocSlice[float32](e.dev, g.X)
	require.NoError(b, err)
	total, err := gpu.AllocSlice[float32](e.dev, 1)
	require.NoError(b, err)
	k := e.kernel(b, kernels.OpReduceSum)
	e.run(b, 4*int64(n), func() error {
		if err := e.st.Launch(k, g, gpu.D1(256), gpu.Buf(part), gpu.Buf(x), gpu.U32(uint32(n))); err != nil {
			return err
		}
		return e.st.Launch(k, gpu.D1(1), gpu.D1(256), gpu.Buf(total), gpu.Buf(part), gpu.U32(uint32(g.X)))
	})
}

// BenchmarkSgemm: 4096³ (1024³ on software), reported as TFLOP/s in GB/s's
// place would be misleading: see the tflops metric.
func BenchmarkSgemm(b *testing.B) {
	e := newBenchEnv(b, vulkan.Driver{})
	n := 4096
	if e.sw {
		n = 512
	}
	a, err := gpu.AllocSlice[float32](e.dev, n*n)
	require.NoError(b, err)
	c, err := gpu.AllocSlice[float32](e.dev, n*n)
	require.NoError(b, err)
	require.NoError(b, e.st.Fill(a, 0, int64(4*n*n), 0x3f800000))
	k := e.kernel(b, kernels.OpSgemm)
	launch := func() error {
		return e.st.Launch(k, gpu.D2(n/16, n/16), gpu.D2(16, 16), gpu.Buf(c), gpu.Buf(a), gpu.Buf(a),
			gpu.U32(uint32(n)), gpu.U32(uint32(n)), gpu.U32(uint32(n)), gpu.F32(1), gpu.F32(0))
	}
	e.timed(b, launch)
	var total time.Duration
	b.ResetTimer()
	for range b.N {
		total += e.timed(b, launch)
	}
	b.ReportMetric(2*float64(n)*float64(n)*float64(n)*float64(b.N)/float64(total.Nanoseconds())/1e3, "TFLOP/s")
}

func transferPair(b *testing.B, e *benchEnv) (*gpu.Buffer, *gpu.Buffer, *gpu.HostBuffer, int64) {
	n := e.size(256 << 20)
	d1, err := e.dev.Alloc(n)
	require.NoError(b, err)
	d2, err := e.dev.Alloc(n)
	require.NoError(b, err)
	h, err := e.dev.AllocHost(n)
	require.NoError(b, err)
	b.Cleanup(func() { d1.Close(); d2.Close(); h.Close() })
	return d1, d2, h, n
}

// queues runs f on the default driver (large host transfers on the transfer
// queue where there is one) and with everything on the compute queue.
func queues(b *testing.B, f func(b *testing.B, e *benchEnv)) {
	b.Run("default", func(b *testing.B) { f(b, newBenchEnv(b, vulkan.Driver{})) })
	b.Run("compute-queue", func(b *testing.B) { f(b, newBenchEnv(b, vulkan.Driver{NoTransferQueue: true})) })
}

// BenchmarkCopyD2D: 256 MiB device to device; GB/s of bytes copied. "copy"
// is vkCmdCopyBuffer, "kernel" the backend's copy kernel (ANYGPU_VULKAN_D2D),
// "builtin" the built-in float copy op.
func BenchmarkCopyD2D(b *testing.B) {
	for _, mode := range []string{"copy", "kernel"} {
		b.Run(mode, func(b *testing.B) {
			b.Setenv(vulkan.EnvD2D, mode)
			e := newBenchEnv(b, vulkan.Driver{})
			d1, d2, _, n := transferPair(b, e)
			require.NoError(b, e.st.Fill(d1, 0, n, 1))
			e.run(b, n, func() error { return e.st.Copy(d2, 0, d1, 0, n) })
		})
	}
	b.Run("builtin", func(b *testing.B) {
		e := newBenchEnv(b, vulkan.Driver{})
		d1, d2, _, n := transferPair(b, e)
		k := e.kernel(b, kernels.OpCopy)
		floats := int(n / 4)
		e.run(b, n, func() error {
			return e.st.Launch(k, e.grid(floats), gpu.D1(256), gpu.Buf(d2), gpu.Buf(d1), gpu.U32(uint32(floats)))
		})
	})
}

// BenchmarkH2DPinned: 256 MiB from a host buffer (host-visible memory).
func BenchmarkH2DPinned(b *testing.B) {
	queues(b, func(b *testing.B, e *benchEnv) {
		d1, _, h, n := transferPair(b, e)
		e.run(b, n, func() error { return e.st.WriteHost(d1, 0, h, 0, n) })
	})
}

// BenchmarkD2HPinned: 256 MiB into a host buffer.
func BenchmarkD2HPinned(b *testing.B) {
	queues(b, func(b *testing.B, e *benchEnv) {
		d1, _, h, n := transferPair(b, e)
		e.run(b, n, func() error { return e.st.ReadHost(h, 0, d1, 0, n) })
	})
}

// BenchmarkH2DPageable: 256 MiB from a Go slice, staged; wall clock to the
// end of a Synchronize.
func BenchmarkH2DPageable(b *testing.B) {
	queues(b, func(b *testing.B, e *benchEnv) {
		d1, _, _, n := transferPair(b, e)
		src := make([]byte, n)
		ctx := context.Background()
		b.SetBytes(n)
		b.ResetTimer()
		for range b.N {
			require.NoError(b, e.st.Write(d1, 0, src))
			require.NoError(b, e.st.Synchronize(ctx))
		}
	})
}

// BenchmarkD2HPageable: 256 MiB into a Go slice; wall clock.
func BenchmarkD2HPageable(b *testing.B) {
	queues(b, func(b *testing.B, e *benchEnv) {
		d1, _, _, n := transferPair(b, e)
		dst := make([]byte, n)
		ctx := context.Background()
		b.SetBytes(n)
		b.ResetTimer()
		for range b.N {
			require.NoError(b, e.st.Read(dst, d1, 0))
			require.NoError(b, e.st.Synchronize(ctx))
		}
	})
}

// BenchmarkLaunch: back-to-back launches of a one-element fill, one
// Synchronize at the end; wall time per launch.
func BenchmarkLaunch(b *testing.B) {
	e := newBenchEnv(b, vulkan.Driver{})
	y, err := gpu.AllocSlice[float32](e.dev, 1)
	require.NoError(b, err)
	k := e.kernel(b, kernels.OpFill)
	ctx := context.Background()
	require.NoError(b, e.st.Launch(k, gpu.D1(1), gpu.D1(1), gpu.Buf(y), gpu.U32(1), gpu.F32(1)))
	require.NoError(b, e.st.Synchronize(ctx))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if err := e.st.Launch(k, gpu.D1(1), gpu.D1(1), gpu.Buf(y), gpu.U32(1), gpu.F32(1)); err != nil {
			b.Fatal(err)
		}
	}
	require.NoError(b, e.st.Synchronize(ctx))
}
