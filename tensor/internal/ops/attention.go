package ops

import "github.com/anygpu/gpu/kernel"

// AttentionMaxHeadDim is the largest head dimension attention takes: the
// size of its shared query and accumulator rows.
const AttentionMaxHeadDim = 256

// kvRow is the element offset of key (or value) j of head h in a KV cache:
// a contiguous [heads, ctx, dim] cache when page is 0, else a page pool
// [pages, heads, page, dim] in which position j lies in page pg (the
// sequence's block table's entry j/page) at row j%page.
func kvRow(pg, h, j, heads, ctx, page, dim uint32) uint32 {
	if page == 0 {
		return (h*ctx + j) * dim
	}
	return ((pg*heads+h)*page + j%page) * dim
}

// attnNone stands for -∞ in attention's running maximum: the dialects that
// assume no infinities must never see one.
const attnNone = -3.0e38

// attention computes causal attention over a KV cache, FlashAttention-style:
// the keys are taken in tiles of the group's size with a running maximum
// and sum (online softmax), so no score matrix is ever stored. Query i <
// nq of head h < heads is q[qoff + i·qi + h·qh + d·qd] (d < dim); it sits at
// position pos+i and attends to the cache's positions 0..pos+i, key j of
// head h being kc[(h·ctx + j)·dim + d] (kc, vc contiguous [heads, ctx,
// dim]), or, with page > 0, of page pools [pages, heads, page, dim]: kvRow's
// row in page table[toff + j/page] (an entry past the pool reads its last
// page). out is contiguous [nq, heads, dim]: Σ_j softmax_j(scale·q·k_j)·v_j.
// A group takes (query, head, split) triples grid-stride; it has at most
// rowGroup threads, and dim ≤ AttentionMaxHeadDim.
//
// With pdev ≠ 0 the first query's position is not pos but posb[pos] (an
// int32 tensor's element, read on the device): a position past the cache,
// or negative, is taken as ctx, each query then attending to all ctx
// positions. Nothing else depends on it, so one launch, its scalars frozen
// (a captured graph), serves every position: a split walks its whole range
// of the cache, masking the keys past the query's position (a range past
// it writes a maximum of attnNone and sums of 0, which attentionCombine
// weighs 0). With pdev 0, posb is any buffer of the launch (not read).
//
// With splits > 1 (flash-decoding: a decode step has one query per head, too
// few groups to fill a GPU) split s takes positions s·kchunk ..
// (s+1)·kchunk-1 of each query's range and writes its unnormalised sum to
// out[((i·heads + h)·splits + s)·dim + d] and its running maximum and sum to
// stats[2·((i·heads + h)·splits + s) + 0, 1]; attentionCombine joins them.
// A split past a query's last position writes a maximum of attnNone and
// sums of 0. q, kc and vc are of dtype code dt, out of odt (float32 with
// splits > 1), stats float32.
//
//gpu:kernel
func attention(out []uint32, stats []float32, q, kc, vc, table, posb []uint32, dt, odt, nq, heads, dim, pos, pdev, ctx, page, pages, toff, qoff, qi, qh, qd, kchunk, splits uint32, scale float32) {
	qs := kernel.Shared[[AttentionMaxHeadDim]float32]()
	acc := kernel.Shared[[AttentionMaxHeadDim]float32]()
	ps := kernel.Shared[[rowGroup]float32]()
	red := kernel.Shared[[rowGroup]float32]()
	rows := kernel.Shared[[rowGroup]uint32]() // the tile's keys' rows, paged
	t, b := kernel.ThreadX(), kernel.GroupSizeX()
	first := pos // the first query's position
	if pdev != 0 {
		first = min(posb[pos], ctx)
	}
	for w := kernel.GroupX(); w < nq*heads*splits; w += kernel.GridX() {
		split := w % splits
		i, h := (w/splits)/heads, (w/splits)%heads
		for d := t; d < dim; d += b {
			at := qoff + i*qi + h*qh + d*qd
			qs[d] = kernel.Float32frombits(bitsOf(q[wordOf(at, dt)], dt, at)) * scale
			acc[d] = 0
		}
		kernel.Barrier()
		m := float32(attnNone)                           // the running maximum, the same in every thread
		var l float32                                    // the running sum of e^(s-m)
		nk := min(min(first+i+1, ctx), (split+1)*kchunk) // this split's end
		// The tiles walked: to nk with a host position; with a device one
		// (nk varies for the uniformity analysis) to the split's end in the
		// cache, the keys from nk on masked.
		end := min(pos+i+1, (split+1)*kchunk)
		if pdev != 0 {
			end = min(ctx, (split+1)*kchunk)
		}
		for j0 := split * kchunk; j0 < end; j0 += b {
			j := j0 + t
			s := float32(attnNone)
			if j < nk {
				var dot float32
				row := (h*ctx + j) * dim
				if page != 0 {
					row = kvRow(min(table[toff+j/page], pages-1), h, j, heads, ctx, page, dim)
					rows[t] = row
				}
				if dt != DTFloat32 && dim%2 == 0 {
					// The row starts on a word: a load takes two elements.
					for d := uint32(0); d < dim; d += 2 {
						w := kc[(row+d)/2]
						dot += qs[d] * lowHalf(w, dt)
						dot += qs[d+1] * highHalf(w, dt)
					}
				} else {
					for d := uint32(0); d < dim; d++ {
						at := row + d
						dot += qs[d] * kernel.Float32frombits(bitsOf(kc[wordOf(at, dt)], dt, at))
					}
				}
				s = dot
			}
			red[t] = s
			kernel.Barrier()
			for g := uint32(rowGroup / 2); g > 0; g /= 2 {
				if t < g && t+g < b {
					red[t] = max(red[t], red[t+g])
				}
				kernel.Barrier()
			}
			mn := max(m, red[0])
			kernel.Barrier()
			var p float32
			if j < nk {
				p = kernel.Exp(s - mn)
			}
			ps[t] = p
			red[t] = p
			kernel.Barrier()
			for g := uint32(rowGroup / 2); g > 0; g /= 2 {
				if t < g && t+g < b {
					red[t] += red[t+g]
				}
				kernel.Barrier()
			}
			alpha := kernel.Exp(m - mn)
			l = l*alpha + red[0]
			m = mn
			cnt := min(b, max(nk, j0)-j0) // 0 past nk
			for d := t; d < dim; d += b {
				v := acc[d] * alpha
				if page == 0 {
					vrow := (h*ctx+j0)*dim + d
					for jj := uint32(0); jj < cnt; jj++ {
						at := vrow + jj*dim
						v += ps[jj] * kernel.Float32frombits(bitsOf(vc[wordOf(at, dt)], dt, at))
					}
				} else {
					for jj := uint32(0); jj < cnt; jj++ {
						at := rows[jj] + d
						v += ps[jj] * kernel.Float32frombits(bitsOf(vc[wordOf(at, dt)], dt, at))
					}
				}
				acc[d] = v
			}
			kernel.Barrier()
		}
		if splits == 1 {
			inv := 1 / l
			pairs := pairedRows(odt, dim) // a row (i, h) of out starts on a word
			for d := t * pairs; d < dim; d += b * pairs {
				o := (i*heads+h)*dim + d
				if odt == DTFloat32 {
					out[o] = kernel.Float32bits(acc[d] * inv)
				} else if pairs == 2 {
					out[o/2] = encode16(acc[d]*inv, odt) | encode16(acc[d+1]*inv, odt)<<16
				} else {
					kernel.AtomicAnd(&out[o/2], otherHalf(o))
					kernel.AtomicOr(&out[o/2], halfBits(acc[d]*inv, odt, o))
				}
			}
		} else {
			for d := t; d < dim; d += b {
				out[w*dim+d] = kernel.Float32bits(acc[d])
			}
			if t == 0 {
				stats[2*w] = m
				stats[2*w+1] = l
			}
		}
		kernel.Barrier()
	}
}

// attentionCombine joins attention's splits: for each query i, head h and
// d < dim (n = nq·heads·dim threads' work), with M the largest split
// maximum, out[(i·heads + h)·dim + d] = Σ_s part_s[d]·e^(m_s - M) /
// Σ_s l_s·e^(m_s - M). out is of dtype code dt, part and stats float32;
// each thread writes whole words of out (perWord elements).
//
//gpu:kernel
func attentionCombine(out []uint32, part, stats []float32, dt, n, dim, splits uint32) {
	if n == 0 {
		return
	}
	per := perWord(dt)
	words := (n + per - 1) / per
	step := kernel.GroupSizeX() * kernel.GridX()
	for w := kernel.GroupX()*kernel.GroupSizeX() + kernel.ThreadX(); w < words; w += step {
		var word uint32
		for j := uint32(0); j < per; j++ {
			e := w*per + j
			if e < n {
				r, d := e/dim, e%dim // r = i·heads + h
				mx := float32(attnNone)
				for s := uint32(0); s < splits; s++ {
					mx = max(mx, stats[2*(r*splits+s)])
				}
				var num, den float32
				for s := uint32(0); s < splits; s++ {
					f := kernel.Exp(stats[2*(r*splits+s)] - mx)
					num += part[(r*splits+s)*dim+d] * f
					den += stats[2*(r*splits+s)+1] * f
				}
				if per == 1 {
					word = kernel.Float32bits(num / den)
				} else {
					word |= encode16(num/den, dt) << (16 * j)
				}
			}
		}
		out[w] = word
		if last(w, step, words) {
			break
		}
	}
}

// The tiling of attentionBlock: a group of AttentionBlockThreads threads
// takes attnBQ consecutive queries of one head and walks their keys in
// tiles of attnBK staged in shared memory, so each key and value is read
// once per attnBQ queries; thread d holds dimension d of the queries' sums.
const (
	AttentionBlockThreads = 64 // the group size attentionBlock must be launched with
	AttentionBlockDim     = 64 // the largest head dimension it takes: one thread per dimension
	AttentionBlockQueries = attnBQ
	attnBQ                = 16
	attnBK                = 16
	attnPad               = AttentionBlockDim + 1 // staged query and key rows' stride: the 16 keys a warp reads at one d lie in 16 banks
)

// attentionBlock is attention (one split) for blocks of queries, as a
// prefill has them: the same inputs and result, dim ≤ AttentionBlockDim,
// groups of AttentionBlockThreads threads taking (query block, head) pairs
// grid-stride. Its shared memory stays under 16 KiB. Every tensor is of
// dtype code dt.
//
//gpu:kernel
func attentionBlock(out, q, kc, vc, table []uint32, dt, nq, heads, dim, pos, ctx, page, pages, toff, qoff, qi, qh, qd uint32, scale float32) {
	qs := kernel.Shared[[attnBQ * attnPad]float32]()
	ks := kernel.Shared[[attnBK * attnPad]float32]()
	vs := kernel.Shared[[attnBK * AttentionBlockDim]float32]()
	ps := kernel.Shared[[attnBQ * attnBK]float32]()
	ms := kernel.Shared[[attnBQ]float32]()
	ls := kernel.Shared[[attnBQ]float32]()
	al := kernel.Shared[[attnBQ]float32]()
	t := kernel.ThreadX()
	blocks := (nq + attnBQ - 1) / attnBQ
	for w := kernel.GroupX(); w < blocks*heads; w += kernel.GridX() {
		i0, h := (w/heads)*attnBQ, w%heads
		for e := t; e < attnBQ*AttentionBlockDim; e += AttentionBlockThreads {
			r, d := e/AttentionBlockDim, e%AttentionBlockDim
			var v float32
			if i0+r < nq && d < dim {
				at := qoff + (i0+r)*qi + h*qh + d*qd
				v = kernel.Float32frombits(bitsOf(q[wordOf(at, dt)], dt, at)) * scale
			}
			qs[r*attnPad+d] = v
		}
		if t < attnBQ {
			ms[t] = attnNone
			ls[t] = 0
		}
		var acc [attnBQ]float32
		kernel.Barrier()
		nk := pos + min(nq, i0+attnBQ) // the block's last query sees positions 0..nk-1
		for j0 := uint32(0); j0 < nk; j0 += attnBK {
			for e := t; e < attnBK*AttentionBlockDim; e += AttentionBlockThreads {
				r, d := e/AttentionBlockDim, e%AttentionBlockDim
				var kv, vv float32
				if j0+r < nk && d < dim {
					var pg uint32
					if page != 0 {
						pg = min(table[toff+(j0+r)/page], pages-1)
					}
					at := kvRow(pg, h, j0+r, heads, ctx, page, dim) + d
					kv = kernel.Float32frombits(bitsOf(kc[wordOf(at, dt)], dt, at))
					vv = kernel.Float32frombits(bitsOf(vc[wordOf(at, dt)], dt, at))
				}
				ks[r*attnPad+d] = kv
				vs[e] = vv
			}
			kernel.Barrier()
			for e := t; e < attnBQ*attnBK; e += AttentionBlockThreads {
				r, c := e/attnBK, e%attnBK
				s := float32(attnNone)
				if j0+c <= pos+i0+r && i0+r < nq { // causal, and a query of the block
					var dot float32
					for d := uint32(0); d < dim; d++ {
						dot += qs[r*attnPad+d] * ks[c*attnPad+d]
					}
					s = dot
				}
				ps[e] = s
			}
			kernel.Barrier()
			if t < attnBQ {
				mx := ms[t]
				for c := 0; c < attnBK; c++ {
					mx = max(mx, ps[t*attnBK+uint32(c)])
				}
				alpha := kernel.Exp(ms[t] - mx)
				var sum float32
				for c := 0; c < attnBK; c++ {
					var p float32
					if j0+uint32(c) <= pos+i0+t && i0+t < nq {
						p = kernel.Exp(ps[t*attnBK+uint32(c)] - mx)
					}
					ps[t*attnBK+uint32(c)] = p
					sum += p
				}
				ls[t] = ls[t]*alpha + sum
				ms[t] = mx
				al[t] = alpha
			}
			kernel.Barrier()
			if t < dim {
				for r := 0; r < attnBQ; r++ {
					a := acc[r] * al[r]
					for c := 0; c < attnBK; c++ {
						a += ps[uint32(r)*attnBK+uint32(c)] * vs[uint32(c)*AttentionBlockDim+t]
					}
					acc[r] = a
				}
			}
			kernel.Barrier()
		}
		if pairedRows(dt, dim) == 1 {
			if t < dim {
				for r := 0; r < attnBQ; r++ {
					if i0+uint32(r) < nq {
						o := ((i0+uint32(r))*heads+h)*dim + t
						if dt == DTFloat32 {
							out[o] = kernel.Float32bits(acc[r] / ls[r])
						} else {
							kernel.AtomicAnd(&out[o/2], otherHalf(o))
							kernel.AtomicOr(&out[o/2], halfBits(acc[r]/ls[r], dt, o))
						}
					}
				}
			}
		} else {
			// 16-bit rows that start on a word (dim even): the block's rows
			// staged in qs (done with), then written a word per thread.
			if t < dim {
				for r := 0; r < attnBQ; r++ {
					qs[uint32(r)*attnPad+t] = acc[r] / ls[r]
				}
			}
			kernel.Barrier()
			half := dim / 2
			for e := t; e < attnBQ*half; e += AttentionBlockThreads {
				r, d := e/half, (e%half)*2
				if i0+r < nq {
					o := ((i0+r)*heads+h)*dim + d
					out[o/2] = encode16(qs[r*attnPad+d], dt) | encode16(qs[r*attnPad+d+1], dt)<<16
				}
			}
		}
		kernel.Barrier()
	}
}

// attentionBlockWide's tiling, for head dimensions up to attnWideDim: a group
// of AttentionBlockWideThreads threads takes attnBQ queries of one head and
// walks their keys in tiles of attnWBK, staging a tile's keys and then, in
// the same shared array, its values. Each thread computes 2×2 scores of a
// tile (queries 2·(t/16) and the next, keys t%16 and t%16+16) and holds the
// sums of 8 queries (8·(t/64) ..) at 2 dimensions (t%64 and t%64+64), so
// that a shared-memory read feeds 1 to 1.6 multiply-adds, not 0.5.
// AttentionBlockWideShared is its shared memory in bytes, within the 32
// KiB every backend here gives a group (CUDA: 48 KiB without opting in,
// llvmpipe's GLES 32 KiB).
const (
	AttentionBlockWideThreads = 128         // the group size attentionBlockWide must be launched with
	AttentionBlockWideDim     = attnWideDim // the largest head dimension it takes
	// AttentionBlockWideShared is attentionBlockWide's shared memory in bytes.
	AttentionBlockWideShared = 4 * (attnBQ*attnWidePad + attnWBK*attnWidePad + attnBQ*attnWBK + 3*attnBQ)
	attnWideDim              = 128
	attnWidePad              = attnWideDim + 1 // staged rows' stride: the 16 keys a warp reads at one d lie in 16 banks
	attnWBK                  = 32
	attnWideLog              = 7 // log₂ attnWideDim
)

// attentionBlockWide is attentionBlock for head dimensions up to
// AttentionBlockWideDim, in groups of exactly AttentionBlockWideThreads
// threads: the same inputs and result.
//
//gpu:kernel
func attentionBlockWide(out, q, kc, vc, table []uint32, dt, nq, heads, dim, pos, ctx, page, pages, toff, qoff, qi, qh, qd uint32, scale float32) {
	qs := kernel.Shared[[attnBQ * attnWidePad]float32]()
	kv := kernel.Shared[[attnWBK * attnWidePad]float32]() // a tile's keys, then its values
	ps := kernel.Shared[[attnBQ * attnWBK]float32]()
	ms := kernel.Shared[[attnBQ]float32]()
	ls := kernel.Shared[[attnBQ]float32]()
	al := kernel.Shared[[attnBQ]float32]()
	t := kernel.ThreadX()
	sr, sc := (t/16)*2, t%16 // the thread's scores: queries sr, sr+1; keys sc, sc+16
	vd, vq := t%64, (t/64)*8 // its sums: dimensions vd, vd+64; queries vq..vq+7
	// A thread stages 2 elements of a key or value row from one word where
	// 16-bit rows start on words (sh 1), else 1.
	sh := pairedRows(dt, dim) - 1
	blocks := (nq + attnBQ - 1) / attnBQ
	for w := kernel.GroupX(); w < blocks*heads; w += kernel.GridX() {
		i0, h := (w/heads)*attnBQ, w%heads
		for e := t; e < attnBQ*attnWideDim; e += AttentionBlockWideThreads {
			r, d := e/attnWideDim, e%attnWideDim
			var v float32
			if i0+r < nq && d < dim {
				at := qoff + (i0+r)*qi + h*qh + d*qd
				v = kernel.Float32frombits(bitsOf(q[wordOf(at, dt)], dt, at)) * scale
			}
			qs[r*attnWidePad+d] = v
		}
		if t < attnBQ {
			ms[t] = attnNone
			ls[t] = 0
		}
		var acc [16]float32 // acc[2r], acc[2r+1]: query vq+r at dimensions vd, vd+64
		kernel.Barrier()
		nk := pos + min(nq, i0+attnBQ) // the block's last query sees positions 0..nk-1
		for j0 := uint32(0); j0 < nk; j0 += attnWBK {
			for e := t; e < attnWBK*attnWideDim>>sh; e += AttentionBlockWideThreads {
				r, d := e>>(attnWideLog-sh), (e&(attnWideDim>>sh-1))<<sh
				var x0, x1 float32
				if j0+r < nk && d < dim {
					var pg uint32
					if page != 0 {
						pg = min(table[toff+(j0+r)/page], pages-1)
					}
					at := kvRow(pg, h, j0+r, heads, ctx, page, dim) + d
					w := kc[wordOf(at, dt)]
					x0 = kernel.Float32frombits(bitsOf(w, dt, at))
					x1 = kernel.Float32frombits(bitsOf(w, dt, at+1))
				}
				kv[r*attnWidePad+d] = x0
				if sh == 1 {
					kv[r*attnWidePad+d+1] = x1
				}
			}
			kernel.Barrier()
			var s00, s01, s10, s11 float32
			for d := uint32(0); d < dim; d++ {
				q0, q1 := qs[sr*attnWidePad+d], qs[(sr+1)*attnWidePad+d]
				k0, k1 := kv[sc*attnWidePad+d], kv[(sc+16)*attnWidePad+d]
				s00 += q0 * k0
				s01 += q0 * k1
				s10 += q1 * k0
				s11 += q1 * k1
			}
			ps[sr*attnWBK+sc] = attnMasked(s00, j0+sc, pos+i0+sr, i0+sr < nq)
			ps[sr*attnWBK+sc+16] = attnMasked(s01, j0+sc+16, pos+i0+sr, i0+sr < nq)
			ps[(sr+1)*attnWBK+sc] = attnMasked(s10, j0+sc, pos+i0+sr+1, i0+sr+1 < nq)
			ps[(sr+1)*attnWBK+sc+16] = attnMasked(s11, j0+sc+16, pos+i0+sr+1, i0+sr+1 < nq)
			kernel.Barrier()
			// The values replace the keys while 16 threads take the
			// softmax of the scores.
			for e := t; e < attnWBK*attnWideDim>>sh; e += AttentionBlockWideThreads {
				r, d := e>>(attnWideLog-sh), (e&(attnWideDim>>sh-1))<<sh
				var x0, x1 float32
				if j0+r < nk && d < dim {
					var pg uint32
					if page != 0 {
						pg = min(table[toff+(j0+r)/page], pages-1)
					}
					at := kvRow(pg, h, j0+r, heads, ctx, page, dim) + d
					w := vc[wordOf(at, dt)]
					x0 = kernel.Float32frombits(bitsOf(w, dt, at))
					x1 = kernel.Float32frombits(bitsOf(w, dt, at+1))
				}
				kv[r*attnWidePad+d] = x0
				if sh == 1 {
					kv[r*attnWidePad+d+1] = x1
				}
			}
			if t < attnBQ {
				mx := ms[t]
				for c := 0; c < attnWBK; c++ {
					mx = max(mx, ps[t*attnWBK+uint32(c)])
				}
				alpha := kernel.Exp(ms[t] - mx)
				var sum float32
				for c := 0; c < attnWBK; c++ {
					var p float32
					if j0+uint32(c) <= pos+i0+t && i0+t < nq {
						p = kernel.Exp(ps[t*attnWBK+uint32(c)] - mx)
					}
					ps[t*attnWBK+uint32(c)] = p
					sum += p
				}
				ls[t] = ls[t]*alpha + sum
				ms[t] = mx
				al[t] = alpha
			}
			kernel.Barrier()
			for r := 0; r < 8; r++ {
				a := al[vq+uint32(r)]
				acc[2*r] *= a
				acc[2*r+1] *= a
			}
			for c := uint32(0); c < attnWBK; c++ {
				v0, v1 := kv[c*attnWidePad+vd], kv[c*attnWidePad+vd+64]
				for r := 0; r < 8; r++ {
					p := ps[(vq+uint32(r))*attnWBK+c]
					acc[2*r] += p * v0
					acc[2*r+1] += p * v1
				}
			}
			kernel.Barrier()
		}
		// The block's rows staged in qs (done with), then written out.
		for r := 0; r < 8; r++ {
			row := vq + uint32(r)
			if i0+row < nq {
				inv := 1 / ls[row]
				qs[row*attnWidePad+vd] = acc[2*r] * inv
				qs[row*attnWidePad+vd+64] = acc[2*r+1] * inv
			}
		}
		kernel.Barrier()
		if pairedRows(dt, dim) == 1 {
			for e := t; e < attnBQ*dim; e += AttentionBlockWideThreads {
				r, d := e/dim, e%dim
				if i0+r < nq {
					o := ((i0+r)*heads+h)*dim + d
					if dt == DTFloat32 {
						out[o] = kernel.Float32bits(qs[r*attnWidePad+d])
					} else {
						kernel.AtomicAnd(&out[o/2], otherHalf(o))
						kernel.AtomicOr(&out[o/2], halfBits(qs[r*attnWidePad+d], dt, o))
					}
				}
			}
		} else { // 16-bit rows that start on a word (dim even): a word per thread
			half := dim / 2
			for e := t; e < attnBQ*half; e += AttentionBlockWideThreads {
				r, d := e/half, (e%half)*2
				if i0+r < nq {
					o := ((i0+r)*heads+h)*dim + d
					out[o/2] = encode16(qs[r*attnWidePad+d], dt) | encode16(qs[r*attnWidePad+d+1], dt)<<16
				}
			}
		}
		kernel.Barrier()
	}
}

// attnMasked is the score s of key j for a query at position qpos, or
// attnNone where the query may not see the key (causal) or is not one
// (!real).
func attnMasked(s float32, j, qpos uint32, real bool) float32 {
	if j <= qpos && real {
		return s
	}
	return attnNone
}

// appendKV writes x, keys or values [n, heads, dim] for positions
// pos..pos+n-1 (x[xoff + i·xi + h·xh + d·xd]), into a KV cache: with page
// 0 a contiguous [heads, ctx, dim] cache, else a page pool [pages, heads,
// page, dim] through a sequence's block table, position j going to row
// j%page of page table[toff + j/page] (an entry outside 0..pages-1 writes
// nothing). With pdev ≠ 0 the first position is posb[pos] (an int32 tensor's
// element, read on the device), not pos; positions outside 0..ctx-1 (the
// table's ctx/page entries' positions, paged) are not written. pool and x
// are of dtype code dt; the elements are copied bit for bit. Threads take
// x's elements grid-stride. table and posb are any buffers of the launch
// where they are not read (page 0, pdev 0).
//
//gpu:kernel
func appendKV(pool, x, table, posb []uint32, dt, n, heads, dim, pos, pdev, ctx, page, pages, toff, xoff, xi, xh, xd uint32) {
	total := n * heads * dim
	if total == 0 {
		return
	}
	first := pos
	if pdev != 0 {
		first = posb[pos]
	}
	step := kernel.GroupSizeX() * kernel.GridX()
	for e := kernel.GroupX()*kernel.GroupSizeX() + kernel.ThreadX(); e < total; e += step {
		d, h, i := e%dim, (e/dim)%heads, e/(dim*heads)
		j := first + i // as int32 arithmetic: a negative position is past ctx
		var pg uint32
		inside := j < ctx
		if page != 0 && inside {
			pg = table[toff+j/page]
			inside = pg < pages
		}
		if inside {
			src := xoff + i*xi + h*xh + d*xd
			o := kvRow(pg, h, j, heads, ctx, page, dim) + d
			if dt == DTFloat32 {
				pool[o] = x[src]
			} else {
				bits := (x[src/2] >> ((src % 2) * 16)) & 0xffff
				kernel.AtomicAnd(&pool[o/2], otherHalf(o))
				kernel.AtomicOr(&pool[o/2], bits<<((o%2)*16))
			}
		}
		if last(e, step, total) {
			break
		}
	}
}
