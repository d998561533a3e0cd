package ops

import "github.com/anygpu/gpu/kernel"

// Row reduction op codes (reduceRows's op).
const (
	ReduceSum  = 0
	ReduceMean = 1
	ReduceMax  = 2
)

// Every row kernel reads row r (r < rows) of a view of dtype code dt (the
// output's too, argmax's int32 aside), float32 as it accumulates: its outer index r is
// row-major over the outer sizes s0..s4 (strides t0..t4) and its cols
// elements are cstride apart, from offset xoff. A group takes rows
// GroupX, GroupX+GridX, ...; its threads (at most rowGroup, one dimension)
// take columns ThreadX, ThreadX+GroupSizeX, ...

// reduceRows writes to out[r] the sum, mean or maximum (op) of row r. The
// maximum of an empty row is not defined (the host refuses it); the sum of
// one is 0 and its mean 0/0.
//
//gpu:kernel
func reduceRows(out, x []uint32, rows, cols, dt, op, xoff, s0, s1, s2, s3, s4, t0, t1, t2, t3, t4, cstride uint32) {
	sh := kernel.Shared[[rowGroup]float32]()
	t, b := kernel.ThreadX(), kernel.GroupSizeX()
	part := kernel.Shared[[rowParts]float32]()
	chunk := rowChunk(b)
	parts := rowPartsOf(b, chunk)
	per := perWord(dt)
	rr := rank6(1, s0, s1, s2, s3) // the outer view's rank
	for r := kernel.GroupX(); r < rows; r += kernel.GridX() {
		base := xoff + offset6(r, rr, s0, s1, s2, s3, s4, 0, t0, t1, t2, t3, t4)
		if rowFast(dt, cols, cstride, base) {
			w0, words := base/per, cols/per
			first := kernel.Float32frombits(bitsOf(x[w0], dt, 0)) // the row's first element
			acc := first                                          // every thread starts from the first element
			if op != ReduceMax {
				acc = 0
			}
			for w := t; w < words; w += rowUnroll * b {
				var ws [rowUnroll]uint32
				for u := uint32(0); u < rowUnroll; u++ {
					if w+u*b < words {
						ws[u] = x[w0+w+u*b]
					}
				}
				for u := uint32(0); u < rowUnroll; u++ {
					if w+u*b < words {
						acc = reduceWord(op, acc, ws[u], per, dt)
					}
				}
				if last(w, rowUnroll*b, words) {
					break
				}
			}
			sh[t] = acc
			kernel.Barrier()
			if t < parts {
				p := sh[t*chunk]
				for i := t*chunk + 1; i < min(b, t*chunk+chunk); i++ {
					p = reduceValue(op, p, sh[i])
				}
				part[t] = p
			}
			kernel.Barrier()
			v := part[0]
			for i := uint32(1); i < parts; i++ {
				v = reduceValue(op, v, part[i])
			}
			if t == 0 {
				if op == ReduceMean {
					v /= float32(cols)
				}
				if dt == DTFloat32 {
					out[r] = kernel.Float32bits(v)
				} else {
					kernel.AtomicAnd(&out[r/2], otherHalf(r))
					kernel.AtomicOr(&out[r/2], halfBits(v, dt, r))
				}
			}
			continue
		}
		var acc float32
		if op == ReduceMax && cols > 0 {
			acc = kernel.Float32frombits(bitsOf(x[wordOf(base, dt)], dt, base)) // every thread starts from the first element
		}
		for c := t; c < cols; c += b {
			at := base + c*cstride
			v := kernel.Float32frombits(bitsOf(x[wordOf(at, dt)], dt, at))
			if op == ReduceMax {
				acc = max(acc, v)
			} else {
				acc += v
			}
		}
		sh[t] = acc
		kernel.Barrier()
		for h := uint32(rowGroup / 2); h > 0; h /= 2 {
			if t < h && t+h < b {
				if op == ReduceMax {
					sh[t] = max(sh[t], sh[t+h])
				} else {
					sh[t] += sh[t+h]
				}
			}
			kernel.Barrier()
		}
		if t == 0 {
			v := sh[0]
			if op == ReduceMean {
				v /= float32(cols)
			}
			if dt == DTFloat32 {
				out[r] = kernel.Float32bits(v)
			} else {
				kernel.AtomicAnd(&out[r/2], otherHalf(r))
				kernel.AtomicOr(&out[r/2], halfBits(v, dt, r))
			}
		}
		kernel.Barrier()
	}
}

// argmaxRows writes to out[r] the index of the largest element of row r, the
// first of equal ones. Rows are not empty (the host refuses empty ones).
//
//gpu:kernel
func argmaxRows(out []int32, x []uint32, rows, cols, dt, xoff, s0, s1, s2, s3, s4, t0, t1, t2, t3, t4, cstride uint32) {
	sv := kernel.Shared[[rowGroup]float32]()
	si := kernel.Shared[[rowGroup]uint32]()
	t, b := kernel.ThreadX(), kernel.GroupSizeX()
	rr := rank6(1, s0, s1, s2, s3) // the outer view's rank
	for r := kernel.GroupX(); r < rows; r += kernel.GridX() {
		base := xoff + offset6(r, rr, s0, s1, s2, s3, s4, 0, t0, t1, t2, t3, t4)
		best := kernel.Float32frombits(bitsOf(x[wordOf(base, dt)], dt, base))
		bi := uint32(0)
		for c := t; c < cols; c += b {
			at := base + c*cstride
			v := kernel.Float32frombits(bitsOf(x[wordOf(at, dt)], dt, at))
			if v > best {
				best = v
				bi = c
			}
		}
		sv[t] = best
		si[t] = bi
		kernel.Barrier()
		for h := uint32(rowGroup / 2); h > 0; h /= 2 {
			if t < h && t+h < b {
				v, i := sv[t+h], si[t+h]
				if v > sv[t] || (v == sv[t] && i < si[t]) {
					sv[t] = v
					si[t] = i
				}
			}
			kernel.Barrier()
		}
		if t == 0 {
			out[r] = int32(si[0])
		}
		kernel.Barrier()
	}
}

// argmaxSplit is argmaxRows' first pass for a few long rows (a decode
// step's logits: one row of 50257): row r's columns are cut into chunks of
// chunk, item p = r·chunks + c takes chunk c, and a group writes its item's
// largest element to part[2p] (float32 bits) and its index to part[2p+1],
// the first of equal ones. Many groups share a row, so a row no longer waits
// on one group's threads reading it a few hundred elements each.
//
//gpu:kernel
func argmaxSplit(part []int32, x []uint32, rows, cols, chunk, chunks, dt, xoff, s0, s1, s2, s3, s4, t0, t1, t2, t3, t4, cstride uint32) {
	sv := kernel.Shared[[rowGroup]float32]()
	si := kernel.Shared[[rowGroup]uint32]()
	t, b := kernel.ThreadX(), kernel.GroupSizeX()
	rr := rank6(1, s0, s1, s2, s3)
	for p := kernel.GroupX(); p < rows*chunks; p += kernel.GridX() {
		r, c0 := p/chunks, (p%chunks)*chunk
		c1 := min(cols, c0+chunk)
		base := xoff + offset6(r, rr, s0, s1, s2, s3, s4, 0, t0, t1, t2, t3, t4)
		at0 := base + c0*cstride
		best := kernel.Float32frombits(bitsOf(x[wordOf(at0, dt)], dt, at0))
		bi := c0
		for c := c0 + t; c < c1; c += b {
			at := base + c*cstride
			v := kernel.Float32frombits(bitsOf(x[wordOf(at, dt)], dt, at))
			if v > best {
				best = v
				bi = c
			}
		}
		sv[t] = best
		si[t] = bi
		kernel.Barrier()
		for h := uint32(rowGroup / 2); h > 0; h /= 2 {
			if t < h && t+h < b {
				v, i := sv[t+h], si[t+h]
				if v > sv[t] || (v == sv[t] && i < si[t]) {
					sv[t] = v
					si[t] = i
				}
			}
			kernel.Barrier()
		}
		if t == 0 {
			part[2*p] = int32(kernel.Float32bits(sv[0]))
			part[2*p+1] = int32(si[0])
		}
		kernel.Barrier()
	}
}

// argmaxJoin is argmaxSplit's second pass: out[r] is the index of the
// largest of row r's chunks partial maxima, the first of equal ones.
//
//gpu:kernel
func argmaxJoin(out, part []int32, rows, chunks uint32) {
	sv := kernel.Shared[[rowGroup]float32]()
	si := kernel.Shared[[rowGroup]uint32]()
	t, b := kernel.ThreadX(), kernel.GroupSizeX()
	for r := kernel.GroupX(); r < rows; r += kernel.GridX() {
		q := 2 * r * chunks
		best := kernel.Float32frombits(uint32(part[q]))
		bi := uint32(part[q+1])
		for c := t; c < chunks; c += b {
			v, i := kernel.Float32frombits(uint32(part[q+2*c])), uint32(part[q+2*c+1])
			if v > best || (v == best && i < bi) {
				best = v
				bi = i
			}
		}
		sv[t] = best
		si[t] = bi
		kernel.Barrier()
		for h := uint32(rowGroup / 2); h > 0; h /= 2 {
			if t < h && t+h < b {
				v, i := sv[t+h], si[t+h]
				if v > sv[t] || (v == sv[t] && i < si[t]) {
					sv[t] = v
					si[t] = i
				}
			}
			kernel.Barrier()
		}
		if t == 0 {
			out[r] = int32(si[0])
		}
		kernel.Barrier()
	}
}

// softmaxRows writes row r's softmax to y[r·cols ...]: e^(x-max) over the
// row's sum of them.
//
//gpu:kernel
func softmaxRows(y, x []uint32, rows, cols, dt, xoff, s0, s1, s2, s3, s4, t0, t1, t2, t3, t4, cstride uint32) {
	sh := kernel.Shared[[rowGroup]float32]()
	part := kernel.Shared[[rowParts]float32]()
	t, b := kernel.ThreadX(), kernel.GroupSizeX()
	chunk := rowChunk(b)
	parts := rowPartsOf(b, chunk)
	per := perWord(dt)
	rr := rank6(1, s0, s1, s2, s3) // the outer view's rank
	for r := kernel.GroupX(); r < rows; r += kernel.GridX() {
		base := xoff + offset6(r, rr, s0, s1, s2, s3, s4, 0, t0, t1, t2, t3, t4)
		if rowFast(dt, cols, cstride, base) {
			w0, words := base/per, cols/per
			first := kernel.Float32frombits(bitsOf(x[w0], dt, 0)) // the row's first element
			m, e := first, float32(0)                             // this thread's running maximum and its sum of e^(v-m)
			for w := t; w < words; w += rowUnroll * b {
				var ws [rowUnroll]uint32
				for u := uint32(0); u < rowUnroll; u++ {
					if w+u*b < words {
						ws[u] = x[w0+w+u*b]
					}
				}
				cm := m
				for u := uint32(0); u < rowUnroll; u++ {
					if w+u*b < words {
						cm = wordMax(cm, ws[u], per, dt)
					}
				}
				if cm > m {
					e *= kernel.Exp(m - cm)
					m = cm
				}
				for u := uint32(0); u < rowUnroll; u++ {
					if w+u*b < words {
						e += wordExpSum(ws[u], per, dt, m)
					}
				}
				if last(w, rowUnroll*b, words) {
					break
				}
			}
			sh[t] = m
			kernel.Barrier()
			if t < parts {
				p := sh[t*chunk]
				for i := t*chunk + 1; i < min(b, t*chunk+chunk); i++ {
					p = max(p, sh[i])
				}
				part[t] = p
			}
			kernel.Barrier()
			mx := part[0]
			for i := uint32(1); i < parts; i++ {
				mx = max(mx, part[i])
			}
			e *= kernel.Exp(m - mx)
			sh[t] = e
			kernel.Barrier()
			if t < parts {
				p := sh[t*chunk]
				for i := t*chunk + 1; i < min(b, t*chunk+chunk); i++ {
					p += sh[i]
				}
				part[t] = p
			}
			kernel.Barrier()
			sum := part[0]
			for i := uint32(1); i < parts; i++ {
				sum += part[i]
			}
			inv := 1 / sum
			o := r * cols / per // the row's first word in y
			for w := t; w < words; w += rowUnroll * b {
				var ws [rowUnroll]uint32
				for u := uint32(0); u < rowUnroll; u++ {
					if w+u*b < words {
						ws[u] = x[w0+w+u*b]
					}
				}
				for u := uint32(0); u < rowUnroll; u++ {
					if w+u*b < words {
						y[o+w+u*b] = softmaxWord(ws[u], per, dt, mx, inv)
					}
				}
				if last(w, rowUnroll*b, words) {
					break
				}
			}
			continue
		}
		m := kernel.Float32frombits(bitsOf(x[wordOf(base, dt)], dt, base))
		for c := t; c < cols; c += b {
			at := base + c*cstride
			m = max(m, kernel.Float32frombits(bitsOf(x[wordOf(at, dt)], dt, at)))
		}
		sh[t] = m
		kernel.Barrier()
		for h := uint32(rowGroup / 2); h > 0; h /= 2 {
			if t < h && t+h < b {
				sh[t] = max(sh[t], sh[t+h])
			}
			kernel.Barrier()
		}
		m = sh[0]
		kernel.Barrier()
		var s float32
		for c := t; c < cols; c += b {
			at := base + c*cstride
			s += kernel.Exp(kernel.Float32frombits(bitsOf(x[wordOf(at, dt)], dt, at)) - m)
		}
		sh[t] = s
		kernel.Barrier()
		for h := uint32(rowGroup / 2); h > 0; h /= 2 {
			if t < h && t+h < b {
				sh[t] += sh[t+h]
			}
			kernel.Barrier()
		}
		inv := 1 / sh[0]
		kernel.Barrier()
		pairs := pairedRows(dt, cols)
		for c := t * pairs; c < cols; c += b * pairs {
			at := base + c*cstride
			v := kernel.Exp(kernel.Float32frombits(bitsOf(x[wordOf(at, dt)], dt, at))-m) * inv
			o := r*cols + c
			if dt == DTFloat32 {
				y[o] = kernel.Float32bits(v)
			} else if pairs == 2 {
				at2 := at + cstride
				v2 := kernel.Exp(kernel.Float32frombits(bitsOf(x[wordOf(at2, dt)], dt, at2))-m) * inv
				y[o/2] = encode16(v, dt) | encode16(v2, dt)<<16
			} else {
				kernel.AtomicAnd(&y[o/2], otherHalf(o))
				kernel.AtomicOr(&y[o/2], halfBits(v, dt, o))
			}
		}
	}
}

// pairedRows is how many columns a row kernel's thread writes at a time: 2
// when the output is 16-bit and every row starts on a word (cols even), so
// that a thread writes whole words; 1 otherwise, a 16-bit element then
// being an atomic update of its half of the word.
func pairedRows(dt, cols uint32) uint32 {
	if dt != DTFloat32 && cols%2 == 0 {
		return 2
	}
	return 1
}

// Norm kinds and flags (normRows's kind and affine).
const (
	NormLayer = 0 // (x - mean)/√(var + eps)
	NormRMS   = 1 // x/√(mean(x²) + eps)

	NormGamma = 1 // multiply by gamma[c]
	NormBeta  = 2 // add beta[c]
)

// normRows writes row r, normalised (kind: layer norm with the biased
// variance, or RMS norm), to y[r·cols ...], times gamma[c] and plus beta[c]
// as affine's flags say (gamma and beta are contiguous, cols long; a buffer
// whose flag is off is not read).
//
//gpu:kernel
func normRows(y, x, gamma, beta []uint32, rows, cols, dt, kind, affine, xoff, s0, s1, s2, s3, s4, t0, t1, t2, t3, t4, cstride uint32, eps float32) {
	sh := kernel.Shared[[rowGroup]float32]()
	part := kernel.Shared[[rowParts]float32]()
	t, b := kernel.ThreadX(), kernel.GroupSizeX()
	chunk := rowChunk(b)
	parts := rowPartsOf(b, chunk)
	per := perWord(dt)
	rr := rank6(1, s0, s1, s2, s3) // the outer view's rank
	for r := kernel.GroupX(); r < rows; r += kernel.GridX() {
		base := xoff + offset6(r, rr, s0, s1, s2, s3, s4, 0, t0, t1, t2, t3, t4)
		if rowFast(dt, cols, cstride, base) {
			w0, words := base/per, cols/per
			var mean float32
			if kind == NormLayer {
				var s float32
				for w := t; w < words; w += rowUnroll * b {
					var ws [rowUnroll]uint32
					for u := uint32(0); u < rowUnroll; u++ {
						if w+u*b < words {
							ws[u] = x[w0+w+u*b]
						}
					}
					for u := uint32(0); u < rowUnroll; u++ {
						if w+u*b < words {
							s += wordSum(ws[u], per, dt)
						}
					}
					if last(w, rowUnroll*b, words) {
						break
					}
				}
				sh[t] = s
				kernel.Barrier()
				if t < parts {
					p := sh[t*chunk]
					for i := t*chunk + 1; i < min(b, t*chunk+chunk); i++ {
						p += sh[i]
					}
					part[t] = p
				}
				kernel.Barrier()
				total := part[0]
				for i := uint32(1); i < parts; i++ {
					total += part[i]
				}
				mean = total / float32(cols)
			}
			var q float32
			for w := t; w < words; w += rowUnroll * b {
				var ws [rowUnroll]uint32
				for u := uint32(0); u < rowUnroll; u++ {
					if w+u*b < words {
						ws[u] = x[w0+w+u*b]
					}
				}
				for u := uint32(0); u < rowUnroll; u++ {
					if w+u*b < words {
						q += wordSquares(ws[u], per, dt, mean)
					}
				}
				if last(w, rowUnroll*b, words) {
					break
				}
			}
			sh[t] = q
			kernel.Barrier()
			if t < parts {
				p := sh[t*chunk]
				for i := t*chunk + 1; i < min(b, t*chunk+chunk); i++ {
					p += sh[i]
				}
				part[t] = p
			}
			kernel.Barrier()
			squares := part[0]
			for i := uint32(1); i < parts; i++ {
				squares += part[i]
			}
			inv := kernel.Rsqrt(squares/float32(cols) + eps)
			o := r * cols / per // the row's first word in y
			for w := t; w < words; w += rowUnroll * b {
				var ws [rowUnroll]uint32
				var gs, bs [rowUnroll]uint32 // gamma's and beta's words, where affine has them
				for u := uint32(0); u < rowUnroll; u++ {
					if w+u*b < words {
						ws[u] = x[w0+w+u*b]
						if affine&NormGamma != 0 {
							gs[u] = gamma[w+u*b]
						}
						if affine&NormBeta != 0 {
							bs[u] = beta[w+u*b]
						}
					}
				}
				for u := uint32(0); u < rowUnroll; u++ {
					if w+u*b < words {
						y[o+w+u*b] = normWord(ws[u], gs[u], bs[u], per, dt, affine, mean, inv)
					}
				}
				if last(w, rowUnroll*b, words) {
					break
				}
			}
			continue
		}
		var mean float32
		if kind == NormLayer {
			var s float32
			for c := t; c < cols; c += b {
				at := base + c*cstride
				s += kernel.Float32frombits(bitsOf(x[wordOf(at, dt)], dt, at))
			}
			sh[t] = s
			kernel.Barrier()
			for h := uint32(rowGroup / 2); h > 0; h /= 2 {
				if t < h && t+h < b {
					sh[t] += sh[t+h]
				}
				kernel.Barrier()
			}
			mean = sh[0] / float32(cols)
			kernel.Barrier()
		}
		var q float32
		for c := t; c < cols; c += b {
			at := base + c*cstride
			d := kernel.Float32frombits(bitsOf(x[wordOf(at, dt)], dt, at)) - mean
			q += d * d
		}
		sh[t] = q
		kernel.Barrier()
		for h := uint32(rowGroup / 2); h > 0; h /= 2 {
			if t < h && t+h < b {
				sh[t] += sh[t+h]
			}
			kernel.Barrier()
		}
		inv := kernel.Rsqrt(sh[0]/float32(cols) + eps)
		kernel.Barrier()
		pairs := pairedRows(dt, cols)
		for c0 := t * pairs; c0 < cols; c0 += b * pairs {
			var out uint32 // the word of a pair
			for j := uint32(0); j < pairs; j++ {
				c := c0 + j
				at := base + c*cstride
				v := (kernel.Float32frombits(bitsOf(x[wordOf(at, dt)], dt, at)) - mean) * inv
				if affine&NormGamma != 0 {
					v *= kernel.Float32frombits(bitsOf(gamma[wordOf(c, dt)], dt, c))
				}
				if affine&NormBeta != 0 {
					v += kernel.Float32frombits(bitsOf(beta[wordOf(c, dt)], dt, c))
				}
				o := r*cols + c
				if dt == DTFloat32 {
					y[o] = kernel.Float32bits(v)
				} else if pairs == 2 {
					out |= encode16(v, dt) << (16 * j)
				} else {
					kernel.AtomicAnd(&y[o/2], otherHalf(o))
					kernel.AtomicOr(&y[o/2], halfBits(v, dt, o))
				}
			}
			if pairs == 2 {
				y[(r*cols+c0)/2] = out
			}
		}
	}
}
