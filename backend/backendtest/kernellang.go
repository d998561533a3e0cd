package backendtest

import (
	"strings"
	"testing"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/internal/kernelcorpus"
	"github.com/anygpu/gpu/kernel"
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

	// The subgroup kernels once more with EnvSubgroups "off": a backend that
	// ran them on the device's subgroups above (Source.Subgroups) runs their
	// portable form, subgroups of one thread, here.
	t.Run("SubgroupsOff", func(t *testing.T) {
		t.Setenv(EnvSubgroups, "off")
		portable, err := s.dev.Compile(ctx, kernelcorpus.Kernels)
		require.NoError(t, err, "compile the generated corpus with subgroups off")
		t.Cleanup(func() { _ = portable.Close() })
		n := 0
		for _, c := range kernelcorpus.Cases() {
			if !strings.HasPrefix(c.Kernel, "Subgroup") {
				continue
			}
			n++
			t.Run(c.Name, func(t *testing.T) {
				compareCase(t, c, "portable", runCase(t, s.dev, portable, c), runCase(t, ref, refMod, c))
			})
		}
		require.Positive(t, n, "the corpus has subgroup kernels")
	})
}

// EnvSubgroups is the variable with which the GPU backends run every kernel
// with subgroups of one thread when it is "off" (backend/vulkan's,
// backend/opengl's and backend/webgpu's EnvSubgroups).
const EnvSubgroups = "ANYGPU_SUBGROUPS"

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

// compareCase fails t unless got matches the reference run want
// (kernelcorpus.Case.Compare); how says which run got is.
func compareCase(t *testing.T, c kernelcorpus.Case, how string, got, want caseResult) {
	t.Helper()
	if err := c.Compare(got, want); err != nil {
		require.Failf(t, "results differ", "%s: %v", how, err)
	}
}
