package kernelcorpus_test

import (
	"testing"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/internal/kernelcorpus"
	"github.com/anygpu/gpu/kernel"
)

// hostBuffer is a buffer argument in host memory, as the CPU backend's.
type hostBuffer []byte

func (h hostBuffer) Bytes() []byte { return h }
func (h hostBuffer) Size() int64   { return int64(len(h)) }
func (h hostBuffer) Close() error  { return nil }

// BenchmarkSaxpyRunTimeVsGenerated times, on one core, the corpus's Saxpy
// (a thread per element, guarded by i < n) translated at run time
// (kernel.Translate, the closure compiler) against its generated Go: 1 Mi
// elements in blocks of 256. ns/element is the time per element.
func BenchmarkSaxpyRunTimeVsGenerated(b *testing.B) {
	var src string
	for _, f := range kernelcorpus.Files() {
		if f.Name == "elementwise.go" {
			src = f.Src
		}
	}
	if src == "" {
		b.Fatal("no elementwise.go in the corpus")
	}
	rt, err := kernel.Translate(src)
	if err != nil {
		b.Fatal(err)
	}
	const n, block = 1 << 20, 256
	f32s := func() backend.Arg { return backend.Arg{Kind: backend.ArgBuffer, Buffer: hostBuffer(make([]byte, 4*n))} }
	args := []backend.Arg{f32s(), f32s(), {Kind: backend.ArgU32, Bits: n}, {Kind: backend.ArgF32, Bits: 0x3f800000}}
	for _, k := range []struct {
		name string
		fn   backend.GoKernel
	}{{"generated", kernelcorpus.Kernels.Go["Saxpy"]}, {"runtime", rt.Go["Saxpy"]}} {
		b.Run(k.name, func(b *testing.B) {
			g := backend.Group{Size: backend.Dim3{X: block, Y: 1, Z: 1}, Grid: backend.Dim3{X: n / block, Y: 1, Z: 1}}
			for range b.N {
				for i := range n / block {
					g.ID = backend.Dim3{X: i}
					k.fn(g, args)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/element")
		})
	}
}
