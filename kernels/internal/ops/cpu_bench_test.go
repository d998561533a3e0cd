package ops

import (
	"os"
	"strings"
	"testing"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/kernel"
)

// hostBuffer is a buffer argument in host memory, as the CPU backend's.
type hostBuffer []byte

func (h hostBuffer) Bytes() []byte { return h }
func (h hostBuffer) Size() int64   { return int64(len(h)) }
func (h hostBuffer) Close() error  { return nil }

// runTimeKernels translates the kernel files at run time (kernel.Translate:
// the closure compiler, package kernel/internal/interp) and returns their
// CPU group functions.
func runTimeKernels(b *testing.B, src string) map[string]backend.GoKernel {
	s, err := kernel.Translate(src)
	if err != nil {
		b.Fatal(err)
	}
	return s.Go
}

// BenchmarkRunTimeVsGenerated times, on one core, kernels compiled at run
// time against the same kernels generated as Go (go generate), launched as
// BenchmarkBuiltins launches them: 1 Mi elements in blocks of 256, a thread
// per 4 elements (reduce_sum: 256 groups). ns/element is the time per
// element; the run-time ÷ generated ratio of two sub-benchmarks is their
// speed ratio inverted.
func BenchmarkRunTimeVsGenerated(b *testing.B) {
	src, err := os.ReadFile("elementwise.go")
	if err != nil {
		b.Fatal(err)
	}
	red, err := os.ReadFile("reduce.go")
	if err != nil {
		b.Fatal(err)
	}
	// One file: reduce.go's kernels after elementwise.go's (which has last).
	mark := "import \"github.com/anygpu/gpu/kernel\"\n"
	red = append(append([]byte{}, src...), red[strings.Index(string(red), mark)+len(mark):]...)
	const n = 1 << 20
	f32s := func() backend.Arg { return backend.Arg{Kind: backend.ArgBuffer, Buffer: hostBuffer(make([]byte, 4*n))} }
	y, x, partial := f32s(), f32s(), f32s()
	nArg := backend.Arg{Kind: backend.ArgU32, Bits: n}
	aArg := backend.Arg{Kind: backend.ArgF32, Bits: 0x3f800000}
	cases := []struct {
		name, op, src string
		generated     backend.GoKernel
		grid, block   int
		args          []backend.Arg
	}{
		{"axpy", "axpy", string(src), Kernels.Go["axpy"], n / 1024, 256, []backend.Arg{y, x, nArg, aArg}},
		{"reduce_sum", "reduce_sum", string(red), Kernels.Go["reduce_sum"], 256, 256, []backend.Arg{partial, x, nArg}},
	}
	for _, c := range cases {
		gen := c.generated
		rt := runTimeKernels(b, c.src)[c.op]
		for _, k := range []struct {
			name string
			fn   backend.GoKernel
		}{{"generated", gen}, {"runtime", rt}} {
			b.Run(c.name+"/"+k.name, func(b *testing.B) {
				if k.fn == nil {
					b.Fatalf("no kernel %s", c.op)
				}
				grid := backend.Dim3{X: c.grid, Y: 1, Z: 1}
				g := backend.Group{Size: backend.Dim3{X: c.block, Y: 1, Z: 1}, Grid: grid}
				for range b.N {
					for i := range c.grid {
						g.ID = backend.Dim3{X: i}
						k.fn(g, c.args)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/element")
			})
		}
	}
}
