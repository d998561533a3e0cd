//go:build linux

package opengl_test

import (
	"encoding/binary"
	"math"
	"strconv"
	"testing"
	"time"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/kernels"
)

func builtin(b *testing.B, dev *gpu.Device, op string) *gpu.Kernel {
	b.Helper()
	mod, err := dev.Compile(ctx(b), kernels.Source())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = mod.Close() })
	k, err := mod.Kernel(op)
	if err != nil {
		b.Fatal(err)
	}
	return k
}

// storageFloats is how many float32s the largest storage block holds.
func storageFloats(dev *gpu.Device) int {
	n, _ := strconv.ParseInt(dev.Info().Extra["max_storage_block"], 10, 64)
	return int(n / 4)
}

// BenchmarkSaxpy is y = a·x + y over 64 Mi float32s (fewer where the
// largest storage block is smaller), 256 threads a group, in three launch
// shapes: one work item per element (grid n/256, as the conformance suite and
// `gpu bench` launch it), one per vec4 (n/1024, what the built-in kernel
// needs), and 8 groups per compute unit looping grid-stride. saxpy_GB/s is
// 12 bytes an element over the device time between two events around each
// launch (as `gpu bench` measures it), wall_GB/s the same over Launch +
// Synchronize on the host.
func BenchmarkSaxpy(b *testing.B) {
	dev := openDevice(b)
	n := min(64<<20, storageFloats(dev))
	axpy := builtin(b, dev, kernels.OpAxpy)
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
	c := ctx(b)
	if err := st.Fill(x, 0, int64(4*n), 0x3f800000); err != nil {
		b.Fatal(err)
	}
	if err := st.Fill(y, 0, int64(4*n), 0); err != nil {
		b.Fatal(err)
	}
	launches := 0
	for _, shape := range []struct {
		name string
		grid int
	}{
		{"perElement", (n + 255) / 256},
		{"perVec4", (n + 1023) / 1024},
		{"gridStride8PerUnit", 8 * dev.Info().Units},
	} {
		grid, block := gpu.D1(min(shape.grid, dev.Info().MaxGridDim.X)), gpu.D1(256)
		launch := func() error {
			launches++
			return st.Launch(axpy, grid, block, gpu.Buf(y), gpu.Buf(x), gpu.U32(uint32(n)), gpu.F32(2))
		}
		b.Run(shape.name, func(b *testing.B) {
			if err := launch(); err != nil { // warm-up
				b.Fatal(err)
			}
			if err := st.Synchronize(c); err != nil {
				b.Fatal(err)
			}
			var device time.Duration
			b.SetBytes(int64(12 * n))
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
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
				if err := end.Synchronize(c); err != nil {
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
			wall := b.Elapsed()
			b.StopTimer()
			bytes := 12 * float64(n) * float64(b.N)
			b.ReportMetric(bytes/device.Seconds()/1e9, "saxpy_GB/s")
			b.ReportMetric(bytes/wall.Seconds()/1e9, "wall_GB/s")
		})
	}
	// Every launch added 2·1 to every element, exactly in float32 while
	// below 2^24.
	head, tail := make([]float32, 1), make([]byte, 8)
	if err := gpu.Download(st, head, y); err != nil {
		b.Fatal(err)
	}
	if err := st.Read(tail, y, int64(4*(n-2))); err != nil {
		b.Fatal(err)
	}
	if err := st.Synchronize(c); err != nil {
		b.Fatal(err)
	}
	got := []float32{head[0], math.Float32frombits(binary.LittleEndian.Uint32(tail)), math.Float32frombits(binary.LittleEndian.Uint32(tail[4:]))}
	if want := float32(2 * launches); launches < 1<<23 && (got[0] != want || got[1] != want || got[2] != want) {
		b.Fatalf("y[0], y[n-2], y[n-1] = %v after %d launches, want %v", got, launches, want)
	}
}

// BenchmarkLaunchSync is one launch of the smallest kernel (fill of one
// element, one group of one thread) plus Synchronize: the round trip through
// the context's thread and a fence.
func BenchmarkLaunchSync(b *testing.B) {
	dev := openDevice(b)
	fill := builtin(b, dev, kernels.OpFill)
	y, err := gpu.AllocSlice[float32](dev, 1)
	if err != nil {
		b.Fatal(err)
	}
	defer y.Close()
	st := dev.DefaultStream()
	c := ctx(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := st.Launch(fill, gpu.D1(1), gpu.D1(1), gpu.Buf(y), gpu.U32(1), gpu.F32(1)); err != nil {
			b.Fatal(err)
		}
		if err := st.Synchronize(c); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLaunchThroughput is back-to-back launches with one Synchronize at
// the end: the enqueue cost per launch while the queue stays busy.
func BenchmarkLaunchThroughput(b *testing.B) {
	dev := openDevice(b)
	fill := builtin(b, dev, kernels.OpFill)
	y, err := gpu.AllocSlice[float32](dev, 1)
	if err != nil {
		b.Fatal(err)
	}
	defer y.Close()
	st := dev.DefaultStream()
	if err := st.Launch(fill, gpu.D1(1), gpu.D1(1), gpu.Buf(y), gpu.U32(1), gpu.F32(1)); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := st.Launch(fill, gpu.D1(1), gpu.D1(1), gpu.Buf(y), gpu.U32(1), gpu.F32(1)); err != nil {
			b.Fatal(err)
		}
	}
	if err := st.Synchronize(ctx(b)); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkTransfer64MiB times a 64 MiB Write (H2D) and Read (D2H) of a
// pageable slice, each with its Synchronize.
func BenchmarkTransfer64MiB(b *testing.B) {
	const size = 64 << 20
	dev := openDevice(b)
	buf, err := dev.Alloc(size)
	if err != nil {
		b.Fatal(err)
	}
	defer buf.Close()
	host := make([]byte, size)
	st := dev.DefaultStream()
	c := ctx(b)
	for _, dir := range []string{"h2d", "d2h"} {
		b.Run(dir, func(b *testing.B) {
			b.SetBytes(size)
			for i := 0; i < b.N; i++ {
				var err error
				if dir == "h2d" {
					err = st.Write(buf, 0, host)
				} else {
					err = st.Read(host, buf, 0)
				}
				if err != nil {
					b.Fatal(err)
				}
				if err := st.Synchronize(c); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSgemm is C = A·B for square matrices, 4096² on GPUs (1024² on
// software renderers), launched as the conformance suite does (16×16 blocks,
// one group per 16×16 tile of C); sgemm_TFLOPS is 2n³ over the device time.
func BenchmarkSgemm(b *testing.B) {
	dev := openDevice(b)
	n := 4096
	if dev.Info().Type == backend.TypeSoftware {
		n = 1024
	}
	sgemm := builtin(b, dev, kernels.OpSgemm)
	var bufs [3]*gpu.Buffer
	for i := range bufs {
		var err error
		if bufs[i], err = gpu.AllocSlice[float32](dev, n*n); err != nil {
			b.Fatal(err)
		}
		defer bufs[i].Close()
	}
	st := dev.DefaultStream()
	c := ctx(b)
	for _, buf := range bufs[1:] {
		if err := st.Fill(buf, 0, int64(4*n*n), 0x3f800000); err != nil {
			b.Fatal(err)
		}
	}
	launch := func() error {
		return st.Launch(sgemm, gpu.D2(n/16, n/16), gpu.D2(16, 16), gpu.Buf(bufs[0]), gpu.Buf(bufs[1]), gpu.Buf(bufs[2]),
			gpu.U32(uint32(n)), gpu.U32(uint32(n)), gpu.U32(uint32(n)), gpu.F32(1), gpu.F32(0))
	}
	if err := launch(); err != nil {
		b.Fatal(err)
	}
	if err := st.Synchronize(c); err != nil {
		b.Fatal(err)
	}
	var device time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start, _ := st.Record()
		if err := launch(); err != nil {
			b.Fatal(err)
		}
		end, err := st.Record()
		if err != nil {
			b.Fatal(err)
		}
		if err := end.Synchronize(c); err != nil {
			b.Fatal(err)
		}
		d, err := end.Elapsed(start)
		if err != nil {
			b.Fatal(err)
		}
		device += d
	}
	b.StopTimer()
	got := make([]float32, 1)
	if err := gpu.Download(st, got, bufs[0]); err != nil {
		b.Fatal(err)
	}
	if err := st.Synchronize(c); err != nil {
		b.Fatal(err)
	}
	if got[0] != float32(n) {
		b.Fatalf("C[0] = %v, want %d", got[0], n)
	}
	b.ReportMetric(2*float64(n)*float64(n)*float64(n)*float64(b.N)/device.Seconds()/1e12, "sgemm_TFLOPS")
}

// BenchmarkReduce is the two-pass reduce_sum over the saxpy benchmark's
// elements (at most 1024 groups of 256, then one group); reduce_GB/s is 4
// bytes an element over the device time of both passes.
func BenchmarkReduce(b *testing.B) {
	dev := openDevice(b)
	n := min(64<<20, storageFloats(dev))
	reduce := builtin(b, dev, kernels.OpReduceSum)
	x, err := gpu.AllocSlice[float32](dev, n)
	if err != nil {
		b.Fatal(err)
	}
	defer x.Close()
	groups := min((n+255)/256, 1024)
	partial, err := gpu.AllocSlice[float32](dev, groups)
	if err != nil {
		b.Fatal(err)
	}
	defer partial.Close()
	st := dev.DefaultStream()
	c := ctx(b)
	if err := st.Fill(x, 0, int64(4*n), 0x3f800000); err != nil {
		b.Fatal(err)
	}
	run := func() error {
		if err := st.Launch(reduce, gpu.D1(groups), gpu.D1(256), gpu.Buf(partial), gpu.Buf(x), gpu.U32(uint32(n))); err != nil {
			return err
		}
		return st.Launch(reduce, gpu.D1(1), gpu.D1(256), gpu.Buf(partial), gpu.Buf(partial), gpu.U32(uint32(groups)))
	}
	if err := run(); err != nil {
		b.Fatal(err)
	}
	var device time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start, _ := st.Record()
		if err := run(); err != nil {
			b.Fatal(err)
		}
		end, err := st.Record()
		if err != nil {
			b.Fatal(err)
		}
		if err := end.Synchronize(c); err != nil {
			b.Fatal(err)
		}
		d, err := end.Elapsed(start)
		if err != nil {
			b.Fatal(err)
		}
		device += d
	}
	b.StopTimer()
	got := make([]float32, 1)
	if err := gpu.Download(st, got, partial); err != nil {
		b.Fatal(err)
	}
	if err := st.Synchronize(c); err != nil {
		b.Fatal(err)
	}
	if got[0] != float32(n) {
		b.Fatalf("sum = %v, want %d", got[0], n)
	}
	b.ReportMetric(4*float64(n)*float64(b.N)/device.Seconds()/1e9, "reduce_GB/s")
}
