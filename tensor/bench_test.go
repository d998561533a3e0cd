package tensor

import (
	"context"
	"fmt"
	"os"
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
// second. ANYGPU_BENCH_OPS_SHAPE=ROWSxCOLS times another shape (the issue's
// peers are 8192x4096: tensor/testdata/ops_peers.py --rows 8192 --cols
// 4096 --dtype bfloat16).
func BenchmarkOps(b *testing.B) {
	benchDevices(b, func(b *testing.B, dev *gpu.Device) {
		for _, d := range []DType{Float32, BFloat16} {
			b.Run(d.String(), func(b *testing.B) { benchOps(b, dev, d) })
		}
	})
}

func benchOps(b *testing.B, dev *gpu.Device, d DType) {
	rows, cols := 1024, 1024
	if v := os.Getenv("ANYGPU_BENCH_OPS_SHAPE"); v != "" {
		if _, err := fmt.Sscanf(v, "%dx%d", &rows, &cols); err != nil || rows <= 0 || cols <= 0 {
			b.Fatalf("ANYGPU_BENCH_OPS_SHAPE=%q: want ROWSxCOLS", v)
		}
	}
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
		bytes int
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
			b.SetBytes(int64(op.bytes) * int64(d.Size()) / 4)
			// Once untimed: the first op of a device compiles and loads the
			// package's kernels, which b.Loop would otherwise spread over
			// the timed iterations (the first op, add, seemed 2-3× slower).
			y, err := op.f()
			require.NoError(b, err)
			require.NoError(b, Synchronize(ctx, dev))
			_ = y.Close()
			for b.Loop() {
				y, err := op.f()
				require.NoError(b, err)
				require.NoError(b, Synchronize(ctx, dev))
				_ = y.Close()
			}
		})
	}
}
