//go:build !amd64

package gemm

// packFullPanel reports false: this architecture copies panels in Go.
func packFullPanel(dst, b []float32, ldb, kc, nr int) bool { return false }
