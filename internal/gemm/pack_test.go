package gemm

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestPackA checks packA's panels against their definition (panel q, step
// p, row r holds a[(q·mr+r)·lda+p], zero past the last row) for the
// micro-kernels' row counts, full and partial panels, depths that are and
// are not multiples of eight (the assembly packs eight columns at a time)
// and strides longer than the depth.
func TestPackA(t *testing.T) {
	for _, mr := range []int{4, 6, 8} {
		for _, rows := range []int{1, 8, 13, 24} {
			for _, kc := range []int{1, 7, 8, 9, 16, 37} {
				lda := kc + 3
				t.Run(fmt.Sprintf("mr=%d/rows=%d/kc=%d", mr, rows, kc), func(t *testing.T) {
					a := make([]float32, rows*lda)
					for i := range a {
						a[i] = float32(i + 1)
					}
					panels := (rows + mr - 1) / mr
					dst := make([]float32, panels*mr*kc)
					for i := range dst {
						dst[i] = -1
					}
					packA(dst, a, lda, rows, kc, mr)
					for q := range panels {
						for p := range kc {
							for r := range mr {
								want := float32(0)
								if row := q*mr + r; row < rows {
									want = a[row*lda+p]
								}
								require.Equal(t, want, dst[q*mr*kc+p*mr+r], "panel %d step %d row %d", q, p, r)
							}
						}
					}
				})
			}
		}
	}
}
