package cpu_test

import (
	"context"
	"testing"
	"time"

	"github.com/anygpu/gpu/backend/backendtest"
	"github.com/anygpu/gpu/backend/cpu"
	"github.com/anygpu/gpu/kernels"
)

// BenchmarkSaxpyVsCopy measures, in one benchmark, the CPU backend's saxpy
// (y = a*x + y over 64 Mi float32 through Launch + Synchronize: 12 bytes of
// traffic per element, 8 read and 4 written) and a plain copy() of the same
// traffic (a 6-byte-per-element source copied to a destination: 6 read + 6
// written). Reported: saxpy_GB/s, copy_GB/s and their ratio.
func BenchmarkSaxpyVsCopy(b *testing.B) {
	const n = 64 << 20
	e := backendtest.OpenBench(b, cpu.Driver{})
	axpy := e.Kernel(b, kernels.OpAxpy)
	saxpy := e.NewSaxpy(b, n, 2)
	ctx := context.Background()
	src, dst := make([]byte, 6*n), make([]byte, 6*n)
	for i := range src {
		src[i] = byte(i)
	}
	copy(dst, src) // fault the pages in
	grid := (n + 255) / 256
	run := func() error {
		if err := saxpy.Launch(axpy, grid); err != nil {
			return err
		}
		return e.Stream.Synchronize(ctx)
	}
	if err := run(); err != nil {
		b.Fatal(err)
	}
	var tSaxpy, tCopy time.Duration
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		if err := run(); err != nil {
			b.Fatal(err)
		}
		tSaxpy += time.Since(start)
		start = time.Now()
		copy(dst, src)
		tCopy += time.Since(start)
	}
	b.StopTimer()
	saxpy.Check(b)
	rate := func(d time.Duration) float64 { return float64(saxpy.Bytes()) * float64(b.N) / d.Seconds() / 1e9 }
	b.ReportMetric(rate(tSaxpy), "saxpy_GB/s")
	b.ReportMetric(rate(tCopy), "copy_GB/s")
	b.ReportMetric(rate(tSaxpy)/rate(tCopy), "ratio")
}

// BenchmarkPoolAllocFree1MiB is Alloc(1 MiB) + Close on a pool hit.
func BenchmarkPoolAllocFree1MiB(b *testing.B) {
	dev := backendtest.OpenBench(b, cpu.Driver{}).Dev
	for range 4 { // put the size class in the pool
		buf, err := dev.Alloc(1 << 20)
		if err != nil {
			b.Fatal(err)
		}
		_ = buf.Close()
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
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
	backendtest.OpenBench(b, cpu.Driver{}).LaunchSync(b, 1)
}

// BenchmarkLaunchThroughput is back-to-back launches of the same kernel with
// one Synchronize at the end: the enqueue cost per launch when the queue
// stays busy.
func BenchmarkLaunchThroughput(b *testing.B) {
	backendtest.OpenBench(b, cpu.Driver{}).LaunchThroughput(b)
}
