//go:build linux

package opengl_test

import (
	"strconv"
	"testing"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/backend/backendtest"
	"github.com/anygpu/gpu/backend/opengl"
	"github.com/anygpu/gpu/kernels"
)

// openBench is the benchmark harness on the OpenGL device, and how many of
// the saxpy and reduce benchmarks' 64 Mi float32s the largest storage block
// holds.
func openBench(b *testing.B) (*backendtest.Bench, int) {
	e := backendtest.OpenBench(b, opengl.Driver{})
	n, _ := strconv.ParseInt(e.Dev.Info().Extra["max_storage_block"], 10, 64)
	return e, min(64<<20, int(n/4))
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
	e, n := openBench(b)
	axpy := e.Kernel(b, kernels.OpAxpy)
	saxpy := e.NewSaxpy(b, n, 2)
	for _, shape := range []struct {
		name string
		grid int
	}{
		{"perElement", (n + 255) / 256},
		{"perVec4", (n + 1023) / 1024},
		{"gridStride8PerUnit", 8 * e.Dev.Info().Units},
	} {
		b.Run(shape.name, func(b *testing.B) {
			b.SetBytes(saxpy.Bytes())
			t := saxpy.Time(b, axpy, shape.grid, 1)
			b.ReportMetric(t.DeviceRate(float64(saxpy.Bytes()))/1e9, "saxpy_GB/s")
			b.ReportMetric(t.WallRate(float64(saxpy.Bytes()))/1e9, "wall_GB/s")
		})
	}
	// Every launch added 2·1 to every element.
	saxpy.Check(b)
}

// BenchmarkLaunchSync is one launch of the smallest kernel (fill of one
// element, one group of one thread) plus Synchronize: the round trip through
// the context's thread and a fence.
func BenchmarkLaunchSync(b *testing.B) {
	backendtest.OpenBench(b, opengl.Driver{}).LaunchSync(b, 1)
}

// BenchmarkLaunchThroughput is back-to-back launches with one Synchronize at
// the end: the enqueue cost per launch while the queue stays busy.
func BenchmarkLaunchThroughput(b *testing.B) {
	backendtest.OpenBench(b, opengl.Driver{}).LaunchThroughput(b)
}

// BenchmarkTransfer64MiB times a 64 MiB Write (H2D) and Read (D2H) of a
// pageable slice, each with its Synchronize.
func BenchmarkTransfer64MiB(b *testing.B) {
	const size = 64 << 20
	e := backendtest.OpenBench(b, opengl.Driver{})
	buf, host := e.Alloc(b, size), make([]byte, size)
	for _, dir := range []backendtest.Direction{backendtest.H2D, backendtest.D2H} {
		b.Run(string(dir), func(b *testing.B) { e.Pageable(b, dir, buf, host) })
	}
}

// BenchmarkSgemm is C = A·B for square matrices, 4096² on GPUs (1024² on
// software renderers), launched as the conformance suite does (16×16 blocks,
// one group per 16×16 tile of C); sgemm_TFLOPS is 2n³ over the device time.
func BenchmarkSgemm(b *testing.B) {
	e := backendtest.OpenBench(b, opengl.Driver{})
	n := 4096
	if e.Dev.Info().Type == backend.TypeSoftware {
		n = 1024
	}
	t := e.Sgemm(b, n)
	b.ReportMetric(t.DeviceRate(2*float64(n)*float64(n)*float64(n))/1e12, "sgemm_TFLOPS")
}

// BenchmarkReduce is the two-pass reduce_sum over the saxpy benchmark's
// elements (at most 1024 groups of 256, then one group); reduce_GB/s is 4
// bytes an element over the device time of both passes.
func BenchmarkReduce(b *testing.B) {
	e, n := openBench(b)
	t := e.Reduce(b, n)
	b.ReportMetric(t.DeviceRate(4*float64(n))/1e9, "reduce_GB/s")
}
