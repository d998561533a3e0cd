package metal_test

import (
	"context"
	"encoding/binary"
	"math"
	"testing"
	"time"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/backend/backendtest"
	"github.com/anygpu/gpu/backend/metal/mslcheck"
	"github.com/anygpu/gpu/internal/kernelcorpus"
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

// compareBuffers fails t unless got matches the CPU's run want.
func compareBuffers(t *testing.T, c kernelcorpus.Case, got, want []kernelcorpus.Arg) {
	t.Helper()
	if err := c.Compare(got, want); err != nil {
		require.Failf(t, "results differ", "%v", err)
	}
}
