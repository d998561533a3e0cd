package tensor

import (
	"context"
	"testing"

	"github.com/anygpu/gpu"
	"github.com/stretchr/testify/require"
)

// BenchmarkTransformerOps times GPT-2 124M's ops (width 768, 12 heads of
// 64, 1024 positions) as prefill (1024 tokens) and decode (one token at
// position 1023) run them, in float32 and in bfloat16, each synchronized,
// and reports GFLOP/s. Run with -run '^$' -bench TransformerOps -benchtime
// 20x.
func BenchmarkTransformerOps(b *testing.B) {
	benchDevices(b, func(b *testing.B, dev *gpu.Device) {
		for _, d := range []DType{Float32, BFloat16} {
			b.Run(d.String(), func(b *testing.B) { benchTransformerOps(b, dev, d) })
		}
	})
}

func benchTransformerOps(b *testing.B, dev *gpu.Device, d DType) {
	const E, H, D, T, V = 768, 12, 64, 1024, 50257
	ctx := context.Background()
	mk := func(shape ...int) *Tensor {
		x, err := Zeros(ctx, dev, d, shape...)
		require.NoError(b, err)
		b.Cleanup(func() { _ = x.Close() })
		return x
	}
	xs, x1 := mk(T, E), mk(1, E)
	wAttn, bAttn, wFc := mk(E, 3*E), mk(3*E), mk(E, 4*E)
	wte := mk(V, E)
	head, err := wte.Transpose(0, 1)
	require.NoError(b, err)
	defer head.Close()
	kc, vc := mk(H, T, D), mk(H, T, D)
	qs, q1 := mk(T, H, D), mk(1, H, D)
	ops := []struct {
		name  string
		flops float64
		f     func() (*Tensor, error)
	}{
		{"prefill c_attn 1024x768x2304", 2 * T * E * 3 * E, func() (*Tensor, error) { return Linear(xs, wAttn, bAttn) }},
		{"prefill c_fc 1024x768x3072", 2 * T * E * 4 * E, func() (*Tensor, error) { return Linear(xs, wFc, nil) }},
		{"decode c_attn 1x768x2304", 2 * E * 3 * E, func() (*Tensor, error) { return Linear(x1, wAttn, bAttn) }},
		{"decode c_fc 1x768x3072", 2 * E * 4 * E, func() (*Tensor, error) { return Linear(x1, wFc, nil) }},
		{"decode lm head 1x768x50257 (tied, transposed)", 2 * E * V, func() (*Tensor, error) { return MatMul(x1, head) }},
		{"prefill attention 1024 causal", 2 * 2 * H * D * T * T / 2, func() (*Tensor, error) { return Attention(qs, kc, vc, 0, 0.125) }},
		{"decode attention at 1023", 2 * 2 * H * D * T, func() (*Tensor, error) { return Attention(q1, kc, vc, T-1, 0.125) }},
	}
	for _, op := range ops {
		b.Run(op.name, func(b *testing.B) {
			if y, err := op.f(); err != nil { // a backend binding less than the operand (lavapipe: 128 MiB)
				b.Skipf("%s: %v", op.name, err)
			} else {
				_ = y.Close()
			}
			for b.Loop() {
				y, err := op.f()
				require.NoError(b, err)
				require.NoError(b, Synchronize(ctx, dev))
				_ = y.Close()
			}
			b.ReportMetric(op.flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}
