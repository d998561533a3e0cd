package ops

import "github.com/anygpu/gpu/kernel"

// The flash kernels' tiling: a group of AttentionFlashThreads threads takes
// flashBQ consecutive queries of one head (the queries, scaled, staged once
// in shared memory) and walks their keys in tiles of flashBK, staging a
// tile's keys and then, in the same shared array, its values (the rows'
// offsets in the cache computed once a tile, by a thread a key); the wide
// kernel (head dimensions up to 128) stages the keys in two halves of their
// dimensions and the values in two halves of the keys, to stay within 32
// KiB. Thread t owns a register tile of the scores, rows tr + flashRowStep·i
// (i < 4, tr = t/flashCols) by keys tc + flashCols·j (j < 4, tc =
// t%flashCols), and of the output, the same rows by dimensions tc +
// flashCols·k (8 or 16 of them). A shared-memory read feeds 2
// multiply-adds in Q·Kᵀ and 2.7 (head dimension 64) to 3.2 (128) in P·V,
// where attentionBlock's fed 0.5 to 1.
//
// The online softmax keeps each row's running maximum in the registers of
// the flashCols threads that own the row (they meet in shared memory once a
// tile) and each thread's part of the row's sum (they meet once, at the
// end); the probabilities go through shared memory, transposed, to P·V. O
// stays in registers until the end, when the rows, normalised, are staged
// in the queries' array and written out, a word per thread for 16-bit rows.
//
// No warp's shared-memory read meets a bank conflict: the queries and keys
// are transposed with odd strides (rows and keys consecutive at a
// dimension; the threads staging a row's dimensions write distinct banks),
// the probabilities with a stride of flashPPad ≡ 4 (mod 32), so that the
// 32 a warp writes lie in 32 banks. Both kernels' shared memory stays
// within 32 KiB (OpenGL's guarantee on desktops, llvmpipe's GLES, Metal's).
const (
	AttentionFlashThreads = flashThreads // the group size the flash kernels must be launched with
	AttentionFlashQueries = flashBQ      // the queries a group takes
	AttentionFlashDim     = 64           // the largest head dimension attentionFlash takes
	AttentionFlashWideDim = 128          // the largest head dimension attentionFlashWide takes
	// AttentionFlashShared is attentionFlash's shared memory in bytes
	// (22.1 KiB).
	AttentionFlashShared = 4 * (AttentionFlashDim*flashQPad + flashKV + flashBK*flashPPad + flashBQ*flashCols + flashBK)
	// AttentionFlashWideShared is attentionFlashWide's in bytes (30.4 KiB).
	AttentionFlashWideShared = 4 * (AttentionFlashWideDim*flashQPad + flashWideKV + flashBK*flashPPad + flashBQ*flashCols + flashBK)

	flashThreads = 64
	flashBQ      = 32
	flashBK      = 32
	flashWideKH  = 64                       // the dimensions of a tile's keys the wide kernel stages at a time
	flashWideVH  = 16                       // the keys of a tile whose values it stages at a time
	flashCols    = 8                        // the threads that share a row
	flashRowStep = flashThreads / flashCols // the distance between a thread's rows
	flashQPad    = flashBQ + 1              // qs's stride
	flashPPad    = flashBQ + 4              // pt's stride
	// The key-and-value arrays: the keys staged at a time, transposed
	// (stride flashBK + 1), or the values, whichever is larger.
	flashKV     = max(AttentionFlashDim*(flashBK+1), flashBK*AttentionFlashDim)
	flashWideKV = max(flashWideKH*(flashBK+1), flashWideVH*AttentionFlashWideDim)
)

// attentionFlash is attention for blocks of queries, as a prefill has them,
// on register tiles (the tiling above): the inputs and results of attention
// (the per-query kernel: its splits, kchunk, out and stats, out of dtype dt
// with one split), dim ≤ AttentionFlashDim, groups of exactly
// AttentionFlashThreads threads taking (query block, head, split) triples
// grid-stride, the blocks with the most keys first. Splits (flash-decoding)
// give a short prefill on a large GPU more groups, and its longest blocks a
// shorter path: split s of a block takes keys s·kchunk .. (s+1)·kchunk-1 of
// its range; attentionCombine joins them.
//
//gpu:kernel
//gpu:maxthreads 64
func attentionFlash(out []uint32, stats []float32, q, kc, vc, table []uint32, dt, nq, heads, dim, pos, ctx, page, pages, toff, qoff, qi, qh, qd, kchunk, splits uint32, scale float32) {
	qs := kernel.Shared[[AttentionFlashDim * flashQPad]float32]() // the queries, scaled, transposed: qs[d·flashQPad + r]; the output rows at the end
	kv := kernel.Shared[[flashKV]float32]()                       // a tile's keys, transposed (kv[d·(flashBK+1) + c]), then its values (kv[c·AttentionFlashDim + d])
	pt := kernel.Shared[[flashBK * flashPPad]float32]()           // the tile's probabilities, transposed: pt[c·flashPPad + r]
	red := kernel.Shared[[flashBQ * flashCols]float32]()          // a value per (row, column thread): row maxima, then sums
	rows := kernel.Shared[[flashBK]uint32]()                      // the offsets of the tile's keys' and values' rows in the cache
	t := kernel.ThreadX()
	tr, tc := t/flashCols, t%flashCols // rows tr + flashRowStep·i, keys and dimensions tc + flashCols·j
	// 16-bit rows that start on words (dim even) are staged a word, two
	// dimensions, a thread.
	paired := pairedRows(dt, dim) == 2
	blocks := (nq + flashBQ - 1) / flashBQ
	for w := kernel.GroupX(); w < blocks*heads*splits; w += kernel.GridX() {
		// The last query blocks, which see the most keys, go first.
		split, bh := w%splits, w/splits
		i0, h := (blocks-1-bh/heads)*flashBQ, bh%heads
		for e := t; e < flashBQ*AttentionFlashDim; e += flashThreads {
			r, d := e/AttentionFlashDim, e%AttentionFlashDim
			var v float32
			if i0+r < nq && d < dim {
				at := qoff + (i0+r)*qi + h*qh + d*qd
				v = kernel.Float32frombits(bitsOf(q[wordOf(at, dt)], dt, at)) * scale
			}
			qs[d*flashQPad+r] = v
		}
		var acc [4][AttentionFlashDim / flashCols]float32 // rows i, dimensions tc + flashCols·k
		var m, l [4]float32                               // each row's running maximum, and this thread's part of its sum
		for i := 0; i < 4; i++ {
			m[i] = attnNone
		}
		// The split's keys: kbeg..nk-1 of the 0..pos+min(nq, i0+flashBQ)-1
		// the block's last query sees.
		kbeg := split * kchunk
		nk := min(pos+min(nq, i0+flashBQ), kbeg+kchunk)
		for j0 := kbeg; j0 < nk; j0 += flashBK {
			// The last tile's values were staged before its last barrier:
			// rows is free.
			if t < flashBK && j0+t < nk {
				var pg uint32
				if page != 0 {
					pg = min(table[toff+(j0+t)/page], pages-1)
				}
				rows[t] = kvRow(pg, h, j0+t, heads, ctx, page, dim)
			}
			kernel.Barrier()                                         // the last tile's values and probabilities (and, first, the queries) done with
			var s [4][flashBK / flashCols]float32                    // rows i, keys tc + flashCols·j
			for d1 := uint32(0); d1 < dim; d1 += AttentionFlashDim { // the keys' dimensions d1..d1+AttentionFlashDim-1
				if d1 > 0 {
					kernel.Barrier() // the last dimensions' keys done with
				}
				if paired {
					for e := t; e < flashBK*AttentionFlashDim/2; e += flashThreads {
						c, d := e/(AttentionFlashDim/2), 2*(e%(AttentionFlashDim/2))
						var x0, x1 float32
						if j0+c < nk && d1+d < dim {
							at := rows[c] + d1 + d
							word := kc[at/2]
							x0 = kernel.Float32frombits(half16(word, dt, at))
							x1 = kernel.Float32frombits(half16(word, dt, at+1))
						}
						kv[d*(flashBK+1)+c] = x0
						kv[(d+1)*(flashBK+1)+c] = x1
					}
				} else {
					for c := uint32(0); c < flashBK; c++ {
						row := rows[c]
						for d := t; d < AttentionFlashDim; d += flashThreads {
							var x float32
							if j0+c < nk && d1+d < dim {
								at := row + d1 + d
								x = kernel.Float32frombits(bitsOf(kc[wordOf(at, dt)], dt, at))
							}
							kv[d*(flashBK+1)+c] = x
						}
					}
				}
				kernel.Barrier()
				for d0 := uint32(0); d0 < min(AttentionFlashDim, dim-d1); d0 += 4 {
					for dd := uint32(0); dd < 4; dd++ {
						var qv [4]float32
						var kx [flashBK / flashCols]float32
						for i := uint32(0); i < 4; i++ {
							qv[i] = qs[(d1+d0+dd)*flashQPad+tr+flashRowStep*i]
						}
						for j := uint32(0); j < flashBK/flashCols; j++ {
							kx[j] = kv[(d0+dd)*(flashBK+1)+tc+flashCols*j]
						}
						for i := 0; i < 4; i++ {
							for j := 0; j < flashBK/flashCols; j++ {
								s[i][j] += qv[i] * kx[j]
							}
						}
					}
				}
			}
			for i := uint32(0); i < 4; i++ {
				mx := float32(attnNone)
				for j := uint32(0); j < flashBK/flashCols; j++ {
					s[i][j] = attnMasked(s[i][j], j0+tc+flashCols*j, pos+i0+tr+flashRowStep*i, i0+tr+flashRowStep*i < nq && j0+tc+flashCols*j < nk)
					mx = max(mx, s[i][j])
				}
				red[(tr+flashRowStep*i)*flashCols+tc] = mx
			}
			kernel.Barrier()                                   // the keys done with, the maxima written
			for c1 := uint32(0); c1 < flashBK; c1 += flashBK { // the values of keys c1..c1+flashBK-1
				if c1 > 0 {
					kernel.Barrier() // the last keys' values done with
				}
				if paired {
					for e := t; e < flashBK*AttentionFlashDim/2; e += flashThreads {
						c, d := e/(AttentionFlashDim/2), 2*(e%(AttentionFlashDim/2))
						var x0, x1 float32
						if j0+c1+c < nk && d < dim {
							at := rows[c1+c] + d
							word := vc[at/2]
							x0 = kernel.Float32frombits(half16(word, dt, at))
							x1 = kernel.Float32frombits(half16(word, dt, at+1))
						}
						kv[c*AttentionFlashDim+d] = x0
						kv[c*AttentionFlashDim+d+1] = x1
					}
				} else {
					for c := uint32(0); c < flashBK; c++ {
						row := rows[c1+c]
						for d := t; d < AttentionFlashDim; d += flashThreads {
							var x float32
							if j0+c1+c < nk && d < dim {
								at := row + d
								x = kernel.Float32frombits(bitsOf(vc[wordOf(at, dt)], dt, at))
							}
							kv[c*AttentionFlashDim+d] = x
						}
					}
				}
				if c1 == 0 {
					for i := uint32(0); i < 4; i++ {
						r := tr + flashRowStep*i
						mn := m[i]
						for x := uint32(0); x < flashCols; x++ {
							mn = max(mn, red[r*flashCols+x])
						}
						alpha := kernel.Exp(m[i] - mn)
						sum := l[i] * alpha
						for j := uint32(0); j < flashBK/flashCols; j++ {
							var p float32
							if j0+tc+flashCols*j <= pos+i0+r && i0+r < nq && j0+tc+flashCols*j < nk {
								p = kernel.Exp(s[i][j] - mn)
							}
							pt[(tc+flashCols*j)*flashPPad+r] = p
							sum += p
						}
						l[i] = sum
						m[i] = mn
						for k := 0; k < AttentionFlashDim/flashCols; k++ {
							acc[i][k] *= alpha
						}
					}
				}
				kernel.Barrier() // the values and probabilities written
				for c := uint32(0); c < flashBK; c++ {
					var p [4]float32
					var v [AttentionFlashDim / flashCols]float32
					for i := uint32(0); i < 4; i++ {
						p[i] = pt[(c1+c)*flashPPad+tr+flashRowStep*i]
					}
					for k := uint32(0); k < AttentionFlashDim/flashCols; k++ {
						v[k] = kv[c*AttentionFlashDim+tc+flashCols*k]
					}
					for i := 0; i < 4; i++ {
						for k := 0; k < AttentionFlashDim/flashCols; k++ {
							acc[i][k] += p[i] * v[k]
						}
					}
				}
			}
		}
		// The sums' parts meet in red; the rows, normalised, in qs.
		kernel.Barrier()
		for i := uint32(0); i < 4; i++ {
			red[(tr+flashRowStep*i)*flashCols+tc] = l[i]
		}
		kernel.Barrier()
		if splits > 1 {
			// The unnormalised rows and their maxima and sums, for
			// attentionCombine: out is float32.
			for i := uint32(0); i < 4; i++ {
				r := tr + flashRowStep*i
				if i0+r < nq {
					var sum float32
					for x := uint32(0); x < flashCols; x++ {
						sum += red[r*flashCols+x]
					}
					row := ((i0+r)*heads+h)*splits + split
					for k := uint32(0); k < AttentionFlashDim/flashCols; k++ {
						if tc+flashCols*k < dim {
							out[row*dim+tc+flashCols*k] = kernel.Float32bits(acc[i][k])
						}
					}
					if tc == 0 {
						stats[2*row] = m[i]
						stats[2*row+1] = sum
					}
				}
			}
			continue // qs is not read past the barrier above; red and kv are rewritten only after the next tile's first barrier
		}
		for i := uint32(0); i < 4; i++ {
			r := tr + flashRowStep*i
			var sum float32
			for x := uint32(0); x < flashCols; x++ {
				sum += red[r*flashCols+x]
			}
			inv := 1 / max(sum, 1e-30) // rows past nq have none
			for k := uint32(0); k < AttentionFlashDim/flashCols; k++ {
				qs[r*(AttentionFlashDim+1)+tc+flashCols*k] = acc[i][k] * inv
			}
		}
		kernel.Barrier()
		if pairedRows(dt, dim) == 1 {
			for e := t; e < flashBQ*dim; e += flashThreads {
				r, d := e/dim, e%dim
				if i0+r < nq {
					o := ((i0+r)*heads+h)*dim + d
					if dt == DTFloat32 {
						out[o] = kernel.Float32bits(qs[r*(AttentionFlashDim+1)+d])
					} else {
						kernel.AtomicAnd(&out[o/2], otherHalf(o))
						kernel.AtomicOr(&out[o/2], halfBits(qs[r*(AttentionFlashDim+1)+d], dt, o))
					}
				}
			}
		} else { // 16-bit rows that start on a word (dim even): a word per thread
			half := dim / 2
			for e := t; e < flashBQ*half; e += flashThreads {
				r, d := e/half, (e%half)*2
				if i0+r < nq {
					o := ((i0+r)*heads+h)*dim + d
					out[o/2] = encode16(qs[r*(AttentionFlashDim+1)+d], dt) | encode16(qs[r*(AttentionFlashDim+1)+d+1], dt)<<16
				}
			}
		}
		kernel.Barrier() // qs read before the next block's queries
	}
}

// attentionFlashWide is attentionFlash for head dimensions up to
// AttentionFlashWideDim, staging a tile's keys flashWideKH dimensions and
// its values flashWideVH keys at a time: the same inputs, results and group
// size.
//
//gpu:kernel
//gpu:maxthreads 64
func attentionFlashWide(out []uint32, stats []float32, q, kc, vc, table []uint32, dt, nq, heads, dim, pos, ctx, page, pages, toff, qoff, qi, qh, qd, kchunk, splits uint32, scale float32) {
	qs := kernel.Shared[[AttentionFlashWideDim * flashQPad]float32]() // the queries, scaled, transposed: qs[d·flashQPad + r]; the output rows at the end
	kv := kernel.Shared[[flashWideKV]float32]()                       // a tile's keys, transposed (kv[d·(flashBK+1) + c]), then its values (kv[c·AttentionFlashWideDim + d])
	pt := kernel.Shared[[flashBK * flashPPad]float32]()               // the tile's probabilities, transposed: pt[c·flashPPad + r]
	red := kernel.Shared[[flashBQ * flashCols]float32]()              // a value per (row, column thread): row maxima, then sums
	rows := kernel.Shared[[flashBK]uint32]()                          // the offsets of the tile's keys' and values' rows in the cache
	t := kernel.ThreadX()
	tr, tc := t/flashCols, t%flashCols // rows tr + flashRowStep·i, keys and dimensions tc + flashCols·j
	// 16-bit rows that start on words (dim even) are staged a word, two
	// dimensions, a thread.
	paired := pairedRows(dt, dim) == 2
	blocks := (nq + flashBQ - 1) / flashBQ
	for w := kernel.GroupX(); w < blocks*heads*splits; w += kernel.GridX() {
		// The last query blocks, which see the most keys, go first.
		split, bh := w%splits, w/splits
		i0, h := (blocks-1-bh/heads)*flashBQ, bh%heads
		for e := t; e < flashBQ*AttentionFlashWideDim; e += flashThreads {
			r, d := e/AttentionFlashWideDim, e%AttentionFlashWideDim
			var v float32
			if i0+r < nq && d < dim {
				at := qoff + (i0+r)*qi + h*qh + d*qd
				v = kernel.Float32frombits(bitsOf(q[wordOf(at, dt)], dt, at)) * scale
			}
			qs[d*flashQPad+r] = v
		}
		var acc [4][AttentionFlashWideDim / flashCols]float32 // rows i, dimensions tc + flashCols·k
		var m, l [4]float32                                   // each row's running maximum, and this thread's part of its sum
		for i := 0; i < 4; i++ {
			m[i] = attnNone
		}
		// The split's keys: kbeg..nk-1 of the 0..pos+min(nq, i0+flashBQ)-1
		// the block's last query sees.
		kbeg := split * kchunk
		nk := min(pos+min(nq, i0+flashBQ), kbeg+kchunk)
		for j0 := kbeg; j0 < nk; j0 += flashBK {
			// The last tile's values were staged before its last barrier:
			// rows is free.
			if t < flashBK && j0+t < nk {
				var pg uint32
				if page != 0 {
					pg = min(table[toff+(j0+t)/page], pages-1)
				}
				rows[t] = kvRow(pg, h, j0+t, heads, ctx, page, dim)
			}
			kernel.Barrier()                                   // the last tile's values and probabilities (and, first, the queries) done with
			var s [4][flashBK / flashCols]float32              // rows i, keys tc + flashCols·j
			for d1 := uint32(0); d1 < dim; d1 += flashWideKH { // the keys' dimensions d1..d1+flashWideKH-1
				if d1 > 0 {
					kernel.Barrier() // the last dimensions' keys done with
				}
				if paired {
					for e := t; e < flashBK*flashWideKH/2; e += flashThreads {
						c, d := e/(flashWideKH/2), 2*(e%(flashWideKH/2))
						var x0, x1 float32
						if j0+c < nk && d1+d < dim {
							at := rows[c] + d1 + d
							word := kc[at/2]
							x0 = kernel.Float32frombits(half16(word, dt, at))
							x1 = kernel.Float32frombits(half16(word, dt, at+1))
						}
						kv[d*(flashBK+1)+c] = x0
						kv[(d+1)*(flashBK+1)+c] = x1
					}
				} else {
					for c := uint32(0); c < flashBK; c++ {
						row := rows[c]
						for d := t; d < flashWideKH; d += flashThreads {
							var x float32
							if j0+c < nk && d1+d < dim {
								at := row + d1 + d
								x = kernel.Float32frombits(bitsOf(kc[wordOf(at, dt)], dt, at))
							}
							kv[d*(flashBK+1)+c] = x
						}
					}
				}
				kernel.Barrier()
				for d0 := uint32(0); d0 < min(flashWideKH, dim-d1); d0 += 4 {
					for dd := uint32(0); dd < 4; dd++ {
						var qv [4]float32
						var kx [flashBK / flashCols]float32
						for i := uint32(0); i < 4; i++ {
							qv[i] = qs[(d1+d0+dd)*flashQPad+tr+flashRowStep*i]
						}
						for j := uint32(0); j < flashBK/flashCols; j++ {
							kx[j] = kv[(d0+dd)*(flashBK+1)+tc+flashCols*j]
						}
						for i := 0; i < 4; i++ {
							for j := 0; j < flashBK/flashCols; j++ {
								s[i][j] += qv[i] * kx[j]
							}
						}
					}
				}
			}
			for i := uint32(0); i < 4; i++ {
				mx := float32(attnNone)
				for j := uint32(0); j < flashBK/flashCols; j++ {
					s[i][j] = attnMasked(s[i][j], j0+tc+flashCols*j, pos+i0+tr+flashRowStep*i, i0+tr+flashRowStep*i < nq && j0+tc+flashCols*j < nk)
					mx = max(mx, s[i][j])
				}
				red[(tr+flashRowStep*i)*flashCols+tc] = mx
			}
			kernel.Barrier()                                       // the keys done with, the maxima written
			for c1 := uint32(0); c1 < flashBK; c1 += flashWideVH { // the values of keys c1..c1+flashWideVH-1
				if c1 > 0 {
					kernel.Barrier() // the last keys' values done with
				}
				if paired {
					for e := t; e < flashWideVH*AttentionFlashWideDim/2; e += flashThreads {
						c, d := e/(AttentionFlashWideDim/2), 2*(e%(AttentionFlashWideDim/2))
						var x0, x1 float32
						if j0+c1+c < nk && d < dim {
							at := rows[c1+c] + d
							word := vc[at/2]
							x0 = kernel.Float32frombits(half16(word, dt, at))
							x1 = kernel.Float32frombits(half16(word, dt, at+1))
						}
						kv[c*AttentionFlashWideDim+d] = x0
						kv[c*AttentionFlashWideDim+d+1] = x1
					}
				} else {
					for c := uint32(0); c < flashWideVH; c++ {
						row := rows[c1+c]
						for d := t; d < AttentionFlashWideDim; d += flashThreads {
							var x float32
							if j0+c1+c < nk && d < dim {
								at := row + d
								x = kernel.Float32frombits(bitsOf(vc[wordOf(at, dt)], dt, at))
							}
							kv[c*AttentionFlashWideDim+d] = x
						}
					}
				}
				if c1 == 0 {
					for i := uint32(0); i < 4; i++ {
						r := tr + flashRowStep*i
						mn := m[i]
						for x := uint32(0); x < flashCols; x++ {
							mn = max(mn, red[r*flashCols+x])
						}
						alpha := kernel.Exp(m[i] - mn)
						sum := l[i] * alpha
						for j := uint32(0); j < flashBK/flashCols; j++ {
							var p float32
							if j0+tc+flashCols*j <= pos+i0+r && i0+r < nq && j0+tc+flashCols*j < nk {
								p = kernel.Exp(s[i][j] - mn)
							}
							pt[(tc+flashCols*j)*flashPPad+r] = p
							sum += p
						}
						l[i] = sum
						m[i] = mn
						for k := 0; k < AttentionFlashWideDim/flashCols; k++ {
							acc[i][k] *= alpha
						}
					}
				}
				kernel.Barrier() // the values and probabilities written
				for c := uint32(0); c < flashWideVH; c++ {
					var p [4]float32
					var v [AttentionFlashWideDim / flashCols]float32
					for i := uint32(0); i < 4; i++ {
						p[i] = pt[(c1+c)*flashPPad+tr+flashRowStep*i]
					}
					for k := uint32(0); k < AttentionFlashWideDim/flashCols; k++ {
						v[k] = kv[c*AttentionFlashWideDim+tc+flashCols*k]
					}
					for i := 0; i < 4; i++ {
						for k := 0; k < AttentionFlashWideDim/flashCols; k++ {
							acc[i][k] += p[i] * v[k]
						}
					}
				}
			}
		}
		// The sums' parts meet in red; the rows, normalised, in qs.
		kernel.Barrier()
		for i := uint32(0); i < 4; i++ {
			red[(tr+flashRowStep*i)*flashCols+tc] = l[i]
		}
		kernel.Barrier()
		if splits > 1 {
			// The unnormalised rows and their maxima and sums, for
			// attentionCombine: out is float32.
			for i := uint32(0); i < 4; i++ {
				r := tr + flashRowStep*i
				if i0+r < nq {
					var sum float32
					for x := uint32(0); x < flashCols; x++ {
						sum += red[r*flashCols+x]
					}
					row := ((i0+r)*heads+h)*splits + split
					for k := uint32(0); k < AttentionFlashWideDim/flashCols; k++ {
						if tc+flashCols*k < dim {
							out[row*dim+tc+flashCols*k] = kernel.Float32bits(acc[i][k])
						}
					}
					if tc == 0 {
						stats[2*row] = m[i]
						stats[2*row+1] = sum
					}
				}
			}
			continue // qs is not read past the barrier above; red and kv are rewritten only after the next tile's first barrier
		}
		for i := uint32(0); i < 4; i++ {
			r := tr + flashRowStep*i
			var sum float32
			for x := uint32(0); x < flashCols; x++ {
				sum += red[r*flashCols+x]
			}
			inv := 1 / max(sum, 1e-30) // rows past nq have none
			for k := uint32(0); k < AttentionFlashWideDim/flashCols; k++ {
				qs[r*(AttentionFlashWideDim+1)+tc+flashCols*k] = acc[i][k] * inv
			}
		}
		kernel.Barrier()
		if pairedRows(dt, dim) == 1 {
			for e := t; e < flashBQ*dim; e += flashThreads {
				r, d := e/dim, e%dim
				if i0+r < nq {
					o := ((i0+r)*heads+h)*dim + d
					if dt == DTFloat32 {
						out[o] = kernel.Float32bits(qs[r*(AttentionFlashWideDim+1)+d])
					} else {
						kernel.AtomicAnd(&out[o/2], otherHalf(o))
						kernel.AtomicOr(&out[o/2], halfBits(qs[r*(AttentionFlashWideDim+1)+d], dt, o))
					}
				}
			}
		} else { // 16-bit rows that start on a word (dim even): a word per thread
			half := dim / 2
			for e := t; e < flashBQ*half; e += flashThreads {
				r, d := e/half, (e%half)*2
				if i0+r < nq {
					o := ((i0+r)*heads+h)*dim + d
					out[o/2] = encode16(qs[r*(AttentionFlashWideDim+1)+d], dt) | encode16(qs[r*(AttentionFlashWideDim+1)+d+1], dt)<<16
				}
			}
		}
		kernel.Barrier() // qs read before the next block's queries
	}
}
