package tensor

import (
	"context"
	"testing"

	"github.com/anygpu/gpu"
	"github.com/stretchr/testify/require"
)

// BenchmarkAttention times causal attention in bfloat16 at issue 18's shape
// (32 heads of 128, sequence 4096): a prefill of the whole sequence and a
// decode step at its last position, over contiguous caches and over paged
// ones (pages of 16 positions, the block table reversed), each synchronized,
// and reports TFLOP/s counted as PyTorch's causal scaled_dot_product_attention
// is (4·heads·dim·T²/2 for the prefill). tensor/testdata/attention_peer.py
// times PyTorch on the same shape. Run on a GPU with
//
//	go test ./tensor -run '^$' -bench 'Attention/cuda' -benchtime 20x
//
// (the CPU backend takes minutes per prefill).
func BenchmarkAttention(b *testing.B) {
	const H, D, T, P = 32, 128, 4096, 16
	benchDevices(b, func(b *testing.B, dev *gpu.Device) {
		ctx := context.Background()
		mk := func(shape ...int) *Tensor {
			x, err := Zeros(ctx, dev, BFloat16, shape...)
			require.NoError(b, err)
			b.Cleanup(func() { _ = x.Close() })
			return x
		}
		qs, q1 := mk(T, H, D), mk(1, H, D)
		kc, vc := mk(H, T, D), mk(H, T, D)
		kp, vp := mk(T/P, H, P, D), mk(T/P, H, P, D)
		order := make([]int32, T/P)
		for i := range order {
			order[i] = int32(len(order) - 1 - i)
		}
		table, err := FromSlice(ctx, dev, order, len(order))
		require.NoError(b, err)
		defer table.Close()
		const scale = 0.08838834764831845 // 1/√128
		ops := []struct {
			name  string
			flops float64
			f     func() (*Tensor, error)
		}{
			{"prefill 4096 causal", 4 * H * D * T * T / 2, func() (*Tensor, error) { return Attention(qs, kc, vc, 0, scale) }},
			{"paged prefill 4096 causal", 4 * H * D * T * T / 2, func() (*Tensor, error) { return PagedAttention(qs, kp, vp, table, 0, scale) }},
			{"decode at 4095", 4 * H * D * T, func() (*Tensor, error) { return Attention(q1, kc, vc, T-1, scale) }},
			{"paged decode at 4095", 4 * H * D * T, func() (*Tensor, error) { return PagedAttention(q1, kp, vp, table, T-1, scale) }},
		}
		for _, op := range ops {
			b.Run(op.name, func(b *testing.B) {
				if y, err := op.f(); err != nil {
					b.Skipf("%s: %v", op.name, err)
				} else {
					_ = y.Close()
				}
				require.NoError(b, Synchronize(ctx, dev))
				for b.Loop() {
					y, err := op.f()
					require.NoError(b, err)
					require.NoError(b, Synchronize(ctx, dev))
					_ = y.Close()
				}
				b.ReportMetric(op.flops*float64(b.N)/b.Elapsed().Seconds()/1e12, "TFLOP/s")
			})
		}
	})
}
