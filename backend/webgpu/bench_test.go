//go:build cgo

package webgpu_test

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu"
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
// adapter binds less per buffer) with the copy kernel and with the queue's
// copy command (webgpu.EnvD2D); copy_GB/s counts the bytes copied. "x1" is
// one copy between two events, as `gpu bench` measures d2d_gbps; "x8" is
// eight back to back between the events, which leaves out what one copy
// pays around it (submissions, the gap before the closing event).
func BenchmarkCopyD2D(b *testing.B) {
	for _, mode := range []string{"kernel", "copy"} {
		for _, reps := range []int{1, 8} {
			b.Run(fmt.Sprintf("%s/x%d", mode, reps), func(b *testing.B) {
				b.Setenv(webgpu.EnvD2D, mode)
				e, n := openBench(b, 256<<20)
				n &^= 255
				require.Equal(b, map[string]string{"kernel": "copy kernel", "copy": "copy command"}[mode], e.Dev.Info().Extra["d2d"])
				src, dst := e.Alloc(b, n), e.Alloc(b, n)
				t := e.TimeOnDevice(b, 1, func() error {
					for range reps {
						if err := e.Stream.Copy(dst, 0, src, 0, n); err != nil {
							return err
						}
					}
					return nil
				})
				b.ReportMetric(t.DeviceRate(float64(n)*float64(reps))/1e9, "copy_GB/s")
			})
		}
	}
}

// transferBench opens the harness with two device buffers and a host buffer
// of 256 MiB each (fewer bytes where the adapter binds less per buffer).
func transferBench(b *testing.B) (*backendtest.Bench, *gpu.Buffer, *gpu.HostBuffer, int64) {
	e, n := openBench(b, 256<<20)
	n &^= 255
	h, err := e.Dev.AllocHost(n)
	require.NoError(b, err)
	b.Cleanup(func() { _ = h.Close() })
	return e, e.Alloc(b, n), h, n
}

// BenchmarkH2DPageable writes a 256 MiB Go slice, wall clock to the end of
// a Synchronize, as `gpu bench` measures h2d_pageable_gbps.
func BenchmarkH2DPageable(b *testing.B) {
	e, d1, _, n := transferBench(b)
	e.Pageable(b, backendtest.H2D, d1, make([]byte, n))
}

// BenchmarkD2HPageable reads 256 MiB into a Go slice, wall clock to the end
// of a Synchronize (d2h_pageable_gbps).
func BenchmarkD2HPageable(b *testing.B) {
	e, d1, _, n := transferBench(b)
	e.Pageable(b, backendtest.D2H, d1, make([]byte, n))
}

// BenchmarkH2DPinned writes 256 MiB from a host buffer (WriteHost) between
// two events, as h2d_pinned_gbps: h2d_GB/s from the device time, wall_GB/s
// from the host clock around the transfer and its Synchronize.
func BenchmarkH2DPinned(b *testing.B) {
	e, d1, h, n := transferBench(b)
	t := e.TimeOnDevice(b, 1, func() error { return e.Stream.WriteHost(d1, 0, h, 0, n) })
	b.ReportMetric(t.DeviceRate(float64(n))/1e9, "h2d_GB/s")
	b.ReportMetric(t.WallRate(float64(n))/1e9, "wall_GB/s")
}

// BenchmarkD2HPinned reads 256 MiB into a host buffer (ReadHost) between
// two events, as d2h_pinned_gbps: the events see the device's copies only,
// wall_GB/s includes the copies out of the staging buffers.
func BenchmarkD2HPinned(b *testing.B) {
	e, d1, h, n := transferBench(b)
	t := e.TimeOnDevice(b, 1, func() error { return e.Stream.ReadHost(h, 0, d1, 0, n) })
	b.ReportMetric(t.DeviceRate(float64(n))/1e9, "d2h_GB/s")
	b.ReportMetric(t.WallRate(float64(n))/1e9, "wall_GB/s")
}

// BenchmarkDecodeStep is the pattern of a language model's decode step:
// stepLaunches small launches that depend on each other (adds, scales and
// axpys of 768 floats over a rotating set of buffers, each with scalars of
// its own), then a Read of 4 bytes and a Synchronize, the one download per
// step whose result the host needs. ns/op is one step; launch_ns the step
// divided by its launches; enqueue_ns the host's time in Launch per launch.
func BenchmarkDecodeStep(b *testing.B) {
	decodeStep(b, backendtest.OpenBench(b, webgpu.Driver{}))
}

// stepLaunches is the launches of one BenchmarkDecodeStep step.
const stepLaunches = 200

// decodeStep is BenchmarkDecodeStep's body on e.
func decodeStep(b *testing.B, e *backendtest.Bench) {
	const n, nbuf = 768, 24
	add, scale, axpy := e.Kernel(b, kernels.OpAdd), e.Kernel(b, kernels.OpScale), e.Kernel(b, kernels.OpAxpy)
	bufs := make([]*gpu.Buffer, nbuf)
	for i := range bufs {
		bufs[i] = e.Floats(b, n, 1)
	}
	grid, block := gpu.D1((n+255)/256), gpu.D1(256)
	word := make([]byte, 4)
	ctx := context.Background()
	var enqueue time.Duration
	step := func(i int) error {
		start := time.Now()
		for l := range stepLaunches {
			y, x, z := bufs[(i+l)%nbuf], bufs[(i+l+1)%nbuf], bufs[(i+l+2)%nbuf]
			a := gpu.F32(float32(l%7) * 0.125)
			var err error
			switch l % 3 {
			case 0:
				err = e.Stream.Launch(add, grid, block, gpu.Buf(z), gpu.Buf(x), gpu.Buf(y), gpu.U32(n))
			case 1:
				err = e.Stream.Launch(scale, grid, block, gpu.Buf(y), gpu.Buf(x), gpu.U32(n), a)
			default:
				err = e.Stream.Launch(axpy, grid, block, gpu.Buf(y), gpu.Buf(x), gpu.U32(n), a)
			}
			if err != nil {
				return err
			}
		}
		enqueue += time.Since(start)
		if err := e.Stream.Read(word, bufs[i%nbuf], 0); err != nil {
			return err
		}
		return e.Stream.Synchronize(ctx)
	}
	for i := range 3 {
		require.NoError(b, step(i))
	}
	enqueue = 0
	b.ResetTimer()
	for i := range b.N {
		if err := step(i); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*stepLaunches), "launch_ns")
	b.ReportMetric(float64(enqueue.Nanoseconds())/float64(b.N*stepLaunches), "enqueue_ns")
}
