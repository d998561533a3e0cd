package tensor

import (
	"context"
	"testing"

	"github.com/anygpu/gpu"
	"github.com/stretchr/testify/require"
)

// benchDevice is the first device of the test backends (the CPU's unless
// ANYGPU_BACKEND-style selection is wanted: run with -run '^$' -bench .).
func benchDevices(b *testing.B, f func(b *testing.B, dev *gpu.Device)) {
	for _, d := range devices {
		if d.dev == nil {
			continue
		}
		b.Run(d.name, func(b *testing.B) { f(b, d.dev) })
	}
}

// BenchmarkOps times ops over 1M-element float32 and bfloat16 tensors (4
// and 2 MiB each), each op synchronized, and reports bytes moved per
// second.
func BenchmarkOps(b *testing.B) {
	benchDevices(b, func(b *testing.B, dev *gpu.Device) {
		for _, d := range []DType{Float32, BFloat16} {
			b.Run(d.String(), func(b *testing.B) { benchOps(b, dev, d) })
		}
	})
}

func benchOps(b *testing.B, dev *gpu.Device, d DType) {
	const rows, cols = 1024, 1024
	ctx := context.Background()
	x, err := Zeros(ctx, dev, d, rows, cols)
	require.NoError(b, err)
	defer x.Close()
	xt, err := x.Transpose(0, 1)
	require.NoError(b, err)
	defer xt.Close()
	row, err := Zeros(ctx, dev, d, cols)
	require.NoError(b, err)
	defer row.Close()
	ops := []struct {
		name  string
		bytes int64
		f     func() (*Tensor, error)
	}{
		{"add", 12 * rows * cols, func() (*Tensor, error) { return Add(x, x) }},
		{"add row broadcast", 8 * rows * cols, func() (*Tensor, error) { return Add(x, row) }},
		{"gelu", 8 * rows * cols, func() (*Tensor, error) { return GELU(x) }},
		{"contiguous of transposed", 8 * rows * cols, func() (*Tensor, error) { return xt.Contiguous() }},
		{"softmax", 8 * rows * cols, func() (*Tensor, error) { return Softmax(x) }},
		{"layer norm", 8 * rows * cols, func() (*Tensor, error) { return LayerNorm(x, row, row, 1e-5) }},
		{"sum rows", 4 * rows * cols, func() (*Tensor, error) { return Sum(x, 1) }},
	}
	for _, op := range ops {
		b.Run(op.name, func(b *testing.B) {
			b.SetBytes(op.bytes * int64(d.Size()) / 4)
			for b.Loop() {
				y, err := op.f()
				require.NoError(b, err)
				require.NoError(b, Synchronize(ctx, dev))
				_ = y.Close()
			}
		})
	}
}
