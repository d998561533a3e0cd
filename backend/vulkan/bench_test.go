package vulkan_test

import (
	"context"
	"os"
	"testing"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/backend/backendtest"
	"github.com/anygpu/gpu/backend/vulkan"
	"github.com/anygpu/gpu/kernels"
	"github.com/stretchr/testify/require"
)

// The benchmarks report device time (timestamp queries around the work, as
// `gpu bench` measures) as GB/s, at the sizes `gpu bench` uses on a GPU
// (64 Mi float32s for the kernels, 256 MiB for copies and transfers) and at
// a quarter of them on a software driver.

// benchEnv is the shared harness and whether the device is a software
// driver (smaller sizes).
type benchEnv struct {
	*backendtest.Bench
	sw bool
}

func newBenchEnv(b *testing.B, drv vulkan.Driver) *benchEnv {
	e := backendtest.OpenBench(b, drv)
	t := e.Dev.Info().Type
	return &benchEnv{Bench: e, sw: t == backend.TypeSoftware || t == backend.TypeCPU}
}

func (e *benchEnv) size(full int64) int64 {
	if e.sw {
		return full / 4
	}
	return full
}

// run times b.N runs of fn on the device (after one warm-up) and reports
// bytes per ns as GB/s and the device time of one run.
func (e *benchEnv) run(b *testing.B, bytes int64, fn func() error) {
	report(b, bytes, e.TimeOnDevice(b, 1, fn))
}

func report(b *testing.B, bytes int64, t backendtest.Timing) {
	b.ReportMetric(t.DeviceRate(float64(bytes))/1e9, "GB/s")
	b.ReportMetric(t.DeviceMicros(), "us/op")
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
			saxpy := e.NewSaxpy(b, n, 0.5)
			k := e.Kernel(b, kernels.OpAxpy)
			if variant == "scalar" {
				mod, err := e.Dev.Compile(context.Background(), gpu.Source{Name: "axpy", SPIRV: scalar})
				require.NoError(b, err)
				b.Cleanup(func() { _ = mod.Close() })
				k, err = mod.Kernel("axpy")
				require.NoError(b, err)
			}
			report(b, saxpy.Bytes(), saxpy.Time(b, k, (n+255)/256, 1))
			if variant == "builtin" { // the scalar kernel covers only the largest grid's threads
				saxpy.Check(b)
			}
		})
	}
}

// BenchmarkReduce: the two-pass reduce_sum over 64 Mi float32.
func BenchmarkReduce(b *testing.B) {
	e := newBenchEnv(b, vulkan.Driver{})
	n := int(e.size(64 << 20))
	report(b, 4*int64(n), e.Reduce(b, n))
}

// BenchmarkSgemm: 4096³ (512³ on software), reported as TFLOP/s (GB/s would
// be misleading).
func BenchmarkSgemm(b *testing.B) {
	e := newBenchEnv(b, vulkan.Driver{})
	n := 4096
	if e.sw {
		n = 512
	}
	t := e.Sgemm(b, n)
	b.ReportMetric(t.DeviceRate(2*float64(n)*float64(n)*float64(n))/1e12, "TFLOP/s")
}

// transferPair allocates two device buffers and a host buffer of 256 MiB (a
// quarter on software); they close with b.
func transferPair(b *testing.B, e *benchEnv) (*gpu.Buffer, *gpu.Buffer, *gpu.HostBuffer, int64) {
	n := e.size(256 << 20)
	h, err := e.Dev.AllocHost(n)
	require.NoError(b, err)
	b.Cleanup(func() { _ = h.Close() })
	return e.Alloc(b, n), e.Alloc(b, n), h, n
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
			require.NoError(b, e.Stream.Fill(d1, 0, n, 1))
			e.run(b, n, func() error { return e.Stream.Copy(d2, 0, d1, 0, n) })
		})
	}
	b.Run("builtin", func(b *testing.B) {
		e := newBenchEnv(b, vulkan.Driver{})
		d1, d2, _, n := transferPair(b, e)
		k := e.Kernel(b, kernels.OpCopy)
		floats := int(n / 4)
		e.run(b, n, func() error {
			return e.Stream.Launch(k, e.Grid(floats), gpu.D1(256), gpu.Buf(d2), gpu.Buf(d1), gpu.U32(uint32(floats)))
		})
	})
}

// BenchmarkH2DPinned: 256 MiB from a host buffer (host-visible memory).
func BenchmarkH2DPinned(b *testing.B) {
	queues(b, func(b *testing.B, e *benchEnv) {
		d1, _, h, n := transferPair(b, e)
		e.run(b, n, func() error { return e.Stream.WriteHost(d1, 0, h, 0, n) })
	})
}

// BenchmarkD2HPinned: 256 MiB into a host buffer.
func BenchmarkD2HPinned(b *testing.B) {
	queues(b, func(b *testing.B, e *benchEnv) {
		d1, _, h, n := transferPair(b, e)
		e.run(b, n, func() error { return e.Stream.ReadHost(h, 0, d1, 0, n) })
	})
}

// BenchmarkH2DPageable: 256 MiB from a Go slice, staged; wall clock to the
// end of a Synchronize.
func BenchmarkH2DPageable(b *testing.B) {
	queues(b, func(b *testing.B, e *benchEnv) {
		d1, _, _, n := transferPair(b, e)
		e.Pageable(b, backendtest.H2D, d1, make([]byte, n))
	})
}

// BenchmarkD2HPageable: 256 MiB into a Go slice; wall clock.
func BenchmarkD2HPageable(b *testing.B) {
	queues(b, func(b *testing.B, e *benchEnv) {
		d1, _, _, n := transferPair(b, e)
		e.Pageable(b, backendtest.D2H, d1, make([]byte, n))
	})
}

// BenchmarkLaunch: back-to-back launches of a one-element fill, one
// Synchronize at the end; wall time per launch.
func BenchmarkLaunch(b *testing.B) {
	newBenchEnv(b, vulkan.Driver{}).LaunchThroughput(b)
}
