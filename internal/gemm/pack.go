package gemm

// packA copies rows [0, rows) × columns [0, kc) of a (rows lda floats apart)
// into dst as panels of mr rows: panel q holds, for each step p of k, the mr
// values a[q·mr+r, p] one after another. Rows past the end are zero, so the
// micro-kernel always runs full panels. dst holds ceil(rows/mr)·mr·kc floats.
func packA(dst, a []float32, lda, rows, kc, mr int) {
	for i0 := 0; i0 < rows; i0 += mr {
		panel := dst[i0*kc : i0*kc+mr*kc]
		h := min(mr, rows-i0)
		if h == 8 && mr == 8 && kc > 0 {
			packA8(panel, a[i0*lda:], lda, kc)
			continue
		}
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
		if w == nr && nr%8 == 0 && kc > 0 && kc <= kcBlock {
			packBTPanel(panel, bt[j0*ldbt:], ldbt, kc, nr)
			continue
		}
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

// packA8 is packA's full panel of eight rows: for each step p of k, the
// eight values a[r·lda+p] one after another: eight columns at a time in
// assembly where the architecture has it (packA8Fast), the rest a step at a
// time (the rows read in order, the panel written in order, with no bounds
// checks in the loop).
func packA8(panel, a []float32, lda, kc int) {
	if done := packA8Fast(panel, a, lda, kc); done > 0 {
		panel, a, kc = panel[8*done:], a[done:], kc-done
		if kc == 0 {
			return
		}
	}
	a0 := a[:kc:kc]
	a1 := a[lda:][:len(a0)]
	a2 := a[2*lda:][:len(a0)]
	a3 := a[3*lda:][:len(a0)]
	a4 := a[4*lda:][:len(a0)]
	a5 := a[5*lda:][:len(a0)]
	a6 := a[6*lda:][:len(a0)]
	a7 := a[7*lda:][:len(a0)]
	panel = panel[:8*len(a0)]
	for p := range a0 {
		out := panel[8*p : 8*p+8 : 8*p+8]
		out[0], out[1], out[2], out[3] = a0[p], a1[p], a2[p], a3[p]
		out[4], out[5], out[6], out[7] = a4[p], a5[p], a6[p], a7[p]
	}
}

// packBTPanel is packBT's full panel (nr a multiple of 8, kc ≤ kcBlock):
// eight rows of bt at a time transposed by packA8 (in assembly where the
// architecture has it) into a buffer on the stack, whose runs of eight are
// then moved into the panel's rows.
func packBTPanel(panel, bt []float32, ldbt, kc, nr int) {
	var buf [8 * kcBlock]float32
	t := buf[:8*kc]
	for q := 0; q < nr; q += 8 {
		packA8(t, bt[q*ldbt:], ldbt, kc) // t[8p+r] = bt[(q+r)·ldbt+p]
		for p := range kc {
			*(*[8]float32)(panel[p*nr+q:]) = *(*[8]float32)(t[8*p:])
		}
	}
}
