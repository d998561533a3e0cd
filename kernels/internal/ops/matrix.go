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

// The tiling of sgemm's fast path: a group of sgemmThreads threads computes
// a 64×64 tile of C, each thread a 4×4 micro-tile (rows ty+16i, columns
// tx+16j), from 16-deep slices of A (transposed) and B staged in shared
// memory: the design of the hand-written Vulkan sgemm.
const (
	sgemmThreads = 256
	sgemmTile    = 64
	sgemmDepth   = 16
)

// sgemm computes row-major C(m×n) = alpha·A(m×k)·B(k×n) + beta·C, reading C
// only when beta is not 0. A group of exactly 256 threads (any shape) takes
// 64×64 tiles of C grid-stride over its x and y group indices; any other
// group size takes one element of C per thread, grid-stride in x (columns)
// and y (rows). Threads with a z index other than 0 in the simple path, and
// groups with one, do nothing.
//
//gpu:kernel
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
	as := kernel.Shared[[sgemmDepth][sgemmTile + 1]float32]() // padded: the transposed stores hit distinct banks
	bs := kernel.Shared[[sgemmDepth][sgemmTile]float32]()
	tid := kernel.ThreadIndex()
	tx, ty := tid%16, tid/16
	tilesM, tilesN := m/sgemmTile+(m%sgemmTile+sgemmTile-1)/sgemmTile, n/sgemmTile+(n%sgemmTile+sgemmTile-1)/sgemmTile
	groups := kernel.GridX() * kernel.GridY()
	for t := kernel.GroupY()*kernel.GridX() + kernel.GroupX(); t < tilesM*tilesN; t += groups {
		row0, col0 := (t/tilesN)*sgemmTile, (t%tilesN)*sgemmTile
		var acc [4][4]float32
		for k0 := uint32(0); k0 < k; k0 += sgemmDepth {
			// Stage A(row0.., k0..) transposed and B(k0.., col0..): 1024
			// elements each, four per thread.
			for l := uint32(0); l < 4; l++ {
				e := tid + sgemmThreads*l
				ar, ac := e/sgemmDepth, e%sgemmDepth
				va := float32(0)
				if row0+ar < m && k0+ac < k {
					va = a[(row0+ar)*k+k0+ac]
				}
				as[ac][ar] = va
				br, bc := e/sgemmTile, e%sgemmTile
				vb := float32(0)
				if k0+br < k && col0+bc < n {
					vb = b[(k0+br)*n+col0+bc]
				}
				bs[br][bc] = vb
			}
			kernel.Barrier()
			for kk := 0; kk < sgemmDepth; kk++ {
				var av, bv [4]float32
				for i := 0; i < 4; i++ {
					av[i] = as[kk][ty+16*uint32(i)]
					bv[i] = bs[kk][tx+16*uint32(i)]
				}
				for i := 0; i < 4; i++ {
					for j := 0; j < 4; j++ {
						acc[i][j] += av[i] * bv[j]
					}
				}
			}
			kernel.Barrier()
			if k-k0 <= sgemmDepth {
				break
			}
		}
		for i := uint32(0); i < 4; i++ {
			r := row0 + ty + 16*i
			if r >= m {
				continue
			}
			for j := uint32(0); j < 4; j++ {
				col := col0 + tx + 16*j
				if col < n {
					if beta == 0 {
						c[r*n+col] = alpha * acc[i][j]
					} else {
						c[r*n+col] = alpha*acc[i][j] + beta*c[r*n+col]
					}
				}
			}
		}
		if tilesM*tilesN-t <= groups {
			break
		}
	}
}
