package ops

import "github.com/anygpu/gpu/kernel"

// The lean row kernel (rowsLean) takes rows of whole words (rowFast's rows)
// that lie word-contiguous at a uniform word stride and are short enough for
// a group of at most LeanGroup threads to hold each in registers: thread t
// of b holds words t, t+b, ..., at most LeanWords of them. It loads a row
// once (the group's next row while it folds this one, and gamma and beta
// once for all rows), folds it twice from the registers (each fold: one subgroup
// reduction, one barrier, and one more where the subgroups are many), and
// writes: no view offsets, no second or third pass over memory, no general
// path. Layer norm folds sums then squared deviations, RMS norm squares
// only, softmax the maximum then the exponentials' sum. Rows that do not
// fit take normRows and softmaxRows.

// LeanWords is the most words of a row each thread of rowsLean holds.
const LeanWords = 4

// LeanGroup is the largest group rowsLean is launched with: the size of its
// shared arrays (one value per subgroup, a subgroup of one at worst), a
// multiple of every device's subgroup size. Groups of 1024 holding rows of
// 4096 float32s measured slower than normRows and softmaxRows on an H200
// (one such group per SM: no other group's loads overlap its barriers).
const LeanGroup = 512

// LeanSoftmax is rowsLean's kind for softmax (NormLayer and NormRMS are its
// norms).
const LeanSoftmax = 2

// leanParts is the most per-subgroup values each thread of rowsLean folds
// itself: with more (small subgroups, or subgroups of one), the first
// leanParts threads fold them into leanParts parts first, behind one more
// barrier.
const leanParts = 8

// rowsLean is normRows (kind NormLayer or NormRMS, with affine and eps) or
// softmaxRows (kind LeanSoftmax) for rows of words words each
// (cols/perWord(dt)), row r's first at word xoff + r*xrow of x, launched
// with groups of b threads (b a multiple of SubgroupSize and at most
// LeanGroup) where words ≤ LeanWords·b. Its variants fix the kind and the
// dtype: each holds only its own path, in fewer registers.
//
//gpu:kernel
//gpu:variant rowsLeanLayerF32 kind=NormLayer dt=DTFloat32
//gpu:variant rowsLeanLayerBF16 kind=NormLayer dt=DTBFloat16
//gpu:variant rowsLeanLayerF16 kind=NormLayer dt=DTFloat16
//gpu:variant rowsLeanRMSF32 kind=NormRMS dt=DTFloat32
//gpu:variant rowsLeanRMSBF16 kind=NormRMS dt=DTBFloat16
//gpu:variant rowsLeanRMSF16 kind=NormRMS dt=DTFloat16
//gpu:variant rowsLeanSoftmaxF32 kind=LeanSoftmax dt=DTFloat32
//gpu:variant rowsLeanSoftmaxBF16 kind=LeanSoftmax dt=DTBFloat16
//gpu:variant rowsLeanSoftmaxF16 kind=LeanSoftmax dt=DTFloat16
func rowsLean(y, x, gamma, beta []uint32, rows, words, dt, kind, affine, xoff, xrow uint32, eps float32) {
	red := kernel.Shared[[2 * LeanGroup]float32]() // per subgroup: the first fold's values, then the second's
	parts := kernel.Shared[[leanParts]float32]()
	t, b := kernel.ThreadX(), kernel.GroupSizeX()
	sg := kernel.SubgroupSize()
	subs := b / sg                              // values to fold: one per subgroup
	chunk := (subs + leanParts - 1) / leanParts // each part's, where there are more than leanParts
	per := perWord(dt)
	cols := float32(words * per)
	first := uint32(0) // the first fold: RMS norm has only the second
	if kind == NormRMS {
		first = 1
	}
	// gamma's and beta's words, where affine has them: the same for every
	// row, so read once.
	var gs, bs [LeanWords]uint32
	if kind != LeanSoftmax {
		for u := uint32(0); u < LeanWords; u++ {
			if w := t + u*b; w < words {
				if affine&NormGamma != 0 {
					gs[u] = gamma[w]
				}
				if affine&NormBeta != 0 {
					bs[u] = beta[w]
				}
			}
		}
	}
	// ws holds the row being folded; next, loaded before the folds, the
	// group's next row, so that its loads overlap this row's barriers.
	var ws, next [LeanWords]uint32
	if r0 := kernel.GroupX(); r0 < rows {
		for u := uint32(0); u < LeanWords; u++ {
			if t+u*b < words {
				next[u] = x[xoff+r0*xrow+t+u*b]
			}
		}
	}
	for r := kernel.GroupX(); r < rows; r += kernel.GridX() {
		for u := uint32(0); u < LeanWords; u++ {
			ws[u] = next[u]
		}
		if rn := r + kernel.GridX(); rn < rows {
			for u := uint32(0); u < LeanWords; u++ {
				if t+u*b < words {
					next[u] = x[xoff+rn*xrow+t+u*b]
				}
			}
		}
		// Fold 0 takes the row's sum (layer norm) or maximum (softmax)
		// into mean; fold 1 the squared deviations from mean (0 for RMS
		// norm) or the exponentials' sum past it into total.
		var mean, total float32
		for pass := first; pass < 2; pass++ {
			widest := kind == LeanSoftmax && pass == 0 // a maximum, not a sum
			var none float32                           // what the fold starts from
			if widest {
				none = kernel.Float32frombits(0xff800000) // -Inf
			}
			v := none
			for u := uint32(0); u < LeanWords; u++ {
				if t+u*b < words {
					if widest {
						v = wordMax(v, ws[u], per, dt)
					} else if kind == LeanSoftmax {
						v += wordExpSum(ws[u], per, dt, mean)
					} else if pass == 0 {
						v += wordSum(ws[u], per, dt)
					} else {
						v += wordSquares(ws[u], per, dt, mean)
					}
				}
			}
			var sv float32
			if widest {
				sv = kernel.SubgroupMax(v)
			} else {
				sv = kernel.SubgroupAdd(v)
			}
			at := pass * LeanGroup // this fold's values in red
			if t%sg == 0 {
				red[at+t/sg] = sv
			}
			kernel.Barrier()
			total = red[at]
			if subs <= leanParts {
				for i := uint32(1); i < subs; i++ {
					total = leanFold(widest, total, red[at+i])
				}
			} else {
				if t < leanParts {
					p := none
					for i := t * chunk; i < min(subs, t*chunk+chunk); i++ {
						p = leanFold(widest, p, red[at+i])
					}
					parts[t] = p
				}
				kernel.Barrier()
				total = parts[0]
				for i := uint32(1); i < leanParts; i++ {
					total = leanFold(widest, total, parts[i])
				}
			}
			if pass == 0 {
				mean = total
				if !widest {
					mean = total / cols
				}
			}
		}
		o := r * words // the row's first word in y
		if kind == LeanSoftmax {
			inv := 1 / total
			for u := uint32(0); u < LeanWords; u++ {
				if w := t + u*b; w < words {
					y[o+w] = softmaxWord(ws[u], per, dt, mean, inv)
				}
			}
		} else {
			inv := kernel.Rsqrt(total/cols + eps)
			for u := uint32(0); u < LeanWords; u++ {
				w := t + u*b
				if w < words {
					y[o+w] = normWord(ws[u], gs[u], bs[u], per, dt, affine, mean, inv)
				}
			}
		}
		if kind == NormRMS && rows-r > kernel.GridX() {
			kernel.Barrier() // the next row's fold waits for every thread's read of this one's
		}
	}
}

// leanFold folds v into acc: the larger of the two for a maximum (widest),
// their sum otherwise.
func leanFold(widest bool, acc, v float32) float32 {
	if widest {
		return max(acc, v)
	}
	return acc + v
}
