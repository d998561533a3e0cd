package kernels

import (
	"runtime"
	"testing"

	"github.com/anygpu/gpu/backend"
)

// BenchmarkGoKernelsOneCore times the CPU group functions of the generated
// built-ins (Source, and generated-untuned: Source without its hand-tuned
// exceptions) against the hand-written Go (handwrittenGo) on one core,
// without the CPU backend's goroutines, launched as BenchmarkBuiltins
// launches them but over 256 Ki elements, which stay in the caches: it
// measures the code, where the backend benchmark measures memory as well.
// ns/element is the time per element (sgemm: per multiply-add);
// cpu-ns/element (Linux) the CPU time the benchmark's thread spent per
// element, which other processes sharing the cores inflate far less than the
// wall-clock time: compare generated with hand-written by it on a busy
// machine.
func BenchmarkGoKernelsOneCore(b *testing.B) {
	const n, mm = 256 << 10, 128
	buf := func(count int) backend.Arg {
		data := make([]float32, count)
		for i := range data {
			data[i] = 1
		}
		hb, _ := newBuf(data)
		return bufArg(hb)
	}
	x, y, z, partial := buf(n), buf(n), buf(n), buf(1024)
	ma, mb, mc := buf(mm*mm), buf(mm*mm), buf(mm*mm)
	cases := []struct {
		op          string
		grid, block backend.Dim3
		args        []backend.Arg
		work        int
	}{
		{OpFill, backend.Dim3{X: n / 1024}, backend.Dim3{X: 256}, []backend.Arg{z, u32Arg(n), f32Arg(1)}, n},
		{OpAxpy, backend.Dim3{X: n / 1024}, backend.Dim3{X: 256}, []backend.Arg{y, x, u32Arg(n), f32Arg(0)}, n},
		{OpAdd, backend.Dim3{X: n / 1024}, backend.Dim3{X: 256}, []backend.Arg{z, x, y, u32Arg(n)}, n},
		{OpReduceSum, backend.Dim3{X: 256}, backend.Dim3{X: 256}, []backend.Arg{partial, x, u32Arg(n)}, n},
		{OpDot, backend.Dim3{X: 256}, backend.Dim3{X: 256}, []backend.Arg{partial, x, y, u32Arg(n)}, n},
		{OpSgemm, backend.Dim3{X: mm / 16, Y: mm / 16}, backend.Dim3{X: 16, Y: 16},
			[]backend.Arg{mc, ma, mb, u32Arg(mm), u32Arg(mm), u32Arg(mm), f32Arg(1), f32Arg(0)}, mm * mm * mm},
	}
	sets := []struct {
		name string
		src  backend.Source
	}{{"generated", Source()}, {"handwritten", handwrittenGo()}, {"generated-untuned", generated()}}
	for _, c := range cases {
		for _, s := range sets {
			b.Run(c.op+"/"+s.name, func(b *testing.B) {
				fn := s.src.Go[c.op]
				grid, block := c.grid.Norm(), c.block.Norm()
				g := backend.Group{Size: block, Grid: grid}
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				cpu0, cpuOK := threadCPUTime()
				for range b.N {
					for gy := range grid.Y {
						for gx := range grid.X {
							g.ID = backend.Dim3{X: gx, Y: gy}
							fn(g, c.args)
						}
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(c.work), "ns/element")
				if cpu1, ok := threadCPUTime(); cpuOK && ok {
					b.ReportMetric(float64((cpu1-cpu0).Nanoseconds())/float64(b.N)/float64(c.work), "cpu-ns/element")
				}
			})
		}
	}
}
