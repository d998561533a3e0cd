//go:build cgo

package webgpu_test

import (
	"strconv"
	"testing"

	"github.com/anygpu/gpu/backend/backendtest"
	"github.com/anygpu/gpu/backend/webgpu"
	"github.com/anygpu/gpu/kernels"
)

// openBench is the benchmark harness on the first WebGPU adapter, and the
// most bytes it binds in one storage buffer, at most full.
func openBench(b *testing.B, full int64) (*backendtest.Bench, int64) {
	e := backendtest.OpenBench(b, webgpu.Driver{})
	if s, err := strconv.ParseInt(e.Dev.Info().Extra["max_storage_binding"], 10, 64); err == nil {
		return e, min(full, s)
	}
	return e, full
}

// BenchmarkSaxpy times one axpy launch (y = a·x + y) over 64 Mi float32s
// (fewer where the adapter binds less than 256 MiB per buffer), as `gpu
// bench` does: grid n/256, block 256, between two events, after which the
// stream is synchronized. Reported: saxpy_GB/s from the events' device time
// (12 bytes of traffic per element: x and y read, y written) and wall_GB/s
// from the host clock around launch and Synchronize.
func BenchmarkSaxpy(b *testing.B) {
	e, size := openBench(b, 4*(64<<20))
	n := int(size / 4 &^ 255)
	saxpy := e.NewSaxpy(b, n, 2)
	t := saxpy.Time(b, e.Kernel(b, kernels.OpAxpy), (n+255)/256, 3)
	saxpy.Check(b)
	b.ReportMetric(t.DeviceRate(float64(saxpy.Bytes()))/1e9, "saxpy_GB/s")
	b.ReportMetric(t.WallRate(float64(saxpy.Bytes()))/1e9, "wall_GB/s")
	b.ReportMetric(float64(n), "elements")
}

// BenchmarkLaunch is one small launch (fill of 256 elements) and a
// Synchronize: the round trip through encoding, submission and polling.
func BenchmarkLaunch(b *testing.B) {
	backendtest.OpenBench(b, webgpu.Driver{}).LaunchSync(b, 256)
}

// BenchmarkLaunchThroughput is back-to-back launches with one Synchronize
// at the end, as `gpu bench` measures launch_us: ns/op is the cost per
// launch from enqueue to done with the queue kept full; enqueue_ns the
// host's time in Launch alone.
func BenchmarkLaunchThroughput(b *testing.B) {
	backendtest.OpenBench(b, webgpu.Driver{}).LaunchThroughput(b)
}

// BenchmarkCopyD2D copies 256 MiB between two buffers (fewer bytes where the
// adapter binds less per buffer); copy_GB/s counts the bytes copied.
func BenchmarkCopyD2D(b *testing.B) {
	e, n := openBench(b, 256<<20)
	n &^= 255
	src, dst := e.Alloc(b, n), e.Alloc(b, n)
	t := e.TimeOnDevice(b, 1, func() error { return e.Stream.Copy(dst, 0, src, 0, n) })
	b.ReportMetric(t.DeviceRate(float64(n))/1e9, "copy_GB/s")
}
