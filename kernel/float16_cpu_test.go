package kernel_test

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/kernel"
)

// halfKernels round float32s to float16 and widen float16s to float32. The
// CPU runs them through the closure compiler, with float16 buffers in
// 4-byte words and the kernel-language conversions of the GPU dialects
// (package opt), so this checks those against ToFloat16 and ToFloat32.
const halfKernels = `package demo

import "github.com/anygpu/gpu/kernel"

//gpu:kernel
func Round(h []kernel.Float16, x []float32, n uint32) {
	if i := kernel.GlobalX(); i < n {
		h[i] = kernel.ToFloat16(x[i])
	}
}

//gpu:kernel
func Widen(f []float32, h []kernel.Float16, n uint32) {
	if i := kernel.GlobalX(); i < n {
		f[i] = kernel.ToFloat32(h[i])
	}
}
`

func TestFloat16KernelsOnTheCPU(t *testing.T) {
	src, err := kernel.Translate(halfKernels)
	require.NoError(t, err)
	ctx := context.Background()
	dev, err := gpu.Open(ctx, gpu.WithBackends("cpu"))
	require.NoError(t, err)
	t.Cleanup(func() { _ = dev.Close() })
	mod, err := dev.Compile(ctx, src)
	require.NoError(t, err)
	round, err := mod.Kernel("Round")
	require.NoError(t, err)
	widen, err := mod.Kernel("Widen")
	require.NoError(t, err)
	launch := func(k *gpu.Kernel, n int, args ...gpu.Arg) {
		t.Helper()
		require.NoError(t, dev.DefaultStream().Launch(k, gpu.D1((n+255)/256), gpu.D1(256), args...))
		require.NoError(t, dev.DefaultStream().Synchronize(ctx))
	}

	// Every half, widened.
	halves := make([]kernel.Float16, 1<<16)
	for i := range halves {
		halves[i] = kernel.Float16(i)
	}
	hb, err := gpu.FromSlice(ctx, dev, halves)
	require.NoError(t, err)
	fb, err := gpu.FromSlice(ctx, dev, make([]float32, len(halves)))
	require.NoError(t, err)
	launch(widen, len(halves), gpu.Buf(fb), gpu.Buf(hb), gpu.U32(uint32(len(halves))))
	widened, err := gpu.ToSlice[float32](ctx, fb)
	require.NoError(t, err)
	for i, f := range widened {
		require.Equal(t, math.Float32bits(kernel.ToFloat32(kernel.Float16(i))), math.Float32bits(f), "half %#04x", i)
	}

	// Float32s where rounding decides, and random bits, rounded by
	// neighbouring threads into the two halves of each word.
	var xs []float32
	for h := uint16(0); h < 0x7c00; h++ {
		a, b := kernel.ToFloat32(kernel.Float16(h)), kernel.ToFloat32(kernel.Float16(h+1))
		mid := float32((float64(a) + float64(b)) / 2)
		xs = append(xs, a, -mid, mid, math.Nextafter32(mid, 0), math.Nextafter32(mid, 1e9))
	}
	r := rand.New(rand.NewPCG(3, 4))
	for len(xs)%2 != 0 || len(xs) < 1<<19 {
		xs = append(xs, math.Float32frombits(r.Uint32()))
	}
	xb, err := gpu.FromSlice(ctx, dev, xs)
	require.NoError(t, err)
	rb, err := gpu.FromSlice(ctx, dev, make([]kernel.Float16, len(xs)))
	require.NoError(t, err)
	launch(round, len(xs), gpu.Buf(rb), gpu.Buf(xb), gpu.U32(uint32(len(xs))))
	rounded, err := gpu.ToSlice[kernel.Float16](ctx, rb)
	require.NoError(t, err)
	for i, h := range rounded {
		require.Equal(t, kernel.ToFloat16(xs[i]), h, "ToFloat16(%g = %#08x)", xs[i], math.Float32bits(xs[i]))
	}
}
