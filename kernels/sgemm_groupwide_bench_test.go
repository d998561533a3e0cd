package kernels

import (
	"runtime"
	"testing"

	"github.com/anygpu/gpu/backend"
)

// BenchmarkSgemmGroupWideOneCore times, on one goroutine without the CPU
// backend, the group functions of OpSgemm64MMA (sgemm written on
// kernel.MatMulAdd, generated Go), of OpSgemmFrom (on kernel.MatMulAddFrom,
// the CPU's sgemm now) and of the hand-tuned GEMM the CPU ran before
// (kernels/internal/handwritten), each over a grid of a group per 64×64
// tile (a group per 128×128 for the hand-tuned one), for a 1024³ product:
// where the group-wide kernels' time goes (staging, packing, the
// micro-kernel) shows under -cpuprofile.
func BenchmarkSgemmGroupWideOneCore(b *testing.B) {
	const mm = 1024
	buf := func(count int) backend.Arg {
		data := make([]float32, count)
		for i := range data {
			data[i] = 1
		}
		hb, _ := newBuf(data)
		return bufArg(hb)
	}
	ma, mb, mc := buf(mm*mm), buf(mm*mm), buf(mm*mm)
	args := []backend.Arg{mc, ma, mb, u32Arg(mm), u32Arg(mm), u32Arg(mm), f32Arg(1), f32Arg(0)}
	for _, tc := range []struct {
		name string
		fn   backend.GoKernel
		tile int
	}{
		{"generated=" + OpSgemm64MMA, SgemmSource().Go[OpSgemm64MMA], 64},
		{"generated=" + OpSgemmFrom, SgemmSource().Go[OpSgemmFrom], 64},
		{"handwritten=" + OpSgemm, handwrittenGo().Go[OpSgemm], 128},
	} {
		b.Run(tc.name, func(b *testing.B) {
			grid := backend.Dim3{X: mm / tc.tile, Y: mm / tc.tile, Z: 1}
			g := backend.Group{Size: backend.Dim3{X: 16, Y: 16, Z: 1}, Grid: grid}
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			cpu0, cpuOK := threadCPUTime()
			for range b.N {
				for gy := range grid.Y {
					for gx := range grid.X {
						g.ID = backend.Dim3{X: gx, Y: gy}
						tc.fn(g, args)
					}
				}
			}
			flops := 2 * float64(mm) * mm * mm * float64(b.N)
			b.ReportMetric(flops/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			if cpu1, ok := threadCPUTime(); cpuOK && ok {
				b.ReportMetric(flops/(cpu1-cpu0).Seconds()/1e9, "cpu-GFLOP/s")
			}
		})
	}
}
