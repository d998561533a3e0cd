package gemm

// packA copies rows [0, rows) × columns [0, kc) of a (rows lda floats apart)
// into dst as panels of mr rows: panel q holds, for each step p of k, the mr
// values a[q·mr+r, p] one after another. Rows past the end are zero, so the
// micro-kernel always runs full panels. dst holds ceil(rows/mr)·mr·kc floats.
func packA(dst, a []float32, lda, rows, kc, mr int) {
	for i0 := 0; i0 < rows; i0 += mr {
		panel := dst[i0*kc : i0*kc+mr*kc]
		h := min(mr, rows-i0)
		for r := range h {
			src := a[(i0+r)*lda : (i0+r)*lda+kc]
			for p, v := range src {
				panel[p*mr+r] = v
			}
		}
		for r := h; r < mr; r++ {
			for p := range kc {
				panel[p*mr+r] = 0
			}
		}
	}
}

// packB copies rows [0, kc) × columns [0, cols) of b (rows ldb floats apart)
// into dst as panels of nr columns: panel q holds, for each step p of k, the
// nr values b[p, q·nr+j] one after another. Columns past the end are zero.
// dst holds ceil(cols/nr)·nr·kc floats.
func packB(dst, b []float32, ldb, kc, cols, nr int) {
	for j0 := 0; j0 < cols; j0 += nr {
		panel := dst[j0*kc : j0*kc+nr*kc]
		w := min(nr, cols-j0)
		if w == nr && packFullPanel(panel, b[j0:], ldb, kc, nr) {
			continue
		}
		for p := range kc {
			out := panel[p*nr : p*nr+nr]
			n := copy(out, b[p*ldb+j0:p*ldb+j0+w])
			clear(out[n:])
		}
	}
}

// packBT is packB for B given transposed: bt holds columns [0, cols) of B as
// rows (ldbt floats apart) of kc values, and dst gets the same panels packB
// makes of B.
func packBT(dst, bt []float32, ldbt, kc, cols, nr int) {
	for j0 := 0; j0 < cols; j0 += nr {
		panel := dst[j0*kc : j0*kc+nr*kc]
		w := min(nr, cols-j0)
		for j := range w {
			src := bt[(j0+j)*ldbt : (j0+j)*ldbt+kc]
			for p, v := range src {
				panel[p*nr+j] = v
			}
		}
		for j := w; j < nr; j++ {
			for p := range kc {
				panel[p*nr+j] = 0
			}
		}
	}
}
