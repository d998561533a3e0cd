//go:build cgo

package webgpu_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/kernels"
)

// BenchmarkSaxpy times one axpy launch (y = a·x + y) over 64 Mi float32s
// (fewer where the adapter binds less than 256 MiB per buffer), as `gpu
// bench` does: grid n/256, block 256, between two events, after which the
// stream is synchronized. Reported: saxpy_GB/s from the events' device time
// (12 bytes of traffic per element: x and y read, y written) and wall_GB/s
// from the host clock around launch and Synchronize.
func BenchmarkSaxpy(b *testing.B) {
	dev := openDev(b)
	ctx := context.Background()
	n := 64 << 20
	if s, err := strconv.ParseInt(dev.Info().Extra["max_storage_binding"], 10, 64); err == nil && int64(4*n) > s {
		n = int(s / 4 &^ 255)
	}
	x, err := gpu.AllocSlice[float32](dev, n)
	if err != nil {
		b.Fatal(err)
	}
	defer x.Close()
	y, err := gpu.AllocSlice[float32](dev, n)
	if err != nil {
		b.Fatal(err)
	}
	defer y.Close()
	st := dev.DefaultStream()
	if err := st.Fill(x, 0, int64(4*n), 0x3f800000); err != nil {
		b.Fatal(err)
	}
	if err := st.Fill(y, 0, int64(4*n), 0); err != nil {
		b.Fatal(err)
	}
	axpy := builtin(b, dev, kernels.OpAxpy)
	grid, block := gpu.D1((n+255)/256), gpu.D1(256)
	launch := func() error {
		return st.Launch(axpy, grid, block, gpu.Buf(y), gpu.Buf(x), gpu.U32(uint32(n)), gpu.F32(2))
	}
	for i := 0; i < 3; i++ { // warm up
		if err := launch(); err != nil {
			b.Fatal(err)
		}
	}
	if err := st.Synchronize(ctx); err != nil {
		b.Fatal(err)
	}
	var device, wall time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		start, err := st.Record()
		if err != nil {
			b.Fatal(err)
		}
		if err := launch(); err != nil {
			b.Fatal(err)
		}
		end, err := st.Record()
		if err != nil {
			b.Fatal(err)
		}
		if err := st.Synchronize(ctx); err != nil {
			b.Fatal(err)
		}
		wall += time.Since(t0)
		d, err := end.Elapsed(start)
		if err != nil {
			b.Fatal(err)
		}
		device += d
		_ = start.Close()
		_ = end.Close()
	}
	b.StopTimer()
	bytes := 12 * float64(n) * float64(b.N)
	b.ReportMetric(bytes/device.Seconds()/1e9, "saxpy_GB/s")
	b.ReportMetric(bytes/wall.Seconds()/1e9, "wall_GB/s")
	b.ReportMetric(float64(n), "elements")
}

// BenchmarkLaunch is one small launch (fill of 256 elements) and a
// Synchronize: the round trip through encoding, submission and polling.
func BenchmarkLaunch(b *testing.B) {
	dev := openDev(b)
	ctx := context.Background()
	y, err := gpu.AllocSlice[float32](dev, 256)
	if err != nil {
		b.Fatal(err)
	}
	defer y.Close()
	fill := builtin(b, dev, kernels.OpFill)
	st := dev.DefaultStream()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := st.Launch(fill, gpu.D1(1), gpu.D1(256), gpu.Buf(y), gpu.U32(256), gpu.F32(1)); err != nil {
			b.Fatal(err)
		}
		if err := st.Synchronize(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLaunchThroughput is back-to-back launches with one Synchronize
// at the end, as `gpu bench` measures launch_us: ns/op is the cost per
// launch from enqueue to done with the queue kept full; enqueue_ns the
// host's time in Launch alone.
func BenchmarkLaunchThroughput(b *testing.B) {
	dev := openDev(b)
	y, err := gpu.AllocSlice[float32](dev, 256)
	if err != nil {
		b.Fatal(err)
	}
	defer y.Close()
	fill := builtin(b, dev, kernels.OpFill)
	st := dev.DefaultStream()
	b.ResetTimer()
	t0 := time.Now()
	for i := 0; i < b.N; i++ {
		if err := st.Launch(fill, gpu.D1(1), gpu.D1(1), gpu.Buf(y), gpu.U32(1), gpu.F32(1)); err != nil {
			b.Fatal(err)
		}
	}
	enqueue := time.Since(t0)
	if err := st.Synchronize(context.Background()); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(enqueue.Nanoseconds())/float64(b.N), "enqueue_ns")
}

// BenchmarkCopyD2D copies 256 MiB between two buffers (fewer bytes where the
// adapter binds less per buffer); copy_GB/s counts the bytes copied.
func BenchmarkCopyD2D(b *testing.B) {
	dev := openDev(b)
	ctx := context.Background()
	n := int64(256 << 20)
	if s, err := strconv.ParseInt(dev.Info().Extra["max_storage_binding"], 10, 64); err == nil && n > s {
		n = s &^ 255
	}
	src, err := dev.Alloc(n)
	if err != nil {
		b.Fatal(err)
	}
	defer src.Close()
	dst, err := dev.Alloc(n)
	if err != nil {
		b.Fatal(err)
	}
	defer dst.Close()
	st := dev.DefaultStream()
	if err := st.Copy(dst, 0, src, 0, n); err != nil {
		b.Fatal(err)
	}
	if err := st.Synchronize(ctx); err != nil {
		b.Fatal(err)
	}
	var device time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start, err := st.Record()
		if err != nil {
			b.Fatal(err)
		}
		if err := st.Copy(dst, 0, src, 0, n); err != nil {
			b.Fatal(err)
		}
		end, err := st.Record()
		if err != nil {
			b.Fatal(err)
		}
		if err := st.Synchronize(ctx); err != nil {
			b.Fatal(err)
		}
		d, err := end.Elapsed(start)
		if err != nil {
			b.Fatal(err)
		}
		device += d
		_ = start.Close()
		_ = end.Close()
	}
	b.ReportMetric(float64(n)*float64(b.N)/device.Seconds()/1e9, "copy_GB/s")
}
