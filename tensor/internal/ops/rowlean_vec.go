package ops

import "github.com/anygpu/gpu/kernel"

// The vector lean row kernel (rowsLeanVec) is rowsLean for rows that move
// as 16-byte vectors (kernel.Float4: four float32s, or four words of 16-bit
// pairs taken as their bits): each row's first word and the rows' stride
// are whole vectors, and so is its length. Thread t of a group of b holds
// vectors t, t+b, ..., at most LeanVecs of them: four times the words
// rowsLean's threads hold, in a quarter of the loads, so that a row of 4096
// float32s (1024 vectors) fits a group of 256. Everything else is
// rowsLean's: gamma and beta read once per group, the group's next row
// loaded while this one folds, two folds from the registers (sums then
// squared deviations for layer norm, squares for RMS norm, the maximum then
// the exponentials' sum for softmax), one write. The vectors' words fold
// with rowsLean's word functions, so the two kernels compute alike.

// LeanVecs is the most 16-byte vectors of a row each thread of rowsLeanVec
// holds.
const LeanVecs = 4

// rowsLeanVec is rowsLean for rows of vecs vectors each (cols/(4·perWord)),
// row r's first at vector xoff + r*xrow of x, launched with groups of b
// threads (b a multiple of SubgroupSize and at most LeanGroup) where
// vecs ≤ LeanVecs·b. The buffers are words (float32 only for Load4 and
// Store4: a 16-bit pair is taken apart by its bits). Its variants fix the
// kind and the dtype, as rowsLean's.
//
//gpu:kernel
//gpu:variant rowsLeanVecLayerF32 kind=NormLayer dt=DTFloat32
//gpu:variant rowsLeanVecLayerBF16 kind=NormLayer dt=DTBFloat16
//gpu:variant rowsLeanVecLayerF16 kind=NormLayer dt=DTFloat16
//gpu:variant rowsLeanVecRMSF32 kind=NormRMS dt=DTFloat32
//gpu:variant rowsLeanVecRMSBF16 kind=NormRMS dt=DTBFloat16
//gpu:variant rowsLeanVecRMSF16 kind=NormRMS dt=DTFloat16
//gpu:variant rowsLeanVecSoftmaxF32 kind=LeanSoftmax dt=DTFloat32
//gpu:variant rowsLeanVecSoftmaxBF16 kind=LeanSoftmax dt=DTBFloat16
//gpu:variant rowsLeanVecSoftmaxF16 kind=LeanSoftmax dt=DTFloat16
func rowsLeanVec(y, x, gamma, beta []float32, rows, vecs, dt, kind, affine, xoff, xrow uint32, eps float32) {
	red := kernel.Shared[[2 * LeanGroup]float32]() // per subgroup: the first fold's values, then the second's
	parts := kernel.Shared[[leanParts]float32]()
	t, b := kernel.ThreadX(), kernel.GroupSizeX()
	sg := kernel.SubgroupSize()
	subs := b / sg                              // values to fold: one per subgroup
	chunk := (subs + leanParts - 1) / leanParts // each part's, where there are more than leanParts
	per := perWord(dt)
	cols := float32(vecs * 4 * per)
	first := uint32(0) // the first fold: RMS norm has only the second
	if kind == NormRMS {
		first = 1
	}
	// gamma's and beta's vectors, where affine has them: the same for every
	// row, so read once.
	var gs, bs [LeanVecs]kernel.Float4
	if kind != LeanSoftmax {
		for u := uint32(0); u < LeanVecs; u++ {
			if v := t + u*b; v < vecs {
				if affine&NormGamma != 0 {
					gs[u] = kernel.Load4(gamma, v)
				}
				if affine&NormBeta != 0 {
					bs[u] = kernel.Load4(beta, v)
				}
			}
		}
	}
	// ws holds the row being folded; next, loaded before the folds, the
	// group's next row, so that its loads overlap this row's barriers.
	var ws, next [LeanVecs]kernel.Float4
	if r0 := kernel.GroupX(); r0 < rows {
		for u := uint32(0); u < LeanVecs; u++ {
			if t+u*b < vecs {
				next[u] = kernel.Load4(x, xoff+r0*xrow+t+u*b)
			}
		}
	}
	for r := kernel.GroupX(); r < rows; r += kernel.GridX() {
		for u := uint32(0); u < LeanVecs; u++ {
			ws[u] = next[u]
		}
		if rn := r + kernel.GridX(); rn < rows {
			for u := uint32(0); u < LeanVecs; u++ {
				if t+u*b < vecs {
					next[u] = kernel.Load4(x, xoff+rn*xrow+t+u*b)
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
			for u := uint32(0); u < LeanVecs; u++ {
				if t+u*b < vecs {
					if widest {
						v = vecMax(v, ws[u], per, dt)
					} else if kind == LeanSoftmax {
						v += vecExpSum(ws[u], per, dt, mean)
					} else if pass == 0 {
						v += vecSum(ws[u], per, dt)
					} else {
						v += vecSquares(ws[u], per, dt, mean)
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
		o := r * vecs // the row's first vector in y
		if kind == LeanSoftmax {
			inv := 1 / total
			for u := uint32(0); u < LeanVecs; u++ {
				if v := t + u*b; v < vecs {
					kernel.Store4(y, o+v, softmaxVec(ws[u], per, dt, mean, inv))
				}
			}
		} else {
			inv := kernel.Rsqrt(total/cols + eps)
			for u := uint32(0); u < LeanVecs; u++ {
				if v := t + u*b; v < vecs {
					kernel.Store4(y, o+v, normVec(ws[u], gs[u], bs[u], per, dt, affine, mean, inv))
				}
			}
		}
		if kind == NormRMS && rows-r > kernel.GridX() {
			kernel.Barrier() // the next row's fold waits for every thread's read of this one's
		}
	}
}

// vecSum is the sum of the elements of vector u (four words of per
// elements of dtype code dt each).
func vecSum(u kernel.Float4, per, dt uint32) float32 {
	return (wordSum(kernel.Float32bits(u.X), per, dt) + wordSum(kernel.Float32bits(u.Y), per, dt)) +
		(wordSum(kernel.Float32bits(u.Z), per, dt) + wordSum(kernel.Float32bits(u.W), per, dt))
}

// vecMax is the largest of m and the elements of vector u.
func vecMax(m float32, u kernel.Float4, per, dt uint32) float32 {
	m = wordMax(m, kernel.Float32bits(u.X), per, dt)
	m = wordMax(m, kernel.Float32bits(u.Y), per, dt)
	m = wordMax(m, kernel.Float32bits(u.Z), per, dt)
	return wordMax(m, kernel.Float32bits(u.W), per, dt)
}

// vecExpSum is the sum of e^(v-m) over the elements v of vector u.
func vecExpSum(u kernel.Float4, per, dt uint32, m float32) float32 {
	return (wordExpSum(kernel.Float32bits(u.X), per, dt, m) + wordExpSum(kernel.Float32bits(u.Y), per, dt, m)) +
		(wordExpSum(kernel.Float32bits(u.Z), per, dt, m) + wordExpSum(kernel.Float32bits(u.W), per, dt, m))
}

// vecSquares is the sum of (v-mean)² over the elements v of vector u.
func vecSquares(u kernel.Float4, per, dt uint32, mean float32) float32 {
	return (wordSquares(kernel.Float32bits(u.X), per, dt, mean) + wordSquares(kernel.Float32bits(u.Y), per, dt, mean)) +
		(wordSquares(kernel.Float32bits(u.Z), per, dt, mean) + wordSquares(kernel.Float32bits(u.W), per, dt, mean))
}

// softmaxVec is the output vector of input vector u: softmaxWord of each of
// its words.
func softmaxVec(u kernel.Float4, per, dt uint32, m, inv float32) kernel.Float4 {
	return kernel.Float4{
		X: kernel.Float32frombits(softmaxWord(kernel.Float32bits(u.X), per, dt, m, inv)),
		Y: kernel.Float32frombits(softmaxWord(kernel.Float32bits(u.Y), per, dt, m, inv)),
		Z: kernel.Float32frombits(softmaxWord(kernel.Float32bits(u.Z), per, dt, m, inv)),
		W: kernel.Float32frombits(softmaxWord(kernel.Float32bits(u.W), per, dt, m, inv)),
	}
}

// normVec is the output vector of input vector u: normWord of each of its
// words with the matching words of gamma's vector g and beta's vector bw.
func normVec(u, g, bw kernel.Float4, per, dt, affine uint32, mean, inv float32) kernel.Float4 {
	return kernel.Float4{
		X: kernel.Float32frombits(normWord(kernel.Float32bits(u.X), kernel.Float32bits(g.X), kernel.Float32bits(bw.X), per, dt, affine, mean, inv)),
		Y: kernel.Float32frombits(normWord(kernel.Float32bits(u.Y), kernel.Float32bits(g.Y), kernel.Float32bits(bw.Y), per, dt, affine, mean, inv)),
		Z: kernel.Float32frombits(normWord(kernel.Float32bits(u.Z), kernel.Float32bits(g.Z), kernel.Float32bits(bw.Z), per, dt, affine, mean, inv)),
		W: kernel.Float32frombits(normWord(kernel.Float32bits(u.W), kernel.Float32bits(g.W), kernel.Float32bits(bw.W), per, dt, affine, mean, inv)),
	}
}
