package kmath

import (
	"fmt"
	"testing"
)

// BenchmarkMatMulAdd times the loop and the packed GEMM on the tile shapes
// kernels use, from the attention's 16×16×16 up to sgemm's 128×128×128: the
// crossing sets packedMinWork.
func BenchmarkMatMulAdd(b *testing.B) {
	shapes := [][3]int{{16, 16, 16}, {16, 16, 128}, {32, 32, 16}, {32, 32, 32}, {64, 64, 32}, {128, 128, 128}}
	paths := []struct {
		name string
		run  func(c, a, b []float32, s TileShape)
	}{
		{"loop", matMulLoop},
		{"packed", func(c, a, b []float32, s TileShape) { _ = matMulPacked(c, a, b, s) }},
	}
	for _, sh := range shapes {
		for _, p := range paths {
			b.Run(fmt.Sprintf("%dx%dx%d/%s", sh[0], sh[1], sh[2], p.name), func(b *testing.B) {
				s := TileShape{M: sh[0], N: sh[1], K: sh[2]}.WithDefaults()
				c, x, y := make([]float32, s.M*s.N), make([]float32, s.M*s.K), make([]float32, s.K*s.N)
				for b.Loop() {
					p.run(c, x, y, s)
				}
				b.ReportMetric(float64(2*s.M*s.N*s.K)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
	}
}
