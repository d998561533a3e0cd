package ops

import "github.com/anygpu/gpu/kernel"

// The lean norm (normRowsLean) takes rows of whole words (rowFast's rows)
// that lie word-contiguous at a uniform word stride and are short enough for
// a group of LeanGroup threads to hold each in registers: thread t holds
// words t, t+b, ..., at most LeanWords of them. It loads them once, sums
// them, meets the group in one subgroup reduction and one barrier, takes the
// squared deviations from the registers, meets again, and writes: no view
// offsets, no second or third pass over memory, no general path. Rows that
// do not fit take normRows.

// LeanWords is the most words of a row each thread of normRowsLean holds.
const LeanWords = 4

// LeanGroup is the group size normRowsLean is launched with: the size of its
// shared arrays (one value per subgroup, a subgroup of one at worst), a
// multiple of every device's subgroup size.
const LeanGroup = 256

// leanParts is the most per-subgroup values each thread of normRowsLean
// folds itself: with more (small subgroups, or subgroups of one), the first
// leanParts threads fold them into leanParts parts first, behind one more
// barrier.
const leanParts = 8

// normRowsLean is normRows (same kind, affine and eps) for rows of words
// words each (cols/perWord(dt)), row r's first at word xoff + r*xrow of x,
// launched with groups of b threads (b a multiple of SubgroupSize and at
// most LeanGroup) where words ≤ LeanWords·b.
//
//gpu:kernel
func normRowsLean(y, x, gamma, beta []uint32, rows, words, dt, kind, affine, xoff, xrow uint32, eps float32) {
	red := kernel.Shared[[2 * LeanGroup]float32]() // per subgroup: sums, then squared deviations
	parts := kernel.Shared[[leanParts]float32]()
	t, b := kernel.ThreadX(), kernel.GroupSizeX()
	sg := kernel.SubgroupSize()
	subs := b / sg                              // values to fold: one per subgroup
	chunk := (subs + leanParts - 1) / leanParts // each part's, where there are more than leanParts
	per := perWord(dt)
	cols := float32(words * per)
	for r := kernel.GroupX(); r < rows; r += kernel.GridX() {
		w0 := xoff + r*xrow
		var ws [LeanWords]uint32
		for u := uint32(0); u < LeanWords; u++ {
			if t+u*b < words {
				ws[u] = x[w0+t+u*b]
			}
		}
		// Pass 0 (layer norm only) sums the row into mean, pass 1 sums
		// the squared deviations from mean (0 for RMS norm) into total.
		var mean, total float32
		for pass := kind; pass < 2; pass++ {
			var v float32
			for u := uint32(0); u < LeanWords; u++ {
				if t+u*b < words {
					if pass == 0 {
						v += wordSum(ws[u], per, dt)
					} else {
						v += wordSquares(ws[u], per, dt, mean)
					}
				}
			}
			sv := kernel.SubgroupAdd(v)
			at := pass * LeanGroup // this pass's values in red
			if t%sg == 0 {
				red[at+t/sg] = sv
			}
			kernel.Barrier()
			total = red[at]
			if subs <= leanParts {
				for i := uint32(1); i < subs; i++ {
					total += red[at+i]
				}
			} else {
				if t < leanParts {
					var p float32
					for i := t * chunk; i < min(subs, t*chunk+chunk); i++ {
						p += red[at+i]
					}
					parts[t] = p
				}
				kernel.Barrier()
				total = parts[0]
				for i := uint32(1); i < leanParts; i++ {
					total += parts[i]
				}
			}
			if pass == 0 {
				mean = total / cols
			}
		}
		inv := kernel.Rsqrt(total/cols + eps)
		o := r * words // the row's first word in y
		for u := uint32(0); u < LeanWords; u++ {
			w := t + u*b
			if w < words {
				var g, bw uint32 // gamma's and beta's words, where affine has them
				if affine&NormGamma != 0 {
					g = gamma[w]
				}
				if affine&NormBeta != 0 {
					bw = beta[w]
				}
				y[o+w] = normWord(ws[u], g, bw, per, dt, affine, mean, inv)
			}
		}
		if kind != NormLayer && rows-r > kernel.GridX() {
			kernel.Barrier() // the next row's sums wait for every thread's read of these
		}
	}
}
