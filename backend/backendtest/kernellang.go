package backendtest

import (
	"cmp"

	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/internal/kernelcorpus"
	"github.com/anygpu/gpu/kernel"
	"github.com/anygpu/gpu/kernels"
	"github.com/stretchr/testify/require"
)

// testKernelLanguage runs the kernel language's corpus (every construct the
// language accepts) on the backend, from the generated Source and from
// kernel.Translate at run time, and compares every buffer with the CPU
// backend's run of the generated Go: integers exactly, floats within each
// case's tolerance.
func (s *suite) testKernelLanguage(t *testing.T) {
	ctx := ctxT(t)
	ref, err := gpu.Open(ctx, gpu.WithBackends("cpu"))
	require.NoError(t, err)
	t.Cleanup(func() { _ = ref.Close() })
	refMod, err := ref.Compile(ctx, kernelcorpus.Kernels)
	require.NoError(t, err, "compile the corpus on the CPU")
	t.Cleanup(func() { _ = refMod.Close() })

	generated, err := s.dev.Compile(ctx, kernelcorpus.Kernels)
	require.NoError(t, err, "compile the generated corpus")
	t.Cleanup(func() { _ = generated.Close() })

	translated := map[string]*gpu.Module{} // kernel name → module of its file, from kernel.Translate
	for _, f := range kernelcorpus.Files() {
		src, err := kernel.Translate(f.Src)
		require.NoError(t, err, "translate %s", f.Name)
		mod, err := s.dev.Compile(ctx, src)
		require.NoError(t, err, "compile the translation of %s", f.Name)
		t.Cleanup(func() { _ = mod.Close() })
		for name := range src.Params {
			translated[name] = mod
		}
	}

	for _, c := range kernelcorpus.Cases() {
		t.Run(c.Name, func(t *testing.T) {
			want := runCase(t, ref, refMod, c)
			got := runCase(t, s.dev, generated, c)
			compareCase(t, c, "generated", got, want)
			mod := translated[c.Kernel]
			require.NotNil(t, mod, "kernel.Translate gave no %s", c.Kernel)
			got = runCase(t, s.dev, mod, c)
			compareCase(t, c, "translated", got, want)
		})
	}
}

// caseResult is every buffer argument of a case after its launch.
type caseResult []kernelcorpus.Arg

// runCase uploads a case's buffers to dev, launches its kernel from mod and
// reads every buffer back.
func runCase(t *testing.T, dev *gpu.Device, mod *gpu.Module, c kernelcorpus.Case) caseResult {
	t.Helper()
	ctx := ctxT(t)
	k, err := mod.Kernel(c.Kernel)
	require.NoError(t, err)
	args := make([]gpu.Arg, len(c.Args))
	bufs := make([]*gpu.Buffer, len(c.Args))
	for i, a := range c.Args {
		if a.IsScalar {
			args[i] = a.Scalar
			continue
		}
		var b *gpu.Buffer
		switch {
		case a.F32 != nil:
			b, err = gpu.FromSlice(ctx, dev, a.F32)
		case a.I32 != nil:
			b, err = gpu.FromSlice(ctx, dev, a.I32)
		default:
			b, err = gpu.FromSlice(ctx, dev, a.U32)
		}
		require.NoError(t, err)
		t.Cleanup(func() { _ = b.Close() })
		bufs[i], args[i] = b, gpu.Buf(b)
	}
	st := dev.DefaultStream()
	require.NoError(t, st.Launch(k, c.Grid, c.Block, args...), "launch %s on %s", c.Kernel, dev.Name())
	require.NoError(t, st.Synchronize(ctx))
	out := make(caseResult, len(c.Args))
	for i, a := range c.Args {
		if a.IsScalar {
			continue
		}
		switch {
		case a.F32 != nil:
			out[i].F32, err = gpu.ToSlice[float32](ctx, bufs[i])
			out[i].F32 = out[i].F32[:len(a.F32)]
		case a.I32 != nil:
			out[i].I32, err = gpu.ToSlice[int32](ctx, bufs[i])
			out[i].I32 = out[i].I32[:len(a.I32)]
		default:
			out[i].U32, err = gpu.ToSlice[uint32](ctx, bufs[i])
			out[i].U32 = out[i].U32[:len(a.U32)]
		}
		require.NoError(t, err)
	}
	return out
}

// compareCase compares got with the reference run want, buffer by buffer.
func compareCase(t *testing.T, c kernelcorpus.Case, how string, got, want caseResult) {
	t.Helper()
	for i, a := range c.Args {
		if a.IsScalar {
			continue
		}
		g, w := got[i], want[i]
		if a.Unordered {
			slices.Sort(g.U32)
			slices.Sort(w.U32)
			slices.Sort(g.I32)
			slices.Sort(w.I32)
			slices.SortFunc(g.F32, func(x, y float32) int { return cmp.Compare(x, y) })
			slices.SortFunc(w.F32, func(x, y float32) int { return cmp.Compare(x, y) })
		}
		where := fmt.Sprintf("%s: %s argument %d", how, c.Kernel, i)
		requireSameInts(t, where, w.I32, g.I32)
		requireSameInts(t, where, w.U32, g.U32)
		var bad []string
		for j := range w.F32 {
			if !kernels.AlmostEqual(g.F32[j], w.F32[j], c.ULP, c.Abs) && !flushedSubnormal(g.F32[j], w.F32[j]) {
				bad = append(bad, fmt.Sprintf("element %d: got %g (%#08x), want %g (%#08x)",
					j, g.F32[j], math.Float32bits(g.F32[j]), w.F32[j], math.Float32bits(w.F32[j])))
			}
		}
		if len(bad) > 0 {
			require.Failf(t, "float mismatch", "%s: %d of %d elements differ beyond %d ULP or %g; the first: %s",
				where, len(bad), len(w.F32), c.ULP, c.Abs, strings.Join(bad[:min(len(bad), 8)], "; "))
		}
	}
}

// requireSameInts fails t, listing the first differences, unless got
// equals want element for element.
func requireSameInts[T int32 | uint32](t *testing.T, where string, want, got []T) {
	t.Helper()
	require.Len(t, got, len(want), where)
	var bad []string
	for j := range want {
		if got[j] != want[j] {
			bad = append(bad, fmt.Sprintf("element %d: got %d, want %d", j, got[j], want[j]))
		}
	}
	if len(bad) > 0 {
		require.Failf(t, "integer mismatch", "%s: %d of %d elements differ; the first: %s",
			where, len(bad), len(want), strings.Join(bad[:min(len(bad), 8)], "; "))
	}
}

// flushedSubnormal reports whether got and want differ only by a GPU
// flushing subnormals to zero (NVIDIA's Vulkan, OpenGL and WebGPU do): both
// are zero or subnormal, of the same sign. The kernel language allows it.
func flushedSubnormal(got, want float32) bool {
	const minNormal = 0x1p-126
	return math.Abs(float64(got)) < minNormal && math.Abs(float64(want)) < minNormal &&
		math.Signbit(float64(got)) == math.Signbit(float64(want))
}
