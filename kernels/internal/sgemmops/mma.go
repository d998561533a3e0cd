package sgemmops

import "github.com/anygpu/gpu/kernel"

// sgemm64mma's tiling: 64×64 tiles of C accumulated in shared memory, from
// slices of A (64×32) and B (32×64) staged 32 deep, 32 KiB of shared memory
// in all (the most the software drivers and many GPUs give a group).
const (
	mmaThreads = 256
	mmaTile    = 64
	mmaDepth   = 32
	mmaQuadsA  = mmaDepth / 4 // Float4s across a staged row of A
	mmaQuadsB  = mmaTile / 4  // Float4s across a staged row of B, and across a row of C
)

// sgemm64mma computes what sgemm computes (same parameters, same results
// within float rounding) with kernel.MatMulAdd: a group of exactly 256
// threads (any shape) takes 64×64 tiles of C, grid-stride over its x and y
// group indices (eight tile rows side by side; a grid of more groups than
// tiles gives one tile to every ⌊groups/tiles⌋-th group), and for each slice of 32
// steps of k stages the slice of A and of B in shared memory (two Float4s
// of each per thread) and adds their product to the tile with one
// MatMulAdd; the tile then goes to C as alpha·tile + beta·C. Any other group
// size takes one element of C per thread, grid-stride in x (columns) and y
// (rows), as sgemm does. Threads with a z index other than 0 in the simple
// path, and groups with one, do nothing.
//
// It is sgemm written on MatMulAdd for the CPU, which runs a MatMulAdd once
// per group through its packed, register-blocked matrix multiply, so that
// the threads only move data; GPUs run it correctly, as a loop over the tile
// per thread. ChooseSgemm picks it nowhere: 32 KiB of shared memory (what
// every backend allows) holds 64×64 tiles and 32-deep slices, too little
// work per staged float for the CPU: it runs at 0.2-0.3× the CPU's
// hand-tuned sgemm (internal/gemm), staging and packing taking about twice
// the micro-kernel's time.
//
//gpu:kernel
//gpu:maxthreads 512
func sgemm64mma(c, a, b []float32, m, n, k uint32, alpha, beta float32) {
	if kernel.GroupZ() != 0 || m == 0 || n == 0 {
		return
	}
	nt := kernel.GroupSizeX() * kernel.GroupSizeY() * kernel.GroupSizeZ()
	if nt != mmaThreads {
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
	cs := kernel.Shared[[mmaTile * mmaTile]float32]()
	as := kernel.Shared[[mmaTile * mmaDepth]float32]()
	bs := kernel.Shared[[mmaDepth * mmaTile]float32]()
	tid := kernel.ThreadIndex()
	vecA := k%4 == 0 // rows of A start 16-byte aligned
	vecB := n%4 == 0 // rows of B and C do
	tilesM, tilesN := ceilDiv(m, mmaTile), ceilDiv(n, mmaTile)
	tiles := tilesM * tilesN
	steps := ceilDiv(k, mmaDepth)
	// A grid with more groups than tiles gives the tiles to every spread-th
	// group, so that the groups with work lie evenly among the group
	// numbers (the CPU hands each core runs of consecutive groups); a
	// smaller grid strides over the tiles.
	groups := kernel.GridX() * kernel.GridY()
	spread := max(groups/tiles, 1)
	stride := groups / spread
	gid := kernel.GroupY()*kernel.GridX() + kernel.GroupX()
	if gid%spread != 0 {
		return
	}
	inGroup := sgemmGroup * tilesN // tiles in a band of sgemmGroup tile rows
	for t := gid / spread; t < tiles; t += stride {
		first := t / inGroup * sgemmGroup
		rows := min(tilesM-first, sgemmGroup)
		row0 := (first + t%inGroup%rows) * mmaTile
		col0 := t % inGroup / rows * mmaTile
		kernel.Barrier() // the previous tile's writing out has read cs
		for e := tid; e < mmaTile*mmaTile; e += mmaThreads {
			cs[e] = 0
		}
		for s := uint32(0); s < steps; s++ {
			k0 := s * mmaDepth
			// Each thread stages Float4s tid and tid+256 of the slice of A
			// (64 rows of 8) and of B (32 rows of 16); past the matrix, zeros.
			for q := tid; q < mmaTile*mmaQuadsA; q += mmaThreads {
				r, kk := q/mmaQuadsA, q%mmaQuadsA*4
				gr, gk := row0+r, k0+kk
				v := kernel.Float4{}
				if vecA {
					if gr < m && gk < k {
						v = kernel.Load4(a, (gr*k+gk)/4)
					}
				} else {
					var x [4]float32
					for j := uint32(0); j < 4; j++ {
						if gr < m && gk+j < k {
							x[j] = a[gr*k+gk+j]
						}
					}
					v = kernel.Float4{X: x[0], Y: x[1], Z: x[2], W: x[3]}
				}
				at := r*mmaDepth + kk
				as[at], as[at+1], as[at+2], as[at+3] = v.X, v.Y, v.Z, v.W
			}
			for q := tid; q < mmaDepth*mmaQuadsB; q += mmaThreads {
				kk, col := q/mmaQuadsB, q%mmaQuadsB*4
				gk, gc := k0+kk, col0+col
				v := kernel.Float4{}
				if vecB {
					if gk < k && gc < n {
						v = kernel.Load4(b, (gk*n+gc)/4)
					}
				} else {
					var x [4]float32
					for j := uint32(0); j < 4; j++ {
						if gk < k && gc+j < n {
							x[j] = b[gk*n+gc+j]
						}
					}
					v = kernel.Float4{X: x[0], Y: x[1], Z: x[2], W: x[3]}
				}
				at := kk*mmaTile + col
				bs[at], bs[at+1], bs[at+2], bs[at+3] = v.X, v.Y, v.Z, v.W
			}
			kernel.MatMulAdd(cs, as, bs, kernel.MatMul{M: mmaTile, N: mmaTile, K: mmaDepth})
		}
		// C = alpha·tile + beta·C, four columns at a time.
		for q := tid; q < mmaTile*mmaQuadsB; q += mmaThreads {
			r, col := q/mmaQuadsB, q%mmaQuadsB*4
			gr, gc := row0+r, col0+col
			if gr >= m || gc >= n {
				continue
			}
			at := r*mmaTile + col
			v := kernel.Float4{X: alpha * cs[at], Y: alpha * cs[at+1], Z: alpha * cs[at+2], W: alpha * cs[at+3]}
			if vecB {
				if beta != 0 {
					old := kernel.Load4(c, (gr*n+gc)/4)
					v = kernel.Float4{X: v.X + beta*old.X, Y: v.Y + beta*old.Y, Z: v.Z + beta*old.Z, W: v.W + beta*old.W}
				}
				kernel.Store4(c, (gr*n+gc)/4, v)
			} else {
				var x [4]float32
				x[0], x[1], x[2], x[3] = v.X, v.Y, v.Z, v.W
				for j := uint32(0); j < 4; j++ {
					if gc+j < n {
						if beta == 0 {
							c[gr*n+gc+j] = x[j]
						} else {
							c[gr*n+gc+j] = x[j] + beta*c[gr*n+gc+j]
						}
					}
				}
			}
		}
		kernel.Barrier() // the tile is read before the next one clears it
		if tiles-t <= stride {
			break
		}
	}
}
