package gemm

import (
	"fmt"
	"testing"
)

// BenchmarkStagedTiles bounds what a sgemm written on kernel.MatMulAdd can
// reach on the CPU: a 1024³ product in tiles of C held in a group's shared
// array, each step of k staging its slices of A and B into shared arrays
// and adding their product to the tile with Sgemm (beta 1, as MatMulAdd
// does), the tile then copied to C; the staging here is copy(), the
// cheapest a kernel's could be. Beside it, Sgemm over the whole product. The
// shared memory the tile and slices take is in the name: 32 KiB
// (tile64/depth32) is what every backend gives a group.
func BenchmarkStagedTiles(b *testing.B) {
	const mm = 1024
	a, bb, c := make([]float32, mm*mm), make([]float32, mm*mm), make([]float32, mm*mm)
	report := func(b *testing.B) {
		b.ReportMetric(2*mm*mm*mm*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
	}
	for _, sh := range [][2]int{{64, 32}, {64, 64}, {128, 64}, {128, 128}} {
		tile, depth := sh[0], sh[1]
		shared := 4 * (tile*tile + 2*tile*depth) >> 10
		b.Run(fmt.Sprintf("tile%d/depth%d/shared=%dKiB", tile, depth, shared), func(b *testing.B) {
			cs := make([]float32, tile*tile)
			as := make([]float32, tile*depth)
			bs := make([]float32, depth*tile)
			for range b.N {
				for r0 := 0; r0 < mm; r0 += tile {
					for c0 := 0; c0 < mm; c0 += tile {
						clear(cs)
						for k0 := 0; k0 < mm; k0 += depth {
							for r := range tile {
								copy(as[r*depth:(r+1)*depth], a[(r0+r)*mm+k0:])
							}
							for k := range depth {
								copy(bs[k*tile:(k+1)*tile], bb[(k0+k)*mm+c0:])
							}
							if err := Sgemm(tile, tile, depth, 1, as, depth, bs, tile, 1, cs, tile); err != nil {
								b.Fatal(err)
							}
						}
						for r := range tile {
							copy(c[(r0+r)*mm+c0:(r0+r)*mm+c0+tile], cs[r*tile:])
						}
					}
				}
			}
			report(b)
		})
	}
	b.Run("whole", func(b *testing.B) {
		for range b.N {
			if err := Sgemm(mm, mm, mm, 1, a, mm, bb, mm, 0, c, mm); err != nil {
				b.Fatal(err)
			}
		}
		report(b)
	})
}
