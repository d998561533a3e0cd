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

// packA8AVX2 writes blocks 8×8 blocks of packA8's panel: rows 0-7 of A
// (lda floats apart at src), eight columns a block, transposed to dst.
// Only the AVX-512 kernel's panels (mr = 8) use it, so AVX2 is there.
//
//go:noescape
func packA8AVX2(dst, src *float32, blocks, lda int)

// packA8Fast packs the first kc/8·8 columns of packA8's panel in assembly
// and returns how many it packed.
func packA8Fast(panel, a []float32, lda, kc int) int {
	blocks := kc / 8
	if blocks == 0 {
		return 0
	}
	_, _ = panel[8*8*blocks-1], a[7*lda+8*blocks-1] // the blocks lie inside both slices
	packA8AVX2(&panel[0], &a[0], blocks, lda)
	return 8 * blocks
}
