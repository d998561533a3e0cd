package ops

import "github.com/anygpu/gpu/kernel"

// attentionBlockMMA's tiling: a group of AttentionBlockMMAThreads threads
// takes attnMBQ consecutive queries of one head, staged with their head
// dimension padded to attnMMADim, and walks their keys in tiles of attnMBK.
// Per tile it stages the keys, computes the scores S = Q·Kᵀ with
// kernel.MatMulAdd, takes the online softmax (16 threads), rescales the
// output rows O (in shared memory), stages the values in the keys' array
// and accumulates O += P·V with kernel.MatMulAdd. For the 16-bit dtypes
// the products run in the dtype's precision (CUDA's tensor cores): Q, K and
// V are values of the dtype already, so only P is rounded, and P is split
// into its rounding and the rounding of the remainder (two products), so
// the result is as close as float32 arithmetic's; float32 tensors run in
// float32 precision. Row strides are 8 more than a multiple of 32 (4 for
// the values, which are not transposed; 24 for the scores, as good for
// their loads), as MatMulAdd's tensor-core path wants them. Its shared
// memory, AttentionBlockMMAShared, stays within 32 KiB: every backend
// compiles every kernel of the package (OpenGL at once), and llvmpipe's and
// lavapipe's groups have 32 KiB.
const (
	AttentionBlockMMAThreads = 128        // the group size attentionBlockMMA must be launched with
	AttentionBlockMMADim     = attnMMADim // the largest head dimension it takes
	AttentionBlockMMAQueries = attnMBQ    // queries per group
	// AttentionBlockMMAShared is attentionBlockMMA's shared memory in bytes.
	AttentionBlockMMAShared = 4 * (2*attnMBQ*attnMLD + attnMBK*attnMLD + 2*attnMBQ*attnMPLD + 3*attnMBQ)
	attnMMADim              = 128
	attnMMALog              = 7 // log₂ attnMMADim
	attnMBK                 = 16
	attnMLD                 = attnMMADim + 8 // q, k and o rows' stride
	attnMVLD                = attnMMADim + 4 // v rows' stride
	attnMPLD                = attnMBK + 8    // scores' stride
	attnMBQ                 = 16
)

// attentionBlockMMA is attentionBlockWide on kernel.MatMulAdd, for head
// dimensions up to AttentionBlockMMADim, in groups of exactly
// AttentionBlockMMAThreads threads: the same inputs and result. It is the
// prefill kernel where MatMulAdd runs on tensor cores (CUDA).
//
//gpu:kernel
func attentionBlockMMA(out, q, kc, vc, table []uint32, dt, nq, heads, dim, pos, ctx, page, pages, toff, qoff, qi, qh, qd uint32, scale float32) {
	qs := kernel.Shared[[attnMBQ * attnMLD]float32]()
	kv := kernel.Shared[[attnMBK * attnMLD]float32]()  // a tile's keys, then its values
	ps := kernel.Shared[[attnMBQ * attnMPLD]float32]() // scores, then P's rounding
	pl := kernel.Shared[[attnMBQ * attnMPLD]float32]() // the rest of P
	os := kernel.Shared[[attnMBQ * attnMLD]float32]()
	ms := kernel.Shared[[attnMBQ]float32]()
	ls := kernel.Shared[[attnMBQ]float32]()
	al := kernel.Shared[[attnMBQ]float32]()
	t := kernel.ThreadX()
	// A thread stages 2 elements of a key or value row from one word where
	// 16-bit rows start on words (sh 1), else 1.
	sh := pairedRows(dt, dim) - 1
	blocks := (nq + attnMBQ - 1) / attnMBQ
	for w := kernel.GroupX(); w < blocks*heads; w += kernel.GridX() {
		i0, h := (w/heads)*attnMBQ, w%heads
		for e := t; e < attnMBQ*attnMMADim; e += AttentionBlockMMAThreads {
			r, d := e>>attnMMALog, e&(attnMMADim-1)
			var v float32
			if i0+r < nq && d < dim {
				at := qoff + (i0+r)*qi + h*qh + d*qd
				v = kernel.Float32frombits(bitsOf(q[wordOf(at, dt)], dt, at))
			}
			qs[r*attnMLD+d] = v
			os[r*attnMLD+d] = 0
		}
		if t < attnMBQ {
			ms[t] = attnNone
			ls[t] = 0
		}
		nk := pos + min(nq, i0+attnMBQ) // the block's last query sees positions 0..nk-1
		for j0 := uint32(0); j0 < nk; j0 += attnMBK {
			for e := t; e < attnMBK*attnMMADim>>sh; e += AttentionBlockMMAThreads {
				r, d := e>>(attnMMALog-sh), (e&(attnMMADim>>sh-1))<<sh
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
				kv[r*attnMLD+d] = x0
				if sh == 1 {
					kv[r*attnMLD+d+1] = x1
				}
			}
			if t < attnMBQ*attnMBK/8 {
				for c := uint32(0); c < 8; c++ {
					e := t*8 + c
					ps[(e/attnMBK)*attnMPLD+e%attnMBK] = 0
				}
			}
			if dt == DTBFloat16 {
				kernel.MatMulAdd(ps, qs, kv, kernel.MatMul{M: attnMBQ, N: attnMBK, K: attnMMADim, LDA: attnMLD, LDB: attnMLD, LDC: attnMPLD,
					TransposeB: true, Precision: kernel.PrecisionBFloat16})
			} else if dt == DTFloat16 {
				kernel.MatMulAdd(ps, qs, kv, kernel.MatMul{M: attnMBQ, N: attnMBK, K: attnMMADim, LDA: attnMLD, LDB: attnMLD, LDC: attnMPLD,
					TransposeB: true, Precision: kernel.PrecisionFloat16})
			} else {
				kernel.MatMulAdd(ps, qs, kv, kernel.MatMul{M: attnMBQ, N: attnMBK, K: attnMMADim, LDA: attnMLD, LDB: attnMLD, LDC: attnMPLD,
					TransposeB: true})
			}
			// The values replace the keys while 16 threads take the
			// softmax of the scores.
			for e := t; e < attnMBK*attnMMADim>>sh; e += AttentionBlockMMAThreads {
				r, d := e>>(attnMMALog-sh), (e&(attnMMADim>>sh-1))<<sh
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
				kv[r*attnMVLD+d] = x0
				if sh == 1 {
					kv[r*attnMVLD+d+1] = x1
				}
			}
			if t < attnMBQ {
				qpos, real := pos+i0+t, i0+t < nq
				mx := ms[t]
				for c := uint32(0); c < attnMBK; c++ {
					if j0+c <= qpos && real {
						mx = max(mx, ps[t*attnMPLD+c]*scale)
					}
				}
				alpha := kernel.Exp(ms[t] - mx)
				var sum float32
				for c := uint32(0); c < attnMBK; c++ {
					var p, hi float32
					if j0+c <= qpos && real {
						p = kernel.Exp(ps[t*attnMPLD+c]*scale - mx)
						hi = p
						if dt != DTFloat32 {
							hi = kernel.Float32frombits(half16(encode16(p, dt), dt, 0))
						}
					}
					ps[t*attnMPLD+c] = hi
					pl[t*attnMPLD+c] = p - hi
					sum += p
				}
				ls[t] = ls[t]*alpha + sum
				ms[t] = mx
				al[t] = alpha
			}
			kernel.Barrier()
			for e := t; e < attnMBQ*attnMMADim; e += AttentionBlockMMAThreads {
				r, d := e>>attnMMALog, e&(attnMMADim-1)
				os[r*attnMLD+d] *= al[r]
			}
			if dt == DTBFloat16 {
				kernel.MatMulAdd(os, ps, kv, kernel.MatMul{M: attnMBQ, N: attnMMADim, K: attnMBK, LDA: attnMPLD, LDB: attnMVLD, LDC: attnMLD,
					Precision: kernel.PrecisionBFloat16})
				kernel.MatMulAdd(os, pl, kv, kernel.MatMul{M: attnMBQ, N: attnMMADim, K: attnMBK, LDA: attnMPLD, LDB: attnMVLD, LDC: attnMLD,
					Precision: kernel.PrecisionBFloat16})
			} else if dt == DTFloat16 {
				kernel.MatMulAdd(os, ps, kv, kernel.MatMul{M: attnMBQ, N: attnMMADim, K: attnMBK, LDA: attnMPLD, LDB: attnMVLD, LDC: attnMLD,
					Precision: kernel.PrecisionFloat16})
				kernel.MatMulAdd(os, pl, kv, kernel.MatMul{M: attnMBQ, N: attnMMADim, K: attnMBK, LDA: attnMPLD, LDB: attnMVLD, LDC: attnMLD,
					Precision: kernel.PrecisionFloat16})
			} else {
				kernel.MatMulAdd(os, ps, kv, kernel.MatMul{M: attnMBQ, N: attnMMADim, K: attnMBK, LDA: attnMPLD, LDB: attnMVLD, LDC: attnMLD})
			}
		}
		if pairedRows(dt, dim) == 1 {
			for e := t; e < attnMBQ*dim; e += AttentionBlockMMAThreads {
				r, d := e/dim, e%dim
				if i0+r < nq {
					o := ((i0+r)*heads+h)*dim + d
					v := os[r*attnMLD+d] / ls[r]
					if dt == DTFloat32 {
						out[o] = kernel.Float32bits(v)
					} else {
						kernel.AtomicAnd(&out[o/2], otherHalf(o))
						kernel.AtomicOr(&out[o/2], halfBits(v, dt, o))
					}
				}
			}
		} else { // 16-bit rows that start on a word (dim even): a word per thread
			half := dim / 2
			for e := t; e < attnMBQ*half; e += AttentionBlockMMAThreads {
				r, d := e/half, (e%half)*2
				if i0+r < nq {
					o := ((i0+r)*heads+h)*dim + d
					inv := 1 / ls[r]
					out[o/2] = encode16(os[r*attnMLD+d]*inv, dt) | encode16(os[r*attnMLD+d+1]*inv, dt)<<16
				}
			}
		}
		kernel.Barrier()
	}
}
