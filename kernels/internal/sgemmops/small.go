package sgemmops

import "github.com/anygpu/gpu/kernel"

// The two sgemm variants with 4×4 results per thread, for matrices too small
// to give every compute unit a 128×128 tile and for devices with little
// shared memory or few threads per group. Both are sgemm's design scaled
// down: a group of (tile/4)² threads computes a tile×tile tile of C, each
// thread a 4×4 block of it, from slices of A and B tile/4 deep staged through
// double-buffered shared memory as Float4s, so that at each step every
// thread stages exactly one Float4 of A (four rows at one depth, transposed)
// and one of B (four columns at one depth).
const (
	sgemm64Threads = 256 // 16×16
	sgemm64Tile    = 64
	sgemm64Depth   = sgemm64Tile / 4
	sgemm64Quads   = sgemm64Tile / 4 // Float4s across a staged slice, and threads across a tile

	sgemm32Threads = 64 // 8×8
	sgemm32Tile    = 32
	sgemm32Depth   = sgemm32Tile / 4
	sgemm32Quads   = sgemm32Tile / 4
)

// sgemm64x64 computes what sgemm computes (same parameters, same results
// within float rounding) in 64×64 tiles: a group of exactly 256 threads (any
// shape) takes 64×64 tiles of C, grid-stride over its x and y group indices
// (eight tile rows side by side); any other group size takes one element of
// C per thread, grid-stride in x (columns) and y (rows), as sgemm does.
// Threads with a z index other than 0 in the simple path, and groups with
// one, do nothing.
//
// Thread (tx, ty) = (tid%16, tid/16) owns rows 4·ty..4·ty+3 and columns
// 4·tx..4·tx+3 of the tile. Each step of k stages a 64×16 slice of A,
// transposed (as[buf][kk][swizzle(q, kk)] holds rows 4q..4q+3 at depth kk),
// and a 16×64 slice of B: 16 KiB of shared memory in all, the least every
// OpenGL ES 3.1 device has. A step's global loads are issued before the
// previous slice's arithmetic and stored into the other buffer after it, so
// one barrier per step suffices. B and C move as Float4s when n%4 == 0,
// else a float at a time; A is read a float at a time, so any k works.
//
//gpu:kernel
//gpu:maxthreads 512
func sgemm64x64(c, a, b []float32, m, n, k uint32, alpha, beta float32) {
	if kernel.GroupZ() != 0 || m == 0 || n == 0 {
		return
	}
	nt := kernel.GroupSizeX() * kernel.GroupSizeY() * kernel.GroupSizeZ()
	if nt != sgemm64Threads {
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
	as := kernel.Shared[[2][sgemm64Depth][sgemm64Quads]kernel.Float4]()
	bs := kernel.Shared[[2][sgemm64Depth][sgemm64Quads]kernel.Float4]()
	tid := kernel.ThreadIndex()
	tx, ty := tid%sgemm64Quads, tid/sgemm64Quads
	// What this thread stages of each step: A at depth ak, rows
	// 4·aq..4·aq+3; B at depth bk, columns 4·bq..4·bq+3.
	ak, aq := tid%sgemm64Depth, tid/sgemm64Depth
	bk, bq := tid/sgemm64Quads, tid%sgemm64Quads
	vec := n%4 == 0 // rows of B and C start 16-byte aligned
	tilesM, tilesN := ceilDiv(m, sgemm64Tile), ceilDiv(n, sgemm64Tile)
	tiles := tilesM * tilesN
	steps := ceilDiv(k, sgemm64Depth)
	groups := kernel.GridX() * kernel.GridY()
	inGroup := sgemmGroup * tilesN // tiles in a band of sgemmGroup tile rows
	for t := kernel.GroupY()*kernel.GridX() + kernel.GroupX(); t < tiles; t += groups {
		first := t / inGroup * sgemmGroup
		rows := min(tilesM-first, sgemmGroup)
		row0 := (first + t%inGroup%rows) * sgemm64Tile
		col0 := t % inGroup / rows * sgemm64Tile
		var acc [4][4]float32
		var ra [4]float32
		var rb kernel.Float4
		// Step s loads slice s into ra and rb, multiplies slice s-1 (in
		// buffer (s-1)%2), then stores ra and rb into buffer s%2.
		for s := uint32(0); s <= steps; s++ {
			if s < steps {
				k0 := s * sgemm64Depth
				r, col := row0+4*aq, k0+ak
				for i := uint32(0); i < 4; i++ {
					ra[i] = 0
					if r+i < m && col < k {
						ra[i] = a[(r+i)*k+col]
					}
				}
				r, col = k0+bk, col0+4*bq
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
				for kk := uint32(0); kk < sgemm64Depth; kk++ {
					a0 := as[cur][kk][swizzle(ty, kk)]
					b0 := bs[cur][kk][tx]
					var av, bv [4]float32
					av[0], av[1], av[2], av[3] = a0.X, a0.Y, a0.Z, a0.W
					bv[0], bv[1], bv[2], bv[3] = b0.X, b0.Y, b0.Z, b0.W
					for i := 0; i < 4; i++ {
						for j := 0; j < 4; j++ {
							acc[i][j] += av[i] * bv[j]
						}
					}
				}
			}
			if s < steps {
				nxt := s % 2
				as[nxt][ak][swizzle(aq, ak)] = kernel.Float4{X: ra[0], Y: ra[1], Z: ra[2], W: ra[3]}
				bs[nxt][bk][bq] = rb
			}
			kernel.Barrier()
		}
		var out [4][4]float32
		for i := 0; i < 4; i++ {
			for j := 0; j < 4; j++ {
				out[i][j] = alpha * acc[i][j]
			}
		}
		// C = out + beta·C, four columns at a time.
		col := col0 + 4*tx
		for i := uint32(0); i < 4; i++ {
			r := row0 + 4*ty + i
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

// sgemm32x32 is sgemm64x64 at half the size: a group of exactly 64 threads
// (any shape) takes 32×32 tiles of C, thread (tx, ty) = (tid%8, tid/8) the
// 4×4 results at rows 4·ty.., columns 4·tx.., from 8-deep slices of A and B
// (4 KiB of shared memory in all): for small matrices, where a larger tile
// leaves compute units idle, and for devices whose groups are small. Any
// other group size takes one element of C per thread, as sgemm does.
//
//gpu:kernel
//gpu:maxthreads 512
func sgemm32x32(c, a, b []float32, m, n, k uint32, alpha, beta float32) {
	if kernel.GroupZ() != 0 || m == 0 || n == 0 {
		return
	}
	nt := kernel.GroupSizeX() * kernel.GroupSizeY() * kernel.GroupSizeZ()
	if nt != sgemm32Threads {
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
	as := kernel.Shared[[2][sgemm32Depth][sgemm32Quads]kernel.Float4]()
	bs := kernel.Shared[[2][sgemm32Depth][sgemm32Quads]kernel.Float4]()
	tid := kernel.ThreadIndex()
	tx, ty := tid%sgemm32Quads, tid/sgemm32Quads
	ak, aq := tid%sgemm32Depth, tid/sgemm32Depth
	bk, bq := tid/sgemm32Quads, tid%sgemm32Quads
	vec := n%4 == 0
	tilesM, tilesN := ceilDiv(m, sgemm32Tile), ceilDiv(n, sgemm32Tile)
	tiles := tilesM * tilesN
	steps := ceilDiv(k, sgemm32Depth)
	groups := kernel.GridX() * kernel.GridY()
	inGroup := sgemmGroup * tilesN
	for t := kernel.GroupY()*kernel.GridX() + kernel.GroupX(); t < tiles; t += groups {
		first := t / inGroup * sgemmGroup
		rows := min(tilesM-first, sgemmGroup)
		row0 := (first + t%inGroup%rows) * sgemm32Tile
		col0 := t % inGroup / rows * sgemm32Tile
		var acc [4][4]float32
		var ra [4]float32
		var rb kernel.Float4
		for s := uint32(0); s <= steps; s++ {
			if s < steps {
				k0 := s * sgemm32Depth
				r, col := row0+4*aq, k0+ak
				for i := uint32(0); i < 4; i++ {
					ra[i] = 0
					if r+i < m && col < k {
						ra[i] = a[(r+i)*k+col]
					}
				}
				r, col = k0+bk, col0+4*bq
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
				for kk := uint32(0); kk < sgemm32Depth; kk++ {
					a0 := as[cur][kk][swizzle(ty, kk)]
					b0 := bs[cur][kk][tx]
					var av, bv [4]float32
					av[0], av[1], av[2], av[3] = a0.X, a0.Y, a0.Z, a0.W
					bv[0], bv[1], bv[2], bv[3] = b0.X, b0.Y, b0.Z, b0.W
					for i := 0; i < 4; i++ {
						for j := 0; j < 4; j++ {
							acc[i][j] += av[i] * bv[j]
						}
					}
				}
			}
			if s < steps {
				nxt := s % 2
				as[nxt][ak][swizzle(aq, ak)] = kernel.Float4{X: ra[0], Y: ra[1], Z: ra[2], W: ra[3]}
				bs[nxt][bk][bq] = rb
			}
			kernel.Barrier()
		}
		var out [4][4]float32
		for i := 0; i < 4; i++ {
			for j := 0; j < 4; j++ {
				out[i][j] = alpha * acc[i][j]
			}
		}
		col := col0 + 4*tx
		for i := uint32(0); i < 4; i++ {
			r := row0 + 4*ty + i
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
