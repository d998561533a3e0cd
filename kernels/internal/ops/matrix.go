package ops

import "github.com/anygpu/gpu/kernel"

// transposeTile is the side of transpose's square tiles: the launch the
// conformance suite and the benchmarks use (16×16 blocks, a group per 16×16
// of the input) gives every group one tile, and the shared tile stays small
// (a dialect may clear it when a group starts).
const transposeTile = 16

// tileCount is ⌈x/transposeTile⌉ without overflowing near 2³².
func tileCount(x uint32) uint32 {
	return x/transposeTile + (x%transposeTile+transposeTile-1)/transposeTile
}

// transposeOp (the op transpose: a Go name the emitters accept) sets out[c·rows+r] = in[r·cols+c]: 16×16 tiles of in go through
// shared memory (a padded 16×17 tile, no bank conflicts), so that both the
// reads and the writes are along rows. The groups take the tiles grid-stride
// in x and y, any block size; threads with a z index other than 0 only take
// part in the barriers.
//
//gpu:kernel
func transposeOp(out, in []float32, rows, cols uint32) {
	if kernel.GroupZ() != 0 || rows == 0 || cols == 0 {
		return
	}
	tile := kernel.Shared[[transposeTile][transposeTile + 1]float32]()
	active := kernel.ThreadZ() == 0
	tx, ty := kernel.ThreadX(), kernel.ThreadY()
	bx, by := kernel.GroupSizeX(), kernel.GroupSizeY()
	tilesX, tilesY := tileCount(cols), tileCount(rows)
	for ty0 := kernel.GroupY(); ty0 < tilesY; ty0 += kernel.GridY() {
		for tx0 := kernel.GroupX(); tx0 < tilesX; tx0 += kernel.GridX() {
			r0, c0 := ty0*transposeTile, tx0*transposeTile
			if active {
				for i := ty; i < transposeTile; i += by {
					for j := tx; j < transposeTile; j += bx {
						r, c := r0+i, c0+j
						if r < rows && c < cols {
							tile[i][j] = in[r*cols+c]
						}
					}
				}
			}
			kernel.Barrier()
			if active {
				for i := ty; i < transposeTile; i += by {
					for j := tx; j < transposeTile; j += bx {
						c, r := c0+i, r0+j
						if r < rows && c < cols {
							out[c*rows+r] = tile[j][i]
						}
					}
				}
			}
			kernel.Barrier()
		}
	}
}

// The tiling of sgemm's fast path (the design of the hand-written CUDA
// sgemm): a group of sgemmThreads threads computes a sgemmTile×sgemmTile
// tile of C, each thread 8×8 results in registers, from slices of A and B
// sgemmDepth deep in k staged through double-buffered shared memory as
// Float4s, so that a thread reads its four rows of A and four columns of B
// at one k as one 16-byte load each.
const (
	sgemmThreads = 256
	sgemmTile    = 128
	sgemmDepth   = 16
	sgemmQuads   = sgemmTile / 4 // Float4s across a staged slice
	sgemmHalf    = sgemmTile / 2 // a thread's second four rows (columns) are this far from its first
	sgemmGroup   = 8             // tile rows taken side by side, so that they share B in the L2 cache
)

// ceilDiv is ⌈x/d⌉ without overflowing near 2³².
func ceilDiv(x, d uint32) uint32 {
	return x/d + (x%d+d-1)/d
}

// swizzle is where Float4 q of a staged row of A (q < 16) lies at depth kk:
// q with its low three bits flipped by kk's, so that the transposed stores of
// eight consecutive depths at one q go to eight different sets of four banks
// (a padded row would do the same, but take the shared arrays past 32 KiB).
func swizzle(q, kk uint32) uint32 {
	return q ^ kk%8
}

// sgemm computes row-major C(m×n) = alpha·A(m×k)·B(k×n) + beta·C, reading C
// only when beta is not 0 (k == 0 gives beta·C). A group of exactly 256
// threads (any shape) takes 128×128 tiles of C, grid-stride over its x and
// y group indices (eight tile rows side by side); any other group size
// takes one element of C per thread, grid-stride in x (columns) and y
// (rows). Threads with a z index other than 0 in the simple path, and
// groups with one, do nothing.
//
// In the tiled path thread (tx, ty) = (tid%16, tid/16) owns rows
// 4·ty..4·ty+3 and 64+4·ty..64+4·ty+3 of the tile and the same columns with
// tx. Each step of k stages a 128×16 slice of A, transposed (as[buf][kk]
// [swizzle(q, kk)] holds rows 4q..4q+3 at depth kk, rows 64+4q..64+4q+3 are
// 16 Float4s further on), and a 16×128 slice of B in one of the two buffers
// of the shared arrays. A step's global loads are issued before the previous
// slice's arithmetic and stored into the other buffer after it, so one
// barrier per step suffices. B and C move as Float4s when n%4 == 0 (rows
// start 16-byte aligned), else a float at a time; A is read a float at a
// time (16 consecutive k of a row across the threads), so any k works.
// Blocks have at most 512 threads (//gpu:maxthreads: on CUDA that leaves
// each thread 128 registers, two 256-thread groups per SM), as the
// hand-written CUDA sgemm's __launch_bounds__(512). Its variants in other
// tiles (kernels.SgemmSource, chosen per launch by kernels.ChooseSgemm) are
// in kernels/internal/sgemmops.
//
//gpu:kernel
//gpu:maxthreads 512
func sgemm(c, a, b []float32, m, n, k uint32, alpha, beta float32) {
	if kernel.GroupZ() != 0 || m == 0 || n == 0 {
		return
	}
	nt := kernel.GroupSizeX() * kernel.GroupSizeY() * kernel.GroupSizeZ()
	if nt != sgemmThreads {
		if kernel.ThreadZ() == 0 {
			// One element of C per thread, grid-stride in x (columns) and y (rows).
			sy := kernel.GridY() * kernel.GroupSizeY()
			sx := kernel.GridX() * kernel.GroupSizeX()
			for i := kernel.GlobalY(); i < m; i += sy {
				for j := kernel.GlobalX(); j < n; j += sx {
					acc := float32(0)
					for p := uint32(0); p < k; p++ {
						acc += a[i*k+p] * b[p*n+j]
					}
					if beta == 0 {
						c[i*n+j] = alpha * acc
					} else {
						c[i*n+j] = alpha*acc + beta*c[i*n+j]
					}
					if n-j <= sx {
						break
					}
				}
				if m-i <= sy {
					break
				}
			}
		}
		return
	}
	// 32 KiB in all, the most that lavapipe, llvmpipe and Metal allow.
	as := kernel.Shared[[2][sgemmDepth][sgemmQuads]kernel.Float4]()
	bs := kernel.Shared[[2][sgemmDepth][sgemmQuads]kernel.Float4]()
	tid := kernel.ThreadIndex()
	tx, ty := tid%16, tid/16
	// What this thread stages of each step: A at depth ak, rows 4·aq..4·aq+3
	// and sgemmHalf more; B rows bk and bk+8, columns 4·bq..4·bq+3.
	ak, aq := tid%sgemmDepth, tid/sgemmDepth
	bk, bq := tid/sgemmQuads, tid%sgemmQuads
	vec := n%4 == 0 // rows of B and C start 16-byte aligned
	tilesM, tilesN := ceilDiv(m, sgemmTile), ceilDiv(n, sgemmTile)
	tiles := tilesM * tilesN
	steps := ceilDiv(k, sgemmDepth)
	groups := kernel.GridX() * kernel.GridY()
	inGroup := sgemmGroup * tilesN // tiles in a band of sgemmGroup tile rows
	for t := kernel.GroupY()*kernel.GridX() + kernel.GroupX(); t < tiles; t += groups {
		first := t / inGroup * sgemmGroup
		rows := min(tilesM-first, sgemmGroup)
		row0 := (first + t%inGroup%rows) * sgemmTile
		col0 := t % inGroup / rows * sgemmTile
		var acc [8][8]float32
		var ra [2][4]float32
		var rb [2]kernel.Float4
		// Step s loads slice s into ra and rb, multiplies slice s-1 (in
		// buffer (s-1)%2), then stores ra and rb into buffer s%2.
		for s := uint32(0); s <= steps; s++ {
			if s < steps {
				k0 := s * sgemmDepth
				for h := uint32(0); h < 2; h++ {
					r, col := row0+4*aq+sgemmHalf*h, k0+ak
					for i := uint32(0); i < 4; i++ {
						ra[h][i] = 0
						if r+i < m && col < k {
							ra[h][i] = a[(r+i)*k+col]
						}
					}
				}
				for h := uint32(0); h < 2; h++ {
					r, col := k0+bk+8*h, col0+4*bq
					if vec {
						rb[h] = kernel.Float4{}
						if r < k && col < n {
							rb[h] = kernel.Load4(b, (r*n+col)/4)
						}
					} else {
						var v [4]float32
						for j := uint32(0); j < 4; j++ {
							if r < k && col+j < n {
								v[j] = b[r*n+col+j]
							}
						}
						rb[h] = kernel.Float4{X: v[0], Y: v[1], Z: v[2], W: v[3]}
					}
				}
			}
			if s > 0 {
				cur := (s - 1) % 2
				for kk := uint32(0); kk < sgemmDepth; kk++ {
					// This thread's 8 rows of A and 8 columns of B at depth kk.
					q := swizzle(ty, kk)
					a0, a1 := as[cur][kk][q], as[cur][kk][sgemmQuads/2+q]
					b0, b1 := bs[cur][kk][tx], bs[cur][kk][sgemmQuads/2+tx]
					var av, bv [8]float32
					av[0], av[1], av[2], av[3], av[4], av[5], av[6], av[7] = a0.X, a0.Y, a0.Z, a0.W, a1.X, a1.Y, a1.Z, a1.W
					bv[0], bv[1], bv[2], bv[3], bv[4], bv[5], bv[6], bv[7] = b0.X, b0.Y, b0.Z, b0.W, b1.X, b1.Y, b1.Z, b1.W
					// Rows 0-3 and 4-7 in two loops: each fits the budget
					// of the unroll pass (kernel/internal/opt), so every
					// index into acc becomes a constant (registers).
					for i := 0; i < 4; i++ {
						for j := 0; j < 8; j++ {
							acc[i][j] += av[i] * bv[j]
						}
					}
					for i := 4; i < 8; i++ {
						for j := 0; j < 8; j++ {
							acc[i][j] += av[i] * bv[j]
						}
					}
				}
			}
			if s < steps {
				nxt := s % 2
				for h := uint32(0); h < 2; h++ {
					as[nxt][ak][sgemmQuads/2*h+swizzle(aq, ak)] = kernel.Float4{X: ra[h][0], Y: ra[h][1], Z: ra[h][2], W: ra[h][3]}
					bs[nxt][bk+8*h][bq] = rb[h]
				}
			}
			kernel.Barrier()
		}
		// alpha·acc, in an array of its own: the loop over rows below is
		// too large to unroll, and indexing acc there by a variable would
		// take acc out of registers.
		var out [8][8]float32
		for i := 0; i < 8; i++ {
			for j := 0; j < 8; j++ {
				out[i][j] = alpha * acc[i][j]
			}
		}
		// C = out + beta·C, four columns at a time.
		for i := uint32(0); i < 8; i++ {
			r := row0 + sgemmHalf*(i/4) + 4*ty + i%4
			if r >= m {
				continue
			}
			for h := uint32(0); h < 2; h++ {
				col := col0 + sgemmHalf*h + 4*tx
				at := r*n + col
				if vec && col < n {
					v := kernel.Float4{X: out[i][4*h], Y: out[i][4*h+1], Z: out[i][4*h+2], W: out[i][4*h+3]}
					if beta != 0 {
						old := kernel.Load4(c, at/4)
						v = kernel.Float4{X: v.X + beta*old.X, Y: v.Y + beta*old.Y, Z: v.Z + beta*old.Z, W: v.W + beta*old.W}
					}
					kernel.Store4(c, at/4, v)
				} else {
					for j := uint32(0); j < 4; j++ {
						if col+j < n {
							if beta == 0 {
								c[at+j] = out[i][4*h+j]
							} else {
								c[at+j] = out[i][4*h+j] + beta*c[at+j]
							}
						}
					}
				}
			}
		}
		if tiles-t <= groups {
			break
		}
	}
}
