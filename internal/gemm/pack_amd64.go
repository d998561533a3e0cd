package gemm

// packPanelAVX2 copies kc rows of nr floats (nr is 16 or 32), ldb floats
// apart at src, to dst one after another; it reads the rows eight ahead into
// the cache. Only the AVX2 and AVX-512 kernels' panels use it, so AVX is
// there.
//
//go:noescape
func packPanelAVX2(dst, src *float32, kc, ldb, nr int)

// packFullPanel copies a full panel of B (kc rows of nr floats, ldb apart) to
// dst and reports true, or reports false when this architecture has no fast
// copy for nr.
func packFullPanel(dst, b []float32, ldb, kc, nr int) bool {
	if nr != 16 && nr != 32 || kc <= 0 {
		return false
	}
	_, _ = dst[kc*nr-1], b[(kc-1)*ldb+nr-1] // the panel lies inside both slices
	packPanelAVX2(&dst[0], &b[0], kc, ldb, nr)
	return true
}
