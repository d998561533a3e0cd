package cpu_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/backend/cpu"
)

// BenchmarkMatMul times the CPU stream's MatMul (float32, C = A·B, then
// Synchronize) on a square product and GPT-2's shapes: the MLP's up
// projection over 1024 tokens (with bias and GELU, as a fused Linear), the
// attention's output projection, and one decoded token's QKV projection.
// Reported: GFLOP/s.
func BenchmarkMatMul(b *testing.B) {
	for _, tc := range []struct {
		m, n, k int
		transB  bool
		gelu    bool
	}{
		{2048, 2048, 2048, false, false},
		{1024, 3072, 768, false, true},
		{1024, 768, 768, true, false},
		{1, 2304, 768, false, false},
	} {
		name := fmt.Sprintf("%dx%dx%d", tc.m, tc.n, tc.k)
		if tc.transB {
			name += "/bt"
		}
		if tc.gelu {
			name += "/bias+gelu"
		}
		b.Run(name, func(b *testing.B) {
			ctx := context.Background()
			dev, err := cpu.Driver{}.Open(ctx, 0)
			if err != nil {
				b.Fatal(err)
			}
			defer dev.Close()
			st, err := dev.NewStream()
			if err != nil {
				b.Fatal(err)
			}
			defer st.Close()
			alloc := func(floats int) backend.Buffer {
				buf, err := dev.Alloc(4 * int64(floats))
				if err != nil {
					b.Fatal(err)
				}
				return buf
			}
			a, bm, c, bias := alloc(tc.m*tc.k), alloc(tc.k*tc.n), alloc(tc.m*tc.n), alloc(tc.n)
			defer func() { a.Close(); bm.Close(); c.Close(); bias.Close() }()
			args := backend.MatMulArgs{
				M: tc.m, N: tc.n, K: tc.k, A: a, B: bm, C: c, LDA: tc.k, LDB: tc.n, LDC: tc.n,
				TransB: tc.transB, In: backend.MatMulFloat32, Out: backend.MatMulFloat32, Alpha: 1, Batch: 1,
			}
			if tc.transB {
				args.LDB = tc.k
			}
			if tc.gelu {
				args.Bias, args.Act = bias, backend.MatMulGELU
			}
			run := func() {
				if err := st.(backend.MatMuler).MatMul(args); err != nil {
					b.Fatal(err)
				}
				if err := st.Synchronize(ctx); err != nil {
					b.Fatal(err)
				}
			}
			run() // warm-up: page faults, workspaces
			b.ResetTimer()
			start := time.Now()
			for range b.N {
				run()
			}
			b.ReportMetric(2*float64(tc.m)*float64(tc.n)*float64(tc.k)*float64(b.N)/time.Since(start).Seconds()/1e9, "GFLOP/s")
		})
	}
}
