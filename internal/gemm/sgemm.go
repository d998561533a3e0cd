package gemm

import "fmt"

// Cache blocking: kcBlock steps of k per packed block (a kc×nr panel of B
// stays in L1 while the micro-kernel walks the panels of A), about
// mcRows rows of A per packed block (in L2) and ncCols columns of B per
// packed block (in L2 or L3). mcRows and ncCols are rounded down to the
// micro-kernel's tile.
const (
	kcBlock = 256
	mcRows  = 128
	ncCols  = 2048
)

// Sgemm computes C = alpha·A·B + beta·C for a row-major m×k matrix A, k×n
// matrix B and m×n matrix C whose rows are lda, ldb and ldc floats apart,
// on the calling goroutine. When beta is 0, C is not read (NaN in C does not
// reach the result). With k = 0, C becomes beta·C. It returns an error, and
// writes nothing, when a size or leading dimension is negative or too small
// or a slice is too short for them.
func Sgemm(m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) error {
	if err := check(m, n, k, len(a), lda, len(b), ldb, len(c), ldc); err != nil {
		return err
	}
	sgemm(active, m, n, k, alpha, a, lda, b, ldb, false, beta, c, ldc)
	return nil
}

// SgemmBT is Sgemm with B given transposed: bt holds Bᵀ, n rows of k floats
// ldbt floats apart (keys, for Q·Kᵀ), and C = alpha·A·B + beta·C as Sgemm
// computes it.
func SgemmBT(m, n, k int, alpha float32, a []float32, lda int, bt []float32, ldbt int, beta float32, c []float32, ldc int) error {
	if err := checkBT(m, n, k, len(a), lda, len(bt), ldbt, len(c), ldc); err != nil {
		return err
	}
	sgemm(active, m, n, k, alpha, a, lda, bt, ldbt, true, beta, c, ldc)
	return nil
}

// SgemmT is Sgemm with either operand given transposed: when transA, a
// holds Aᵀ (k rows of m floats, lda apart); when transB, b holds Bᵀ (n rows
// of k floats, ldb apart). C = alpha·A·B + beta·C as Sgemm computes it, with
// the same checks.
func SgemmT(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) error {
	opA := operand{"a", m, k, lda, len(a)}
	if transA {
		opA = operand{"at", k, m, lda, len(a)}
	}
	opB := operand{"b", k, n, ldb, len(b)}
	if transB {
		opB = operand{"bt", n, k, ldb, len(b)}
	}
	if err := checkMatrices(m, n, k, opA, opB, operand{"c", m, n, ldc, len(c)}); err != nil {
		return err
	}
	gemm(active, m, n, k, alpha, a, lda, transA, b, ldb, transB, beta, c, ldc)
	return nil
}

// check validates Sgemm's sizes against the slices' lengths.
func check(m, n, k, la, lda, lb, ldb, lc, ldc int) error {
	return checkMatrices(m, n, k, operand{"a", m, k, lda, la}, operand{"b", k, n, ldb, lb}, operand{"c", m, n, ldc, lc})
}

// checkBT validates SgemmBT's sizes against the slices' lengths: B is given
// as its n×k transpose.
func checkBT(m, n, k, la, lda, lbt, ldbt, lc, ldc int) error {
	return checkMatrices(m, n, k, operand{"a", m, k, lda, la}, operand{"bt", n, k, ldbt, lbt}, operand{"c", m, n, ldc, lc})
}

// operand is one matrix as check sees it: its shape, leading dimension and
// the length of its slice.
type operand struct {
	name           string
	rows, cols, ld int
	length         int
}

// checkMatrices validates the sizes and each operand's shape against its
// slice.
func checkMatrices(m, n, k int, ms ...operand) error {
	if m < 0 || n < 0 || k < 0 {
		return fmt.Errorf("gemm: negative size m=%d n=%d k=%d", m, n, k)
	}
	for _, d := range ms {
		if d.ld < max(1, d.cols) {
			return fmt.Errorf("gemm: leading dimension of %s is %d, less than its %d columns", d.name, d.ld, d.cols)
		}
		if d.rows == 0 || d.cols == 0 {
			continue
		}
		// (rows-1)·ld + cols ≤ length, without overflow.
		if (d.rows-1) > (d.length-d.cols)/d.ld || d.length < d.cols {
			return fmt.Errorf("gemm: %s holds %d floats, too few for %d×%d with leading dimension %d", d.name, d.length, d.rows, d.cols, d.ld)
		}
	}
	return nil
}

// sgemm is Sgemm (SgemmBT when transB: b holds Bᵀ) with valid arguments, on
// micro-kernel kern.
func sgemm(kern microKernel, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, transB bool, beta float32, c []float32, ldc int) {
	gemm(kern, m, n, k, alpha, a, lda, false, b, ldb, transB, beta, c, ldc)
}

// gemm is SgemmT with valid arguments, on micro-kernel kern.
func gemm(kern microKernel, m, n, k int, alpha float32, a []float32, lda int, transA bool, b []float32, ldb int, transB bool, beta float32, c []float32, ldc int) {
	if m == 0 || n == 0 {
		return
	}
	if k == 0 {
		scaleC(c, ldc, m, n, beta)
		return
	}
	mr, nr := kern.mr, kern.nr
	mc := max(mr, mcRows/mr*mr)
	nc := max(nr, ncCols/nr*nr)
	kc := min(kcBlock, k)
	ws := workspaces.Get().(*workspace)
	defer workspaces.Put(ws)
	ws.grow(mc*kc, min(nc, roundUp(n, nr))*kc, mr*nr)

	for jc := 0; jc < n; jc += nc {
		ncc := min(nc, n-jc)
		for pc := 0; pc < k; pc += kc {
			kcc := min(kc, k-pc)
			if transB {
				packBT(ws.b, b[jc*ldb+pc:], ldb, kcc, ncc, nr)
			} else {
				packB(ws.b, b[pc*ldb+jc:], ldb, kcc, ncc, nr)
			}
			// The first block of k applies beta; the later ones add to it.
			betaNow, loadC := beta, beta != 0
			if pc > 0 {
				betaNow, loadC = 1, true
			}
			for ic := 0; ic < m; ic += mc {
				mcc := min(mc, m-ic)
				if transA {
					// Aᵀ's rows are A's columns: its panels are packed as B's are.
					packB(ws.a, a[pc*lda+ic:], lda, kcc, mcc, mr)
				} else {
					packA(ws.a, a[ic*lda+pc:], lda, mcc, kcc, mr)
				}
				for jr := 0; jr < ncc; jr += nr {
					bp := ws.b[jr*kcc : jr*kcc+nr*kcc]
					w := min(nr, ncc-jr)
					for ir := 0; ir < mcc; ir += mr {
						ap := ws.a[ir*kcc : ir*kcc+mr*kcc]
						h := min(mr, mcc-ir)
						ct := c[(ic+ir)*ldc+jc+jr:]
						if h == mr && w == nr {
							kern.run(kcc, ap, bp, ct, ldc, alpha, betaNow, loadC)
							continue
						}
						// An edge tile: the kernel writes a full tile to the
						// workspace, and the part inside C is merged here.
						kern.run(kcc, ap, bp, ws.tile, nr, 1, 0, false)
						mergeTile(ct, ldc, ws.tile, nr, h, w, alpha, betaNow, loadC)
					}
				}
			}
		}
	}
}

// mergeTile writes alpha·t (+ beta·C when loadC) to the h×w tile of C at c,
// from the tile t whose rows are ldt floats apart.
func mergeTile(c []float32, ldc int, t []float32, ldt, h, w int, alpha, beta float32, loadC bool) {
	for r := range h {
		out := c[r*ldc : r*ldc+w]
		in := t[r*ldt : r*ldt+w]
		for j, v := range in {
			if loadC {
				out[j] = alpha*v + beta*out[j]
			} else {
				out[j] = alpha * v
			}
		}
	}
}

// scaleC sets the m×n matrix C to beta·C, or to zero when beta is 0 (C is not
// read then).
func scaleC(c []float32, ldc, m, n int, beta float32) {
	for r := range m {
		row := c[r*ldc : r*ldc+n]
		if beta == 0 {
			clear(row)
			continue
		}
		for j := range row {
			row[j] *= beta
		}
	}
}

func roundUp(x, to int) int { return (x + to - 1) / to * to }
