//go:build !amd64

package gemm

// packFullPanel reports false: this architecture copies panels in Go.
func packFullPanel(dst, b []float32, ldb, kc, nr int) bool { return false }

// packA8Fast packs nothing: this architecture packs A in Go.
func packA8Fast(panel, a []float32, lda, kc int) int { return 0 }
