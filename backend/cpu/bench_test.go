package cpu_test

import (
	"context"
	"testing"
	"time"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/kernels"
)

func openCPU(b *testing.B) *gpu.Device {
	b.Helper()
	dev, err := gpu.Open(context.Background(), gpu.WithBackends("cpu"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = dev.Close() })
	return dev
}

func kernel(b *testing.B, dev *gpu.Device, op string) *gpu.Kernel {
	b.Helper()
	mod, err := dev.Compile(context.Background(), kernels.Source())
	if err != nil {
		b.Fatal(err)
	}
	k, err := mod.Kernel(op)
	if err != nil {
		b.Fatal(err)
	}
	return k
}

// BenchmarkSaxpyVsCopy measures, in one benchmark, the CPU backend's saxpy
// (y = a*x + y over 64 Mi float32 through Launch + Synchronize: 12 bytes of
// traffic per element, 8 read and 4 written) and a plain copy() of the same
// traffic (a 6-byte-per-element source copied to a destination: 6 read + 6
// written). Reported: saxpy_GB/s, copy_GB/s and their ratio.
func BenchmarkSaxpyVsCopy(b *testing.B) {
	const n = 64 << 20
	dev := openCPU(b)
	axpy := kernel(b, dev, kernels.OpAxpy)
	x, err := gpu.AllocSlice[float32](dev, n)
	if err != nil {
		b.Fatal(err)
	}
	y, err := gpu.AllocSlice[float32](dev, n)
	if err != nil {
		b.Fatal(err)
	}
	s := dev.DefaultStream()
	ctx := context.Background()
	if err := s.Fill(x, 0, 4*n, 0x3f800000); err != nil {
		b.Fatal(err)
	}
	if err := s.Fill(y, 0, 4*n, 0); err != nil {
		b.Fatal(err)
	}
	src, dst := make([]byte, 6*n), make([]byte, 6*n)
	for i := range src {
		src[i] = byte(i)
	}
	copy(dst, src) // fault the pages in
	grid, block := gpu.D1((n+255)/256), gpu.D1(256)
	if err := s.Launch(axpy, grid, block, gpu.Buf(y), gpu.Buf(x), gpu.U32(n), gpu.F32(2)); err != nil {
		b.Fatal(err)
	}
	if err := s.Synchronize(ctx); err != nil {
		b.Fatal(err)
	}
	var tSaxpy, tCopy time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		if err := s.Launch(axpy, grid, block, gpu.Buf(y), gpu.Buf(x), gpu.U32(n), gpu.F32(2)); err != nil {
			b.Fatal(err)
		}
		if err := s.Synchronize(ctx); err != nil {
			b.Fatal(err)
		}
		tSaxpy += time.Since(start)
		start = time.Now()
		copy(dst, src)
		tCopy += time.Since(start)
	}
	saxpy := 12 * float64(n) * float64(b.N) / tSaxpy.Seconds() / 1e9
	cp := 12 * float64(n) * float64(b.N) / tCopy.Seconds() / 1e9
	b.ReportMetric(saxpy, "saxpy_GB/s")
	b.ReportMetric(cp, "copy_GB/s")
	b.ReportMetric(saxpy/cp, "ratio")
}

// BenchmarkPoolAllocFree1MiB is Alloc(1 MiB) + Close on a pool hit.
func BenchmarkPoolAllocFree1MiB(b *testing.B) {
	dev := openCPU(b)
	for i := 0; i < 4; i++ { // put the size class in the pool
		buf, err := dev.Alloc(1 << 20)
		if err != nil {
			b.Fatal(err)
		}
		_ = buf.Close()
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		buf, err := dev.Alloc(1 << 20)
		if err != nil {
			b.Fatal(err)
		}
		if err := buf.Close(); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	if st := dev.Pool().Stats(); st.Misses > 1 {
		b.Fatalf("expected pool hits, stats %+v", st)
	}
}

// BenchmarkEmptyLaunch is one launch of the smallest kernel (fill of one
// element, one group of one thread), enqueue to done: Launch + Synchronize.
func BenchmarkEmptyLaunch(b *testing.B) {
	dev := openCPU(b)
	fill := kernel(b, dev, kernels.OpFill)
	y, err := gpu.AllocSlice[float32](dev, 1)
	if err != nil {
		b.Fatal(err)
	}
	s := dev.DefaultStream()
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := s.Launch(fill, gpu.D1(1), gpu.D1(1), gpu.Buf(y), gpu.U32(1), gpu.F32(1)); err != nil {
			b.Fatal(err)
		}
		if err := s.Synchronize(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLaunchThroughput is back-to-back launches of the same kernel with
// one Synchronize at the end: the enqueue cost per launch when the queue
// stays busy.
func BenchmarkLaunchThroughput(b *testing.B) {
	dev := openCPU(b)
	fill := kernel(b, dev, kernels.OpFill)
	y, err := gpu.AllocSlice[float32](dev, 1)
	if err != nil {
		b.Fatal(err)
	}
	s := dev.DefaultStream()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := s.Launch(fill, gpu.D1(1), gpu.D1(1), gpu.Buf(y), gpu.U32(1), gpu.F32(1)); err != nil {
			b.Fatal(err)
		}
	}
	if err := s.Synchronize(context.Background()); err != nil {
		b.Fatal(err)
	}
}
