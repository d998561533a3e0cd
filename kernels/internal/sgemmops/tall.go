package sgemmops

import "github.com/anygpu/gpu/kernel"

// sgemm128x64's tile: 128 rows of C by 64 columns, a thread 8×4 of them.
const (
	sgemmTallCols  = 64
	sgemmTallQuads = sgemmTallCols / 4 // Float4s across a staged slice of B, and threads across a tile
)

// sgemm128x64 computes what sgemm computes (same parameters, same results
// within float rounding) in tiles of 128 rows by 64 columns: half sgemm's
// tile, so twice the groups for the matrices whose 128×128 tiles do not give
// every compute unit one, at 24 KiB of shared memory. A group of exactly 256
// threads (any shape) takes the tiles, grid-stride over its x and y group
// indices (eight tile rows side by side); any other group size takes one
// element of C per thread, grid-stride in x (columns) and y (rows), as sgemm
// does. Threads with a z index other than 0 in the simple path, and groups
// with one, do nothing.
//
// Thread (tx, ty) = (tid%16, tid/16) owns rows 4·ty..4·ty+3 and
// 64+4·ty..64+4·ty+3 of the tile and columns 4·tx..4·tx+3. A is staged as in
// sgemm (128×16, transposed and swizzled, two Float4s per thread), B as a
// 16×64 slice (one Float4 per thread), both double-buffered.
//
//gpu:kernel
//gpu:maxthreads 512
func sgemm128x64(c, a, b []float32, m, n, k uint32, alpha, beta float32) {
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
	as := kernel.Shared[[2][sgemmDepth][sgemmQuads]kernel.Float4]()
	bs := kernel.Shared[[2][sgemmDepth][sgemmTallQuads]kernel.Float4]()
	tid := kernel.ThreadIndex()
	tx, ty := tid%sgemmTallQuads, tid/sgemmTallQuads
	// What this thread stages of each step: A at depth ak, rows 4·aq..4·aq+3
	// and sgemmHalf more; B at depth bk, columns 4·bq..4·bq+3.
	ak, aq := tid%sgemmDepth, tid/sgemmDepth
	bk, bq := tid/sgemmTallQuads, tid%sgemmTallQuads
	vec := n%4 == 0 // rows of B and C start 16-byte aligned
	tilesM, tilesN := ceilDiv(m, sgemmTile), ceilDiv(n, sgemmTallCols)
	tiles := tilesM * tilesN
	steps := ceilDiv(k, sgemmDepth)
	groups := kernel.GridX() * kernel.GridY()
	inGroup := sgemmGroup * tilesN // tiles in a band of sgemmGroup tile rows
	for t := kernel.GroupY()*kernel.GridX() + kernel.GroupX(); t < tiles; t += groups {
		first := t / inGroup * sgemmGroup
		rows := min(tilesM-first, sgemmGroup)
		row0 := (first + t%inGroup%rows) * sgemmTile
		col0 := t % inGroup / rows * sgemmTallCols
		var acc [8][4]float32
		var ra [2][4]float32
		var rb kernel.Float4
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
				r, col := k0+bk, col0+4*bq
				if vec {
					rb = kernel.Float4{}
					if r < k && col < n {
						rb = kernel.Load4(b, (r*n+col)/4)
					}
				} else {
					var v [4]float32
					for j := uint32(0); j < 4; j++ {
						if r < k && col+j < n {
							v[j] = b[r*n+col+j]
						}
					}
					rb = kernel.Float4{X: v[0], Y: v[1], Z: v[2], W: v[3]}
				}
			}
			if s > 0 {
				cur := (s - 1) % 2
				for kk := uint32(0); kk < sgemmDepth; kk++ {
					// This thread's 8 rows of A and 4 columns of B at depth kk.
					q := swizzle(ty, kk)
					a0, a1 := as[cur][kk][q], as[cur][kk][sgemmQuads/2+q]
					b0 := bs[cur][kk][tx]
					var av [8]float32
					var bv [4]float32
					av[0], av[1], av[2], av[3], av[4], av[5], av[6], av[7] = a0.X, a0.Y, a0.Z, a0.W, a1.X, a1.Y, a1.Z, a1.W
					bv[0], bv[1], bv[2], bv[3] = b0.X, b0.Y, b0.Z, b0.W
					for i := 0; i < 8; i++ {
						for j := 0; j < 4; j++ {
							acc[i][j] += av[i] * bv[j]
						}
					}
				}
			}
			if s < steps {
				nxt := s % 2
				for h := uint32(0); h < 2; h++ {
					as[nxt][ak][sgemmQuads/2*h+swizzle(aq, ak)] = kernel.Float4{X: ra[h][0], Y: ra[h][1], Z: ra[h][2], W: ra[h][3]}
				}
				bs[nxt][bk][bq] = rb
			}
			kernel.Barrier()
		}
		var out [8][4]float32
		for i := 0; i < 8; i++ {
			for j := 0; j < 4; j++ {
				out[i][j] = alpha * acc[i][j]
			}
		}
		// C = out + beta·C, four columns at a time.
		col := col0 + 4*tx
		for i := uint32(0); i < 8; i++ {
			r := row0 + sgemmHalf*(i/4) + 4*ty + i%4
			if r >= m {
				continue
			}
			at := r*n + col
			if vec && col < n {
				v := kernel.Float4{X: out[i][0], Y: out[i][1], Z: out[i][2], W: out[i][3]}
				if beta != 0 {
					old := kernel.Load4(c, at/4)
					v = kernel.Float4{X: v.X + beta*old.X, Y: v.Y + beta*old.Y, Z: v.Z + beta*old.Z, W: v.W + beta*old.W}
				}
				kernel.Store4(c, at/4, v)
			} else {
				for j := uint32(0); j < 4; j++ {
					if col+j < n {
						if beta == 0 {
							c[at+j] = out[i][j]
						} else {
							c[at+j] = out[i][j] + beta*c[at+j]
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
