package ops

import "github.com/anygpu/gpu/kernel"

// attentionTC's tiling: a group of AttentionTCThreads threads (four matrix
// units of 32) takes AttentionTCQueries consecutive queries of one head,
// 16 a unit, and walks their keys in tiles of tcBK. Everything a unit
// multiplies lives in its registers as kernel.MMA fragments: its queries
// as A fragments (loaded once, straight from the 16-bit words), the
// scores S = Q·Kᵀ as 16×8 accumulators, the probabilities as A fragments
// made from the scores' registers (the accumulator layout of two
// neighbouring 16×8 tiles is the A layout of one 16×16), and the output O
// as 16×8 accumulators until the end. Only a tile's keys and values go
// through shared memory, as rows of dim/2 words (16-bit pairs) tcPad words
// apart beyond their length, copied from the cache 16 bytes at a time by
// kernel.CopyAsync (cp.async on CUDA: no registers, no stores), and read
// back as B fragments by kernel.LoadMatrices4 (ldmatrix on CUDA: the keys
// as stored, the values transposed, two fragments a load). The keys have
// two tiles' room: the next tile's keys are copied while a whole tile is
// multiplied, its values while its scores are multiplied and its softmax
// taken; two barriers a tile.
// The rows are tcPad (4) words longer than their length, so the 8 rows of
// an 8×8 matrix load start in 8 different groups of 4 banks.
//
// The online softmax works in base 2 (scores times scale·log₂e, exp2): a
// row's maximum and sum are held by the 4 lanes that hold the row (lanes
// 4g..4g+3), which meet by subgroup shuffles where subgroups have 4 lanes
// or more, else through shared memory; a lane keeps only its part of a
// row's sum until the end.
//
// The kernel needs 16-bit queries, keys and values (bfloat16 or float16)
// whose rows start on words, with head dimensions 64 or 128 (the
// variants); its shared memory, AttentionTCShared, stays within 32 KiB
// (OpenGL compiles every kernel of the package).
const (
	AttentionTCThreads = 128 // the group size attentionTC must be launched with
	AttentionTCQueries = 64  // the queries a group takes
	AttentionTCDim     = 128 // the largest head dimension
	// AttentionTCShared is attentionTC's shared memory in bytes (27.4 KiB).
	AttentionTCShared = 4 * (3*tcBK*tcLD + AttentionTCQueries*4 + 3*tcBK)

	tcBK   = 32                       // keys a tile
	tcPad  = 4                        // words a staged row has past its length
	tcLD   = AttentionTCDim/2 + tcPad // words a staged row of the largest head dimension
	tcKeys = tcBK * tcLD              // the first of the two key tiles in kv, past the values
	log2e  = 1.4426950408889634074    // log₂ e
)

// attentionTC is attention for blocks of queries, as a prefill has them, on
// matrix units (kernel.MMA: CUDA's tensor cores): the inputs and results of
// attentionFlash (its splits, kchunk, out and stats), for dt bfloat16 or
// float16, dim 64 or 128 (the variants fix both), q's dimensions
// contiguous (qd 1) and qoff, qi and qh even; groups of exactly
// AttentionTCThreads threads take (query block, head, split) triples
// grid-stride, the blocks with the most keys first.
//
//gpu:kernel
//gpu:maxthreads 128
//gpu:variant attentionTCBF16D64 dt=DTBFloat16 dim=64
//gpu:variant attentionTCBF16D128 dt=DTBFloat16 dim=128
//gpu:variant attentionTCF16D64 dt=DTFloat16 dim=64
//gpu:variant attentionTCF16D128 dt=DTFloat16 dim=128
func attentionTC(out []uint32, stats []float32, q []uint32, kc, vc []float32, table []uint32, dt, nq, heads, dim, pos, ctx, page, pages, toff, qoff, qi, qh, qd, kchunk, splits uint32, scale float32) {
	kv := kernel.Shared[[3 * tcBK * tcLD]uint32]() // a tile's values, then two tiles' keys: kv[at + c·ld + w] holds dimensions 2w, 2w+1 of key c
	red := kernel.Shared[[AttentionTCQueries * 4]float32]()
	rows := kernel.Shared[[3 * tcBK]uint32]() // the vector offsets of three tiles' rows in the cache
	t := kernel.ThreadX()
	unit, lane := t/32, t%32
	g, c := lane/4, lane%4 // the lane holds rows g and g+8 of its unit's 16, columns 2c and 2c+1 of each 8
	sl := scale * log2e
	vecs := dim / 8     // 16-byte vectors a key or value row
	ld := dim/2 + tcPad // words a staged row
	blocks := (nq + AttentionTCQueries - 1) / AttentionTCQueries
	for w := kernel.GroupX(); w < blocks*heads*splits; w += kernel.GridX() {
		split, bh := w%splits, w/splits
		i0, h := (blocks-1-bh/heads)*AttentionTCQueries, bh%heads
		r0 := i0 + unit*16 + g // the lane's first query; r0+8 its second
		qb := qoff + h*qh
		var qf [AttentionTCDim / 16][4]uint32
		for k := uint32(0); k < dim/16; k++ {
			d := k*16 + 2*c
			if r0 < nq {
				qf[k][0] = q[(qb+r0*qi+d)/2]
				qf[k][2] = q[(qb+r0*qi+d+8)/2]
			}
			if r0+8 < nq {
				qf[k][1] = q[(qb+(r0+8)*qi+d)/2]
				qf[k][3] = q[(qb+(r0+8)*qi+d+8)/2]
			}
		}
		var o [AttentionTCDim / 8][4]float32
		m0, m1 := float32(attnNone), float32(attnNone) // the rows' running maxima, base 2
		var l0, l1 float32                             // the lane's part of the rows' sums
		kbeg := split * kchunk
		nk := min(pos+min(nq, i0+AttentionTCQueries), kbeg+kchunk)
		tiles := uint32(0)
		if nk > kbeg {
			tiles = (nk - kbeg + tcBK - 1) / tcBK
		}
		// Tile i's row offsets are in rows[(i%3)·tcBK...], written one
		// tile ahead of their keys' copies: a tile's keys are copied while
		// the tile before it is multiplied, its values while its scores
		// are, so rows of three tiles are in use at once.
		kernel.Barrier() // the last work item's rows, keys and values done with
		if t < tcBK && kbeg+t < nk {
			var pg uint32
			if page != 0 {
				pg = min(table[toff+(kbeg+t)/page], pages-1)
			}
			rows[t] = kvRow(pg, h, kbeg+t, heads, ctx, page, dim) / 8
		}
		// Step i copies tile i-1's values and tile i's keys (those that
		// exist), then multiplies tile i-1; rows at or past nk become
		// zeros: a key there is masked, but a value is multiplied by its
		// probability 0, and what the memory held (a NaN) must not reach O.
		for i := uint32(0); i <= tiles; i++ {
			kernel.CopyAsyncWait(0)
			kernel.Barrier() // tile i-1's keys in place; what the copies overwrite done with
			for which := uint32(0); which < 2; which++ {
				tile := i + which - 1 // the values of tile i-1, the keys of tile i
				if (which == 1 || i > 0) && tile < tiles {
					at := tcKeys + tile%2*tcBK*tcLD
					if which == 0 {
						at = 0
					}
					for x := t; x < vecs*tcBK; x += AttentionTCThreads {
						r, rv := x/vecs, tile%3*tcBK+x/vecs
						if kbeg+tile*tcBK+r >= nk {
							for z := uint32(0); z < 4; z++ {
								kv[at+r*ld+4*(x%vecs)+z] = 0
							}
						} else if which == 0 {
							kernel.CopyAsync(kv, (at+r*ld)/4+x%vecs, vc, rows[rv]+x%vecs)
						} else {
							kernel.CopyAsync(kv, (at+r*ld)/4+x%vecs, kc, rows[rv]+x%vecs)
						}
					}
				}
				kernel.CopyAsyncCommit()
			}
			if after := kbeg + (i+1)*tcBK; t < tcBK && after+t < nk {
				var pg uint32
				if page != 0 {
					pg = min(table[toff+(after+t)/page], pages-1)
				}
				rows[(i+1)%3*tcBK+t] = kvRow(pg, h, after+t, heads, ctx, page, dim) / 8
			}
			if i == 0 {
				continue
			}
			j0 := kbeg + (i-1)*tcBK // the tile multiplied: i-1
			next := j0 + tcBK
			// S = Q·Kᵀ: lane l's row address is key 8n + l%8 of matrix
			// l/8, dimensions 16k + 8(l/8): B fragments (n, k) and (n, k+1).
			keys := tcKeys + (i-1)%2*tcBK*tcLD
			var s [tcBK / 8][4]float32
			for n := uint32(0); n < tcBK/8; n++ {
				for k := uint32(0); k < dim/16; k += 2 {
					var b4 [4]uint32
					kernel.LoadMatrices4(&b4, kv, keys+(n*8+lane%8)*ld+8*k+4*(lane/8), false)
					var b, b1 [2]uint32
					b[0], b[1], b1[0], b1[1] = b4[0], b4[1], b4[2], b4[3]
					if dt == DTBFloat16 {
						kernel.MMA(&s[n], &qf[k], &b, kernel.PrecisionBFloat16)
						kernel.MMA(&s[n], &qf[k+1], &b1, kernel.PrecisionBFloat16)
					} else {
						kernel.MMA(&s[n], &qf[k], &b, kernel.PrecisionFloat16)
						kernel.MMA(&s[n], &qf[k+1], &b1, kernel.PrecisionFloat16)
					}
				}
			}
			// Scale and mask: query r sees keys 0..pos+r of the split's range.
			// Only a tile past the split's end or the unit's first query
			// masks.
			masked := next > nk || next-1 > pos+i0+unit*16
			mx0, mx1 := float32(attnNone), float32(attnNone)
			for n := uint32(0); n < tcBK/8; n++ {
				for e := uint32(0); e < 4; e++ {
					key, r := j0+n*8+2*c+e%2, r0+8*(e/2)
					v := s[n][e] * sl
					if masked && (key >= nk || key > pos+r) {
						v = attnNone
					}
					s[n][e] = v
				}
				mx0 = max(mx0, max(s[n][0], s[n][1]))
				mx1 = max(mx1, max(s[n][2], s[n][3]))
			}
			if kernel.SubgroupSize() >= 4 {
				mx0 = max(mx0, kernel.SubgroupShuffleXor(mx0, 1))
				mx1 = max(mx1, kernel.SubgroupShuffleXor(mx1, 1))
				mx0 = max(mx0, kernel.SubgroupShuffleXor(mx0, 2))
				mx1 = max(mx1, kernel.SubgroupShuffleXor(mx1, 2))
			} else {
				red[(unit*16+g)*4+c] = mx0
				red[(unit*16+g+8)*4+c] = mx1
				kernel.Barrier()
				for x := uint32(0); x < 4; x++ {
					mx0 = max(mx0, red[(unit*16+g)*4+x])
					mx1 = max(mx1, red[(unit*16+g+8)*4+x])
				}
			}
			// A row none of whose keys were seen yet keeps attnNone as its
			// maximum, and its masked scores must still give 0: they are
			// taken from 0 instead.
			n0, n1 := max(m0, mx0), max(m1, mx1)
			if n0 == attnNone {
				n0 = 0
			}
			if n1 == attnNone {
				n1 = 0
			}
			a0, a1 := kernel.Exp2(m0-n0), kernel.Exp2(m1-n1)
			m0, m1 = max(m0, mx0), max(m1, mx1)
			l0 *= a0
			l1 *= a1
			for n := uint32(0); n < dim/8; n++ {
				o[n][0] *= a0
				o[n][1] *= a0
				o[n][2] *= a1
				o[n][3] *= a1
			}
			// P as A fragments: keys 16k..16k+15 are the score tiles 2k
			// and 2k+1.
			var pf [tcBK / 16][4]uint32
			for k := uint32(0); k < tcBK/16; k++ {
				for x := uint32(0); x < 2; x++ {
					e0 := kernel.Exp2(s[2*k+x][0] - n0)
					e1 := kernel.Exp2(s[2*k+x][1] - n0)
					e2 := kernel.Exp2(s[2*k+x][2] - n1)
					e3 := kernel.Exp2(s[2*k+x][3] - n1)
					l0 += e0 + e1
					l1 += e2 + e3
					if dt == DTBFloat16 {
						pf[k][2*x] = kernel.PackHalves(e0, e1, kernel.PrecisionBFloat16)
						pf[k][2*x+1] = kernel.PackHalves(e2, e3, kernel.PrecisionBFloat16)
					} else {
						pf[k][2*x] = kernel.PackHalves(e0, e1, kernel.PrecisionFloat16)
						pf[k][2*x+1] = kernel.PackHalves(e2, e3, kernel.PrecisionFloat16)
					}
				}
			}
			kernel.CopyAsyncWait(1)
			kernel.Barrier() // tile i-1's values in place (tile i's keys may still be coming)
			// O += P·V: lane l's row address is key 16k + 8(l/8%2) + l%8,
			// dimensions 8n + 8(l/16), read transposed: B fragments (k, n)
			// and (k, n+1).
			for n := uint32(0); n < dim/8; n += 2 {
				for k := uint32(0); k < tcBK/16; k++ {
					var b4 [4]uint32
					kernel.LoadMatrices4(&b4, kv, (16*k+8*(lane/8%2)+lane%8)*ld+4*n+4*(lane/16), true)
					var b, b1 [2]uint32
					b[0], b[1], b1[0], b1[1] = b4[0], b4[1], b4[2], b4[3]
					if dt == DTBFloat16 {
						kernel.MMA(&o[n], &pf[k], &b, kernel.PrecisionBFloat16)
						kernel.MMA(&o[n+1], &pf[k], &b1, kernel.PrecisionBFloat16)
					} else {
						kernel.MMA(&o[n], &pf[k], &b, kernel.PrecisionFloat16)
						kernel.MMA(&o[n+1], &pf[k], &b1, kernel.PrecisionFloat16)
					}
				}
			}
		}
		// The rows' sums meet.
		if kernel.SubgroupSize() >= 4 {
			l0 += kernel.SubgroupShuffleXor(l0, 1)
			l1 += kernel.SubgroupShuffleXor(l1, 1)
			l0 += kernel.SubgroupShuffleXor(l0, 2)
			l1 += kernel.SubgroupShuffleXor(l1, 2)
		} else {
			kernel.Barrier()
			red[(unit*16+g)*4+c] = l0
			red[(unit*16+g+8)*4+c] = l1
			kernel.Barrier()
			l0, l1 = 0, 0
			for x := uint32(0); x < 4; x++ {
				l0 += red[(unit*16+g)*4+x]
				l1 += red[(unit*16+g+8)*4+x]
			}
		}
		if splits > 1 {
			// The unnormalised rows and their maxima (natural log) and
			// sums, for attentionCombine: out is float32.
			for x := uint32(0); x < 2; x++ {
				r := r0 + 8*x
				if r < nq {
					row := (r*heads+h)*splits + split
					for n := uint32(0); n < dim/8; n++ {
						out[row*dim+n*8+2*c] = kernel.Float32bits(o[n][2*x])
						out[row*dim+n*8+2*c+1] = kernel.Float32bits(o[n][2*x+1])
					}
					if c == 0 {
						mr, lr := m0, l0
						if x == 1 {
							mr, lr = m1, l1
						}
						stats[2*row] = mr / log2e
						stats[2*row+1] = lr
					}
				}
			}
			continue
		}
		inv0, inv1 := 1/l0, 1/l1
		for n := uint32(0); n < dim/8; n++ {
			d := n*8 + 2*c
			if r0 < nq {
				at := ((r0*heads+h)*dim + d) / 2
				if dt == DTBFloat16 {
					out[at] = kernel.PackHalves(o[n][0]*inv0, o[n][1]*inv0, kernel.PrecisionBFloat16)
				} else {
					out[at] = kernel.PackHalves(o[n][0]*inv0, o[n][1]*inv0, kernel.PrecisionFloat16)
				}
			}
			if r0+8 < nq {
				at := (((r0+8)*heads+h)*dim + d) / 2
				if dt == DTBFloat16 {
					out[at] = kernel.PackHalves(o[n][2]*inv1, o[n][3]*inv1, kernel.PrecisionBFloat16)
				} else {
					out[at] = kernel.PackHalves(o[n][2]*inv1, o[n][3]*inv1, kernel.PrecisionFloat16)
				}
			}
		}
	}
}
