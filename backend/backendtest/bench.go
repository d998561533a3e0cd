package backendtest

import (
	"context"
	"encoding/binary"
	"math"
	"testing"
	"time"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/kernels"
	"github.com/stretchr/testify/require"
)

// Bench is the benchmark harness every backend's bench test calls: a
// device, the stream the benchmarks run on and the built-in kernels compiled
// for the device. Its methods are the benchmark bodies (launch round trips
// and throughput, pageable transfers, saxpy, sgemm, reduce, timed device
// work); the caller picks the sizes its device can hold and reports the
// metrics under its own names from the Timing they return.
type Bench struct {
	Dev    *gpu.Device
	Stream *gpu.Stream
	mod    *gpu.Module
}

// OpenBench opens device 0 of drv for a benchmark, skipping b when the
// backend has no device (failing it when ANYGPU_TEST_REQUIRE names the
// backend), and returns its harness on the device's default stream. The
// device closes with b.
func OpenBench(b *testing.B, drv backend.Driver, opts ...gpu.Option) *Bench {
	b.Helper()
	SkipUnlessAvailable(b, drv)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dev, err := gpu.OpenDriver(ctx, drv, 0, opts...)
	require.NoError(b, err, "open %s device 0", drv.Name())
	b.Cleanup(func() { _ = dev.Close() })
	return NewBench(b, dev)
}

// NewBench is the harness on dev, already open, and its default stream: it
// compiles the built-in kernels (kernels.Source), which close with b.
func NewBench(b *testing.B, dev *gpu.Device) *Bench {
	b.Helper()
	mod, err := dev.Compile(context.Background(), kernels.Source())
	require.NoError(b, err)
	b.Cleanup(func() { _ = mod.Close() })
	return &Bench{Dev: dev, Stream: dev.DefaultStream(), mod: mod}
}

// Kernel is the built-in kernel op (kernels.OpAxpy, ...).
func (e *Bench) Kernel(b *testing.B, op string) *gpu.Kernel {
	b.Helper()
	k, err := e.mod.Kernel(op)
	require.NoError(b, err)
	return k
}

// Alloc allocates size bytes that close with b.
func (e *Bench) Alloc(b *testing.B, size int64) *gpu.Buffer {
	b.Helper()
	buf, err := e.Dev.Alloc(size)
	require.NoError(b, err)
	b.Cleanup(func() { _ = buf.Close() })
	return buf
}

// Floats allocates n float32s, every one set to v; they close with b.
func (e *Bench) Floats(b *testing.B, n int, v float32) *gpu.Buffer {
	b.Helper()
	buf := e.Alloc(b, 4*int64(n))
	require.NoError(b, e.Stream.Fill(buf, 0, 4*int64(n), math.Float32bits(v)))
	return buf
}

// Grid is the one-dimensional grid of groups of 256 threads that gives n
// threads, at most the device's largest grid.
func (e *Bench) Grid(n int) gpu.Dim3 {
	return gpu.D1(min((n+255)/256, e.Dev.Info().MaxGridDim.X))
}

// Timing is what a timed benchmark loop measured: N runs, their device time
// (between two events around each run), summed, and the loop's wall time.
type Timing struct {
	N      int
	Device time.Duration
	Wall   time.Duration
}

// DeviceRate is perRun (bytes, flops) times N over the device time, per
// second.
func (t Timing) DeviceRate(perRun float64) float64 {
	return perRun * float64(t.N) / t.Device.Seconds()
}

// WallRate is perRun times N over the wall time, per second.
func (t Timing) WallRate(perRun float64) float64 {
	return perRun * float64(t.N) / t.Wall.Seconds()
}

// DeviceMicros is the device time of one run in microseconds.
func (t Timing) DeviceMicros() float64 {
	return float64(t.Device.Microseconds()) / float64(t.N)
}

// DeviceTime runs run once between two events recorded on st, synchronizes
// st and returns the device time between the events. It checks errors
// without testify, so that the host's time around it stays the stream's.
func DeviceTime(tb testing.TB, st *gpu.Stream, run func() error) time.Duration {
	tb.Helper()
	start, err := st.Record()
	if err != nil {
		tb.Fatal(err)
	}
	defer start.Close()
	if err := run(); err != nil {
		tb.Fatal(err)
	}
	end, err := st.Record()
	if err != nil {
		tb.Fatal(err)
	}
	defer end.Close()
	if err := st.Synchronize(context.Background()); err != nil {
		tb.Fatal(err)
	}
	d, err := end.Elapsed(start)
	if err != nil {
		tb.Fatal(err)
	}
	return d
}

// TimeOnDevice is how `gpu bench` times device work: run warmups times and
// a Synchronize, then, with b's timer reset, b.N runs on e.Stream, each
// between two events and followed by a Synchronize (DeviceTime). The timer
// stops after the loop.
func (e *Bench) TimeOnDevice(b *testing.B, warmups int, run func() error) Timing {
	b.Helper()
	for range warmups {
		require.NoError(b, run())
	}
	require.NoError(b, e.Stream.Synchronize(context.Background()))
	var device time.Duration
	b.ResetTimer()
	start := time.Now()
	for range b.N {
		device += DeviceTime(b, e.Stream, run)
	}
	wall := time.Since(start)
	b.StopTimer()
	return Timing{N: b.N, Device: device, Wall: wall}
}

// TimeWall times op on the host clock, b.SetBytes(bytes): one run to warm
// up, then b.N runs with b's timer reset. op includes whatever
// synchronization the measurement needs.
func TimeWall(b *testing.B, bytes int64, op func() error) {
	b.Helper()
	if err := op(); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(bytes)
	b.ResetTimer()
	for range b.N {
		if err := op(); err != nil {
			b.Fatal(err)
		}
	}
}

// Direction is the way a transfer goes between host and device memory; its
// value names the sub-benchmark.
type Direction string

// The directions of a transfer.
const (
	H2D Direction = "h2d" // host to device: Write
	D2H Direction = "d2h" // device to host: Read
)

// Pageable times a Write (H2D) of host, a Go slice, into buf at offset 0,
// or a Read (D2H) of buf into host, each with its Synchronize, on the host
// clock: the path of `gpu bench`'s h2d_pageable_gbps and d2h_pageable_gbps.
// b.SetBytes is len(host).
func (e *Bench) Pageable(b *testing.B, dir Direction, buf *gpu.Buffer, host []byte) {
	b.Helper()
	ctx := context.Background()
	TimeWall(b, int64(len(host)), func() error {
		var err error
		if dir == H2D {
			err = e.Stream.Write(buf, 0, host)
		} else {
			err = e.Stream.Read(host, buf, 0)
		}
		if err != nil {
			return err
		}
		return e.Stream.Synchronize(ctx)
	})
}

// LaunchSync is one launch of the built-in fill over threads float32s (one
// group of threads threads) and a Synchronize per op: a launch's round trip
// from enqueue to done.
func (e *Bench) LaunchSync(b *testing.B, threads int) {
	b.Helper()
	fill := e.Kernel(b, kernels.OpFill)
	y := e.Alloc(b, 4*int64(threads))
	ctx := context.Background()
	b.ResetTimer()
	for range b.N {
		if err := e.Stream.Launch(fill, gpu.D1(1), gpu.D1(threads), gpu.Buf(y), gpu.U32(uint32(threads)), gpu.F32(1)); err != nil {
			b.Fatal(err)
		}
		if err := e.Stream.Synchronize(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

// LaunchThroughput is back-to-back launches of the built-in fill over one
// float32 (one group of one thread), after one launch and a Synchronize to
// warm up, with one Synchronize at the end, as `gpu bench` measures
// launch_us: ns/op is the cost per launch from enqueue to done with the
// queue kept full, enqueue_ns the host's time in Launch alone, allocs/op
// what a launch allocates.
func (e *Bench) LaunchThroughput(b *testing.B) {
	b.Helper()
	fill := e.Kernel(b, kernels.OpFill)
	y := e.Alloc(b, 4)
	ctx := context.Background()
	launch := func() error {
		return e.Stream.Launch(fill, gpu.D1(1), gpu.D1(1), gpu.Buf(y), gpu.U32(1), gpu.F32(1))
	}
	require.NoError(b, launch())
	require.NoError(b, e.Stream.Synchronize(ctx))
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	for range b.N {
		if err := launch(); err != nil {
			b.Fatal(err)
		}
	}
	enqueue := time.Since(start)
	if err := e.Stream.Synchronize(ctx); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(enqueue.Nanoseconds())/float64(b.N), "enqueue_ns")
}

// Saxpy is the saxpy benchmarks' data: y = a·x + y over N float32s, x all
// ones and y all zeros at the start, so that y is a times the launches.
type Saxpy struct {
	e        *Bench
	X, Y     *gpu.Buffer
	N        int
	A        float32
	launches int
}

// NewSaxpy allocates and fills x and y of n float32s; they close with b.
func (e *Bench) NewSaxpy(b *testing.B, n int, a float32) *Saxpy {
	b.Helper()
	return &Saxpy{e: e, X: e.Floats(b, n, 1), Y: e.Floats(b, n, 0), N: n, A: a}
}

// Bytes is the traffic of one saxpy: x and y read, y written.
func (s *Saxpy) Bytes() int64 { return 12 * int64(s.N) }

// Launch enqueues one saxpy with k (the built-in axpy or a kernel with its
// arguments) on grid groups of 256 threads, at most the device's largest
// grid.
func (s *Saxpy) Launch(k *gpu.Kernel, grid int) error {
	s.launches++
	g := gpu.D1(min(grid, s.e.Dev.Info().MaxGridDim.X))
	return s.e.Stream.Launch(k, g, gpu.D1(256), gpu.Buf(s.Y), gpu.Buf(s.X), gpu.U32(uint32(s.N)), gpu.F32(s.A))
}

// Time is TimeOnDevice of Launch(k, grid).
func (s *Saxpy) Time(b *testing.B, k *gpu.Kernel, grid, warmups int) Timing {
	b.Helper()
	return s.e.TimeOnDevice(b, warmups, func() error { return s.Launch(k, grid) })
}

// Check fails b unless y[0], y[n-2] and y[n-1] are a times the launches so
// far (exact in float32 while that stays below 2^22 launches; after that it
// checks nothing).
func (s *Saxpy) Check(b *testing.B) {
	b.Helper()
	st, ctx := s.e.Stream, context.Background()
	head, tail := make([]float32, 1), make([]byte, 8)
	require.NoError(b, gpu.Download(st, head, s.Y))
	require.NoError(b, st.Read(tail, s.Y, int64(4*(s.N-2))))
	require.NoError(b, st.Synchronize(ctx))
	got := []float32{head[0], math.Float32frombits(binary.LittleEndian.Uint32(tail)), math.Float32frombits(binary.LittleEndian.Uint32(tail[4:]))}
	if want := s.A * float32(s.launches); s.launches < 1<<22 && (got[0] != want || got[1] != want || got[2] != want) {
		b.Fatalf("y[0], y[n-2], y[n-1] = %v after %d launches, want %v", got, s.launches, want)
	}
}

// Sgemm times C = A·B for n×n matrices of ones (n a multiple of 16),
// launched as the conformance suite does (16×16 blocks, one group per 16×16
// tile of C), after one warm-up launch, and checks C[0] = n. Each run does
// 2n³ flops.
func (e *Bench) Sgemm(b *testing.B, n int) Timing {
	b.Helper()
	sgemm := e.Kernel(b, kernels.OpSgemm)
	a, bm, c := e.Floats(b, n*n, 1), e.Floats(b, n*n, 1), e.Alloc(b, 4*int64(n*n))
	t := e.TimeOnDevice(b, 1, func() error {
		return e.Stream.Launch(sgemm, gpu.D2(n/16, n/16), gpu.D2(16, 16), gpu.Buf(c), gpu.Buf(a), gpu.Buf(bm),
			gpu.U32(uint32(n)), gpu.U32(uint32(n)), gpu.U32(uint32(n)), gpu.F32(1), gpu.F32(0))
	})
	e.requireFirst(b, c, float32(n), "C[0]")
	return t
}

// Reduce times the two-pass reduce_sum over n ones (at most 1024 groups of
// 256 into partial sums, then one group), after one warm-up run, and checks
// the sum. Each run reads 4n bytes.
func (e *Bench) Reduce(b *testing.B, n int) Timing {
	b.Helper()
	reduce := e.Kernel(b, kernels.OpReduceSum)
	x := e.Floats(b, n, 1)
	groups := min(e.Grid(n).X, 1024)
	partial, total := e.Alloc(b, 4*int64(groups)), e.Alloc(b, 4)
	t := e.TimeOnDevice(b, 1, func() error {
		if err := e.Stream.Launch(reduce, gpu.D1(groups), gpu.D1(256), gpu.Buf(partial), gpu.Buf(x), gpu.U32(uint32(n))); err != nil {
			return err
		}
		return e.Stream.Launch(reduce, gpu.D1(1), gpu.D1(256), gpu.Buf(total), gpu.Buf(partial), gpu.U32(uint32(groups)))
	})
	e.requireFirst(b, total, float32(n), "sum")
	return t
}

// requireFirst fails b unless the first float32 of buf is want.
func (e *Bench) requireFirst(b *testing.B, buf *gpu.Buffer, want float32, what string) {
	b.Helper()
	got := make([]float32, 1)
	require.NoError(b, gpu.Download(e.Stream, got, buf))
	require.NoError(b, e.Stream.Synchronize(context.Background()))
	require.Equal(b, want, got[0], what)
}
