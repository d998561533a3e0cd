package sgemmops

import "github.com/anygpu/gpu/kernel"

// sgemmfrom's tiling: fromTileM×fromTileN tiles of C accumulated in shared
// memory (the only shared memory it takes), A and B read straight from the
// buffers with kernel.MatMulAddFrom, fromDepth steps of k per call (the
// block of k of the CPU's packed multiply), then 16 at a time, then the
// last k%16 steps per thread. Matrices with fewer than fromTileM rows or
// fromTileN columns take fromSmall×fromSmall tiles, and those with fewer
// than fromSmall one element of C per thread.
const (
	fromTileM = 64
	fromTileN = 128
	fromDepth = 256
	fromSmall = 16
)

// sgemmfrom computes what sgemm computes (same parameters, same results
// within float rounding) with kernel.MatMulAddFrom, for any grid and group
// size: the launch's groups take tiles of C (the groups with z index 0,
// numbered x fastest, grid-stride; a grid of more groups than tiles gives
// one tile to every ⌊groups/tiles⌋-th group), eight tile rows side by side
// so that they share B in the caches. A tile at the bottom or right edge of
// C is moved up or left to lie within C, computed whole, and only its
// elements that no other tile owns are written. The group clears its tile,
// adds A's rows times B's columns over the whole depth, and writes the
// tile to C as alpha·tile + beta·C (C is not read when beta is 0).
//
// It is sgemm written for the CPU, which runs each MatMulAddFrom once per
// group through its packed, register-blocked matrix multiply straight from
// the buffers, so that the threads only clear and write the tile; GPUs run
// it correctly, as a loop over the tile per thread, but only the CPU runs
// it by choice: its Go is the CPU's OpSgemm (kernels.Source), which
// ChooseSgemm picks there with this kernel's grid.
//
//gpu:kernel
//gpu:maxthreads 512
func sgemmfrom(c, a, b []float32, m, n, k uint32, alpha, beta float32) {
	if kernel.GroupZ() != 0 || m == 0 || n == 0 {
		return
	}
	cs := kernel.Shared[[fromTileM * fromTileN]float32]()
	nt := kernel.GroupSizeX() * kernel.GroupSizeY() * kernel.GroupSizeZ()
	tid := kernel.ThreadIndex()
	groups := kernel.GridX() * kernel.GridY()
	gid := kernel.GroupY()*kernel.GridX() + kernel.GroupX()
	if m < fromSmall || n < fromSmall {
		// One element of C per thread of the launch, in order.
		for e := gid*nt + tid; e < m*n; e += groups * nt {
			i, j := e/n, e%n
			acc := float32(0)
			for p := uint32(0); p < k; p++ {
				acc += a[i*k+p] * b[p*n+j]
			}
			if beta == 0 {
				c[e] = alpha * acc
			} else {
				c[e] = alpha*acc + beta*c[e]
			}
			if m*n-e <= groups*nt {
				break
			}
		}
	} else {
		// bigTiles is 1 when C holds a fromTileM×fromTileN tile, else 0 (the
		// sizes are computed, not assigned in a branch: the group then computes
		// them once, and no thread keeps a copy).
		bigTiles := min(m/fromTileM, 1) * min(n/fromTileN, 1)
		big := bigTiles == 1
		tm := fromSmall + (fromTileM-fromSmall)*bigTiles
		tn := fromSmall + (fromTileN-fromSmall)*bigTiles
		kDeep, kTail := k-k%fromDepth, k-k%16 // where the calls of 16 steps, and the last steps, start
		tilesM, tilesN := ceilDiv(m, tm), ceilDiv(n, tn)
		tiles := tilesM * tilesN
		spread := max(groups/tiles, 1)
		stride := groups / spread
		// A group whose number is not a multiple of spread starts past the
		// last tile: it has none.
		first := gid/spread + tiles*min(gid%spread, 1)
		inGroup := sgemmGroup * tilesN // tiles in a band of sgemmGroup tile rows
		for t := first; t < tiles; t += stride {
			band := t / inGroup * sgemmGroup
			rows := min(tilesM-band, sgemmGroup)
			row0 := (band + t%inGroup%rows) * tm
			col0 := t % inGroup / rows * tn
			// The tile computed: moved within C at the edges.
			rowS, colS := min(row0, m-tm), min(col0, n-tn)
			for e := tid; e < fromTileM*fromTileN; e += nt {
				cs[e] = 0
			}
			kernel.Barrier() // cleared before any thread adds to it (with k < 16, no MatMulAddFrom orders it)
			for k0 := uint32(0); k0 < kDeep; k0 += fromDepth {
				if big {
					kernel.MatMulAddFrom(cs, a, rowS*k+k0, k, b, k0*n+colS, n, kernel.MatMul{M: fromTileM, N: fromTileN, K: fromDepth})
				} else {
					kernel.MatMulAddFrom(cs, a, rowS*k+k0, k, b, k0*n+colS, n, kernel.MatMul{M: fromSmall, N: fromSmall, K: fromDepth, LDC: fromTileN})
				}
			}
			for k0 := kDeep; k0 < kTail; k0 += 16 {
				if big {
					kernel.MatMulAddFrom(cs, a, rowS*k+k0, k, b, k0*n+colS, n, kernel.MatMul{M: fromTileM, N: fromTileN, K: 16})
				} else {
					kernel.MatMulAddFrom(cs, a, rowS*k+k0, k, b, k0*n+colS, n, kernel.MatMul{M: fromSmall, N: fromSmall, K: 16, LDC: fromTileN})
				}
			}
			// The last k%16 steps, then the tile to C: each thread its rows
			// and columns of the part of the tile that it owns.
			if kTail < k {
				for e := tid; e < tm*tn; e += nt {
					i, j := e/tn, e%tn
					acc := cs[i*fromTileN+j]
					for p := kTail; p < k; p++ {
						acc += a[(rowS+i)*k+p] * b[p*n+colS+j]
					}
					cs[i*fromTileN+j] = acc
				}
				kernel.Barrier() // the threads write out other elements than they summed
			}
			if n%4 == 0 {
				// Rows of C, and the tile's columns, start 16-byte aligned:
				// four columns at a time.
				for i := row0 - rowS + kernel.ThreadY(); i < tm; i += kernel.GroupSizeY() {
					out := (rowS+i)*n + colS
					for j := col0 - colS + 4*kernel.ThreadX(); j < tn; j += 4 * kernel.GroupSizeX() {
						at := i*fromTileN + j
						v := kernel.Float4{X: alpha * cs[at], Y: alpha * cs[at+1], Z: alpha * cs[at+2], W: alpha * cs[at+3]}
						if beta != 0 {
							old := kernel.Load4(c, (out+j)/4)
							v = kernel.Float4{X: v.X + beta*old.X, Y: v.Y + beta*old.Y, Z: v.Z + beta*old.Z, W: v.W + beta*old.W}
						}
						kernel.Store4(c, (out+j)/4, v)
					}
				}
			} else {
				for i := row0 - rowS + kernel.ThreadY(); i < tm; i += kernel.GroupSizeY() {
					out := (rowS+i)*n + colS
					for j := col0 - colS + kernel.ThreadX(); j < tn; j += kernel.GroupSizeX() {
						if beta == 0 {
							c[out+j] = alpha * cs[i*fromTileN+j]
						} else {
							c[out+j] = alpha*cs[i*fromTileN+j] + beta*c[out+j]
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
}
