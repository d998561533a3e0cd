package gemm

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"
)

var benchSizes = []int{512, 1024, 2048}

func benchInputs(s int) (a, b, c []float32) {
	rng := rand.New(rand.NewPCG(uint64(s), 1))
	return matrix(rng, s, s, s, -1, 1), matrix(rng, s, s, s, -1, 1), make([]float32, s*s+2)
}

func reportGFLOPs(b *testing.B, s int) {
	b.ReportMetric(2*float64(s)*float64(s)*float64(s)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}

// BenchmarkSgemm is one goroutine multiplying s×s matrices, with every
// micro-kernel this CPU has.
func BenchmarkSgemm(b *testing.B) {
	for _, kern := range kernels {
		for _, s := range benchSizes {
			if kern.name == "generic" && s > 1024 {
				continue // minutes of pure Go
			}
			b.Run(fmt.Sprintf("%s/%d", kern.name, s), func(b *testing.B) {
				x, y, c := benchInputs(s)
				for b.Loop() {
					sgemm(kern, s, s, s, 1, x, s, y, s, false, 0, c, s)
				}
				reportGFLOPs(b, s)
			})
		}
	}
}

// BenchmarkSgemmParallel splits C with Blocks among as many parts as the
// CPU backend's launch of 16×16 groups has, run on GOMAXPROCS goroutines
// taking parts in order (as the backend does), with the fastest micro-kernel.
func BenchmarkSgemmParallel(b *testing.B) {
	for _, s := range benchSizes {
		b.Run(fmt.Sprintf("%s/%d", active.name, s), func(b *testing.B) {
			x, y, c := benchInputs(s)
			parts := (s / 16) * (s / 16)
			workers := runtime.GOMAXPROCS(0)
			for b.Loop() {
				var wg sync.WaitGroup
				for w := range workers {
					wg.Go(func() {
						lo, hi := w*parts/workers, (w+1)*parts/workers
						for part := lo; part < hi; part++ {
							for blk := range Blocks(part, parts, s, s) {
								_ = Sgemm(blk.I1-blk.I0, blk.J1-blk.J0, s, 1, x[blk.I0*s:], s, y[blk.J0:], s, 0, c[blk.I0*s+blk.J0:], s)
							}
						}
					})
				}
				wg.Wait()
			}
			reportGFLOPs(b, s)
		})
	}
}

// BenchmarkSgemmT is one goroutine multiplying a 256×512 block of C over
// k = 768 (a block of a GPT-2-sized product as the CPU backend's MatMul cuts
// it), with either operand transposed, on the fastest micro-kernel: what
// the packing of each layout costs.
func BenchmarkSgemmT(b *testing.B) {
	const m, n, k = 256, 512, 768
	rng := rand.New(rand.NewPCG(9, 10))
	x, y, c := matrix(rng, m, k, k, -1, 1), matrix(rng, k, n, n, -1, 1), make([]float32, m*n)
	xt, yt := transpose(x, m, k, k, m), transpose(y, k, n, n, k)
	for _, tc := range []struct{ transA, transB bool }{{false, false}, {false, true}, {true, false}, {true, true}} {
		b.Run(fmt.Sprintf("ta=%v/tb=%v", tc.transA, tc.transB), func(b *testing.B) {
			a, lda := x, k
			if tc.transA {
				a, lda = xt, m
			}
			bb, ldb := y, n
			if tc.transB {
				bb, ldb = yt, k
			}
			for b.Loop() {
				if err := SgemmT(tc.transA, tc.transB, m, n, k, 1, a, lda, bb, ldb, 0, c, n); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(2*m*n*k*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}
