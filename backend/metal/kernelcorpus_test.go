package metal_test

import (
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/backend/backendtest"
	"github.com/anygpu/gpu/backend/metal/mslcheck"
	"github.com/anygpu/gpu/internal/kernelcorpus"
	"github.com/anygpu/gpu/kernels"
	"github.com/stretchr/testify/require"
)

// TestKernelCorpusMSL is the differential test of the kernel language's MSL
// where there is no Mac: every case of the corpus (internal/kernelcorpus)
// runs from kernelcorpus.Kernels.MSL on the CPU through mslcheck (clang++,
// one thread per work item, the threads of a group sharing threadgroup
// memory and meeting at real barriers, atomics contended for real), and every
// buffer is compared with the CPU backend's run of the same case: integers
// exactly, floats within the case's tolerance, unordered buffers as
// multisets. Without clang++ it skips, unless ANYGPU_TEST_REQUIRE lists "msl".
func TestKernelCorpusMSL(t *testing.T) {
	if _, err := mslcheck.Clang(); err != nil {
		if backendtest.Required("msl") {
			t.Fatal(err)
		}
		t.Skipf("MSL execution skipped: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	ref, err := gpu.Open(ctx, gpu.WithBackends("cpu"))
	require.NoError(t, err)
	defer func() { _ = ref.Close() }()
	refMod, err := ref.Compile(ctx, kernelcorpus.Kernels)
	require.NoError(t, err, "compile the corpus on the CPU")
	defer func() { _ = refMod.Close() }()
	prog, err := mslcheck.Build(ctx, "kernelcorpus MSL", kernelcorpus.Kernels.MSL)
	require.NoError(t, err)
	defer prog.Close()

	cases := kernelcorpus.Cases()
	require.NotEmpty(t, cases)
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			want := runOnDevice(ctx, t, ref, refMod, c)
			got := runMSL(ctx, t, prog, c)
			compareBuffers(t, c, got, want)
		})
	}
}

// runOnDevice launches a case's kernel from mod on dev and reads every
// buffer back (nil for the scalars).
func runOnDevice(ctx context.Context, t *testing.T, dev *gpu.Device, mod *gpu.Module, c kernelcorpus.Case) []kernelcorpus.Arg {
	t.Helper()
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
		defer func() { _ = b.Close() }()
		bufs[i], args[i] = b, gpu.Buf(b)
	}
	st := dev.DefaultStream()
	require.NoError(t, st.Launch(k, c.Grid, c.Block, args...), "launch %s", c.Kernel)
	require.NoError(t, st.Synchronize(ctx))
	out := make([]kernelcorpus.Arg, len(c.Args))
	for i, a := range c.Args {
		if a.IsScalar {
			continue
		}
		switch {
		case a.F32 != nil:
			out[i].F32, err = gpu.ToSlice[float32](ctx, bufs[i])
			out[i].F32 = out[i].F32[:min(len(a.F32), len(out[i].F32))]
		case a.I32 != nil:
			out[i].I32, err = gpu.ToSlice[int32](ctx, bufs[i])
			out[i].I32 = out[i].I32[:min(len(a.I32), len(out[i].I32))]
		default:
			out[i].U32, err = gpu.ToSlice[uint32](ctx, bufs[i])
			out[i].U32 = out[i].U32[:min(len(a.U32), len(out[i].U32))]
		}
		require.NoError(t, err)
	}
	return out
}

// runMSL launches a case's kernel from the corpus's MSL on the CPU, with the
// buffers at [[buffer(0..n-1)]] and the scalars packed as the Metal backend
// packs them (backend.PackScalars) at [[buffer(n)]], and returns the buffers.
func runMSL(ctx context.Context, t *testing.T, prog *mslcheck.Program, c kernelcorpus.Case) []kernelcorpus.Arg {
	t.Helper()
	l := mslcheck.Launch{Kernel: c.Kernel, Grid: dim3(c.Grid), Block: dim3(c.Block)}
	var scalars []backend.Arg
	for _, a := range c.Args {
		if a.IsScalar {
			scalars = append(scalars, backend.Arg{Kind: a.Scalar.Kind(), Bits: a.Scalar.Bits()})
			continue
		}
		words := make([]uint32, 0, a.Elems())
		for _, v := range a.F32 {
			words = append(words, math.Float32bits(v))
		}
		for _, v := range a.I32 {
			words = append(words, uint32(v))
		}
		words = append(words, a.U32...)
		b := make([]byte, 4*len(words))
		for j, w := range words {
			binary.LittleEndian.PutUint32(b[4*j:], w)
		}
		l.Buffers = append(l.Buffers, b)
	}
	if len(scalars) > 0 {
		l.Params = backend.PackScalars(scalars, false)
	}
	require.NoError(t, prog.Run(ctx, []mslcheck.Launch{l}))
	out := make([]kernelcorpus.Arg, len(c.Args))
	next := 0
	for i, a := range c.Args {
		if a.IsScalar {
			continue
		}
		b := l.Buffers[next]
		next++
		word := func(j int) uint32 { return binary.LittleEndian.Uint32(b[4*j:]) }
		switch {
		case a.F32 != nil:
			out[i].F32 = make([]float32, len(a.F32))
			for j := range out[i].F32 {
				out[i].F32[j] = math.Float32frombits(word(j))
			}
		case a.I32 != nil:
			out[i].I32 = make([]int32, len(a.I32))
			for j := range out[i].I32 {
				out[i].I32[j] = int32(word(j))
			}
		default:
			out[i].U32 = make([]uint32, len(a.U32))
			for j := range out[i].U32 {
				out[i].U32[j] = word(j)
			}
		}
	}
	return out
}

func dim3(d gpu.Dim3) [3]int { return [3]int{d.X, d.Y, d.Z} }

// compareBuffers compares got with the reference run want, buffer by buffer,
// as the conformance suite's kernel-language test does.
func compareBuffers(t *testing.T, c kernelcorpus.Case, got, want []kernelcorpus.Arg) {
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
		where := fmt.Sprintf("%s argument %d", c.Kernel, i)
		sameInts(t, where, w.I32, g.I32)
		sameInts(t, where, w.U32, g.U32)
		require.Len(t, g.F32, len(w.F32), where)
		var bad []string
		for j := range w.F32 {
			if !kernels.AlmostEqual(g.F32[j], w.F32[j], c.ULP, c.Abs) {
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

// sameInts fails t, listing the first differences, unless got equals want
// element for element.
func sameInts[T int32 | uint32](t *testing.T, where string, want, got []T) {
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
