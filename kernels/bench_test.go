package kernels

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/anygpu/gpu/backend"
)

// The benchmarks run Go kernels the way the CPU backend does: every group of
// a launch, handed out from a shared counter to runtime.NumCPU goroutines.
//
// BenchmarkAxpyGo and BenchmarkCopyBaseline report memory traffic, counted
// the same way for both: bytes the program reads plus bytes it writes.
//   - axpy over n = 16 Mi float32s reads x and y and writes y: 12·n bytes
//     (192 MiB) per launch, in groups of 256 or 1024 threads, 16 Ki elements'
//     worth of groups per hand-out.
//   - the baseline copy()s 2·n float32s (8·n bytes, 128 MiB) from one slice to
//     another on the same goroutines: 8·n read plus 8·n written, 16·n bytes
//     per op. It splits the copy two ways, because which is faster depends on
//     the machine: one contiguous part per goroutine (large copies, which
//     Go's memmove does with non-temporal stores) and 64 KiB chunks from a
//     shared counter (ordinary stores).
//
// The ratio of axpy's GB/s to the faster copy's is how close the Go axpy comes
// to what the memory system moves for a plain copy (the bar is 0.7). Mind the
// caches: a last-level cache larger than axpy's 128 MiB working set (some
// server parts have 300 MiB) makes axpy look faster than DRAM allows, while
// the non-temporal copy still goes to DRAM.

const benchN = 16 << 20

// benchBatch is how many elements' worth of groups a goroutine takes at a time
// in the 1-D benchmarks (64 groups of 256), amortising the shared counter.
const benchBatch = 16 << 10

// runAll runs kernel k over every group of a 1-D or 2-D launch on NumCPU
// goroutines, taking chunk groups at a time.
func runAll(k backend.GoKernel, grid, block backend.Dim3, args []backend.Arg, chunk int) {
	grid, block = grid.Norm(), block.Norm()
	parallelFor(grid.X*grid.Y, chunk, runtime.NumCPU(), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			g := backend.Group{ID: backend.Dim3{X: i % grid.X, Y: i / grid.X}, Size: block, Grid: grid}
			k(g, args)
		}
	})
}

func BenchmarkAxpyGo(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	bx, _ := newBuf(randF32(rng, benchN, -1, 1))
	by, _ := newBuf(randF32(rng, benchN, -1, 1))
	args := []backend.Arg{bufArg(by), bufArg(bx), u32Arg(benchN), f32Arg(1e-3)}
	for _, block := range []int{256, 1024} {
		b.Run(fmt.Sprintf("block=%d", block), func(b *testing.B) {
			grid := backend.Dim3{X: benchN / block}
			b.SetBytes(12 * benchN)
			for b.Loop() {
				runAll(goAxpy, grid, backend.Dim3{X: block}, args, benchBatch/block)
			}
			b.ReportMetric(12*benchN*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
		})
	}
}

func BenchmarkCopyBaseline(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	src := randF32(rng, 2*benchN, -1, 1)
	dst := make([]float32, 2*benchN)
	copy(dst, src) // fault the pages in before timing
	workers := runtime.NumCPU()
	for _, split := range []struct {
		name  string
		chunk int // float32s per hand-out
	}{
		{"per-goroutine", ceilDiv(len(src), workers)},
		{"64KiB", 16 << 10},
	} {
		b.Run("split="+split.name, func(b *testing.B) {
			b.SetBytes(16 * benchN)
			for b.Loop() {
				parallelFor(len(src), split.chunk, workers, func(lo, hi int) {
					copy(dst[lo:hi], src[lo:hi])
				})
			}
			b.ReportMetric(16*benchN*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
		})
	}
}

// BenchmarkReduceSumGo times the first pass of reduce_sum over n = 16 Mi
// float32s (1024 groups of 256), generated (Source, whose CPU reduction is
// hand-tuned), hand-written (handwrittenGo) and generated-untuned (the
// generated Go), beside copy() of the same n float32s into another slice on
// the same goroutines, one contiguous part each: GB/s counts the bytes each
// reads plus those it writes (reduce: 4·n; copy: 8·n), so reduce's GB/s over
// copy's is how close the reduction comes to what the memory system moves
// for a plain copy (the bar is 0.8).
func BenchmarkReduceSumGo(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	x := randF32(rng, benchN, 0, 1)
	bx, _ := newBuf(x)
	const block, grid = 256, 1024
	bp, _ := newBuf(make([]float32, grid))
	args := []backend.Arg{bufArg(bp), bufArg(bx), u32Arg(benchN)}
	for _, set := range []struct {
		name string
		k    backend.GoKernel
	}{{"generated", goReduceSum}, {"handwritten", handwrittenGo().Go[OpReduceSum]}, {"generated-untuned", generated().Go[OpReduceSum]}} {
		b.Run(set.name, func(b *testing.B) {
			b.SetBytes(4 * benchN)
			for b.Loop() {
				runAll(set.k, backend.Dim3{X: grid}, backend.Dim3{X: block}, args, 16)
			}
			b.ReportMetric(4*benchN*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
		})
	}
	b.Run("copy()", func(b *testing.B) {
		dst := make([]float32, benchN)
		copy(dst, x) // fault the pages in before timing
		workers := runtime.NumCPU()
		b.SetBytes(8 * benchN)
		for b.Loop() {
			parallelFor(len(x), ceilDiv(len(x), workers), workers, func(lo, hi int) {
				copy(dst[lo:hi], x[lo:hi])
			})
		}
		b.ReportMetric(8*benchN*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
	})
}

// sgemmBenchSize is m = n = k of the sgemm benchmarks.
const sgemmBenchSize = 512

func sgemmBenchInputs() (a, bm, c []float32) {
	rng := rand.New(rand.NewPCG(2, 2))
	const s = sgemmBenchSize
	return randF32(rng, s*s, -1, 1), randF32(rng, s*s, -1, 1), make([]float32, s*s)
}

func reportGFLOPs(b *testing.B) {
	const s = sgemmBenchSize
	b.ReportMetric(2*s*s*s*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}

// BenchmarkSgemmGo runs the Go sgemm kernel over 512³ with 16×16 blocks (the
// usual GPU launch) on all cores.
func BenchmarkSgemmGo(b *testing.B) {
	a, bm, c := sgemmBenchInputs()
	ba, _ := newBuf(a)
	bb, _ := newBuf(bm)
	bc, _ := newBuf(c)
	const s, block = sgemmBenchSize, 16
	args := []backend.Arg{bufArg(bc), bufArg(ba), bufArg(bb), u32Arg(s), u32Arg(s), u32Arg(s), f32Arg(1), f32Arg(0)}
	for b.Loop() {
		runAll(goSgemm, backend.Dim3{X: s / block, Y: s / block}, backend.Dim3{X: block, Y: block}, args, 1)
	}
	reportGFLOPs(b)
}

// BenchmarkSgemmNaive is the baseline BenchmarkSgemmGo is measured against: the
// textbook i-j-k triple loop on one goroutine, 512³.
func BenchmarkSgemmNaive(b *testing.B) {
	a, bm, c := sgemmBenchInputs()
	const s = sgemmBenchSize
	for b.Loop() {
		for i := 0; i < s; i++ {
			for j := 0; j < s; j++ {
				var sum float32
				for p := 0; p < s; p++ {
					sum += a[i*s+p] * bm[p*s+j]
				}
				c[i*s+j] = sum
			}
		}
	}
	reportGFLOPs(b)
}

// BenchmarkReduceSumOneCore times on one core what BenchmarkReduceSumGo
// times on all: the first pass of reduce_sum and dot over n float32s (4 Mi,
// 16 Mi and 64 Mi: 16, 64 and 256 MiB, beyond the caches), Source's with
// 1024 groups of 256 (as gpu bench's reduce_gbps launches it), and with one
// group (which sums one contiguous range), and the generated Go's, beside
// copy() of the same n float32s into another slice. cpu-GB/s is the bytes
// read (reduce_sum: 4·n, dot: 8·n) or, for copy(), read and written (8·n)
// per second of the thread's CPU time, which other processes sharing the
// cores inflate far less than the wall-clock time: reduce_sum's cpu-GB/s
// over copy()'s is how close the reduction comes to what one core moves for
// a plain copy (the bar is 0.8). The groups run in order on the
// benchmark's thread, as one worker of the CPU backend runs its share.
func BenchmarkReduceSumOneCore(b *testing.B) {
	for _, n := range []int{4 << 20, 16 << 20, 64 << 20} {
		b.Run(fmt.Sprintf("n=%dMi", n>>20), func(b *testing.B) { benchReduceOneCore(b, n) })
	}
}

func benchReduceOneCore(b *testing.B, n int) {
	rng := rand.New(rand.NewPCG(1, 1))
	x := randF32(rng, n, 0, 1)
	bx, _ := newBuf(x)
	by, _ := newBuf(x)
	bp, _ := newBuf(make([]float32, 1024))
	sumArgs := []backend.Arg{bufArg(bp), bufArg(bx), u32Arg(n)}
	dotArgs := []backend.Arg{bufArg(bp), bufArg(bx), bufArg(by), u32Arg(n)}
	dst := make([]float32, n)
	copy(dst, x) // fault the pages in before timing
	launch := func(k backend.GoKernel, args []backend.Arg, grid int) func() {
		return func() {
			g := backend.Group{Size: backend.Dim3{X: 256, Y: 1, Z: 1}, Grid: backend.Dim3{X: grid, Y: 1, Z: 1}}
			for gx := range grid {
				g.ID = backend.Dim3{X: gx}
				k(g, args)
			}
		}
	}
	for _, c := range []struct {
		name  string
		run   func()
		bytes float64
	}{
		{"reduce_sum/grid=1024", launch(goReduceSum, sumArgs, 1024), 4},
		{"reduce_sum/grid=1", launch(goReduceSum, sumArgs, 1), 4},
		{"dot/grid=1024", launch(goDot, dotArgs, 1024), 8},
		{"reduce_sum-untuned/grid=1024", launch(generated().Go[OpReduceSum], sumArgs, 1024), 4},
		{"copy()", func() { copy(dst, x) }, 8},
	} {
		b.Run(c.name, func(b *testing.B) {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			cpu0, cpuOK := threadCPUTime()
			for b.Loop() {
				c.run()
			}
			if cpu1, ok := threadCPUTime(); cpuOK && ok {
				b.ReportMetric(c.bytes*float64(n)*float64(b.N)/float64((cpu1-cpu0).Nanoseconds()), "cpu-GB/s")
			}
		})
	}
}
