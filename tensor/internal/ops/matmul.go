package ops

import "github.com/anygpu/gpu/kernel"

// The tiling of matmul: a group of MatmulThreads threads computes a
// matTile×matTile tile of C, each thread a 4×4 register tile of it (rows ty,
// ty+16, ... and columns tx, tx+16, ...), over slices of k matDepth deep
// staged in shared memory.
const (
	MatmulThreads = 256 // the group size matmul must be launched with
	matTile       = 64
	matDepth      = 16
	matSide       = 16          // threads along a tile's side
	matPad        = matTile + 1 // a staged k slice's stride in shared memory: stores along k avoid bank conflicts

	MatmulTile  = matTile  // the side of the C tile a group computes
	MatmulDepth = matDepth // a split's k range is a multiple of this
)

// Matmul flags (matmul's flags).
const (
	MatmulBias = 1 // add bias[j] to C[., ., j]
)

// matmul computes C[b, i, j] = Σ_k A[b, i, k]·B[b, k, j] (+ bias[j]) for b <
// batch, i < m, j < n; C is contiguous [batch, m, n]. With splits > 1 the
// sum over k is cut into splits ranges kchunk long (a multiple of
// matDepth), so that a product with few tiles (a decode step's: m = 1)
// still occupies the device: split s writes its partial sums to
// C[s, b, i, j] and sumSplits adds them. A and B are strided
// views: A[b, i, k] = a[aoff + b·ab + i·am + k·ak], B likewise (a batch
// stride of 0 broadcasts one matrix over the batch), so a transposed operand
// (PyTorch's Linear weight, y = x·Wᵀ) needs no copy. Groups take tiles
// (batch-major, then tile rows, then tile columns) grid-stride; the group
// must have MatmulThreads threads. A, B and the bias are of dtype code dt,
// C of cdt (float32 for partial sums); the sums are float32.
//
//gpu:kernel
func matmul(c, a, b, bias []uint32, dt, cdt, batch, m, n, k, flags, aoff, ab, am, ak, boff, bb, bk, bn, kchunk, splits uint32) {
	as := kernel.Shared[[matDepth * matPad]float32]()
	bs := kernel.Shared[[matDepth * matPad]float32]()
	t := kernel.ThreadX()
	tx, ty := t%matSide, t/matSide
	tilesM := (m + matTile - 1) / matTile
	tilesN := (n + matTile - 1) / matTile
	perSplit := batch * tilesM * tilesN
	tiles := perSplit * splits
	for w := kernel.GroupX(); w < tiles; w += kernel.GridX() {
		split := w / perSplit
		bi := (w % perSplit) / (tilesM * tilesN)
		rest := w % (tilesM * tilesN)
		i0 := (rest / tilesN) * matTile
		j0 := (rest % tilesN) * matTile
		abase := aoff + bi*ab
		bbase := boff + bi*bb
		var acc [4][4]float32
		kbegin := split * kchunk
		kend := min(k, kbegin+kchunk)
		for k0 := kbegin; k0 < kend; k0 += matDepth {
			// Stage A[i0.., k0..] as as[kk·matPad + ii] and B[k0.., j0..]
			// as bs[kk·matPad + jj], zero outside the matrices. Neighbouring
			// threads read neighbouring addresses: along k when k is an
			// operand's contiguous dimension, else along its rows or columns.
			for e := t; e < matDepth*matTile; e += MatmulThreads {
				ii, kk := e%matTile, e/matTile
				if ak == 1 {
					ii, kk = e/matDepth, e%matDepth
				}
				var v float32
				if i0+ii < m && k0+kk < kend {
					at := abase + (i0+ii)*am + (k0+kk)*ak
					v = kernel.Float32frombits(bitsOf(a[wordOf(at, dt)], dt, at))
				}
				as[kk*matPad+ii] = v
				jj, kb := e%matTile, e/matTile
				if bk == 1 {
					jj, kb = e/matDepth, e%matDepth
				}
				var u float32
				if j0+jj < n && k0+kb < kend {
					at := bbase + (k0+kb)*bk + (j0+jj)*bn
					u = kernel.Float32frombits(bitsOf(b[wordOf(at, dt)], dt, at))
				}
				bs[kb*matPad+jj] = u
			}
			kernel.Barrier()
			for kk := 0; kk < matDepth; kk++ {
				var av, bv [4]float32
				for r := 0; r < 4; r++ {
					av[r] = as[uint32(kk)*matPad+ty+uint32(r)*matSide]
					bv[r] = bs[uint32(kk)*matPad+tx+uint32(r)*matSide]
				}
				for r := 0; r < 4; r++ {
					for q := 0; q < 4; q++ {
						acc[r][q] += av[r] * bv[q]
					}
				}
			}
			kernel.Barrier()
		}
		for r := 0; r < 4; r++ {
			i := i0 + ty + uint32(r)*matSide
			for q := 0; q < 4; q++ {
				j := j0 + tx + uint32(q)*matSide
				if i < m && j < n {
					v := acc[r][q]
					if flags&MatmulBias != 0 {
						v += kernel.Float32frombits(bitsOf(bias[wordOf(j, dt)], dt, j))
					}
					o := ((split*batch+bi)*m+i)*n + j
					if cdt == DTFloat32 {
						c[o] = kernel.Float32bits(v)
					} else {
						kernel.AtomicAnd(&c[o/2], otherHalf(o))
						kernel.AtomicOr(&c[o/2], halfBits(v, cdt, o))
					}
				}
			}
		}
	}
}

// sumSplits sets c[i] = Σ_s part[s·count + i] (+ bias[i % n]) for i <
// count: the split sums of matmul. part is float32, c and the bias of dtype
// code dt; each thread writes whole words of c (perWord elements).
//
//gpu:kernel
func sumSplits(c, part, bias []uint32, dt, count, splits, n, flags uint32) {
	if count == 0 {
		return
	}
	per := perWord(dt)
	words := (count + per - 1) / per
	step := kernel.GroupSizeX() * kernel.GridX()
	for w := kernel.GroupX()*kernel.GroupSizeX() + kernel.ThreadX(); w < words; w += step {
		var out uint32
		for j := uint32(0); j < per; j++ {
			if i := w*per + j; i < count {
				var v float32
				for s := uint32(0); s < splits; s++ {
					v += kernel.Float32frombits(part[s*count+i])
				}
				if flags&MatmulBias != 0 {
					at := i % n
					v += kernel.Float32frombits(bitsOf(bias[wordOf(at, dt)], dt, at))
				}
				if per == 1 {
					out = kernel.Float32bits(v)
				} else {
					out |= encode16(v, dt) << (16 * j)
				}
			}
		}
		c[w] = out
		if last(w, step, words) {
			break
		}
	}
}

// matvec is matmul for m = 1 (a decode step's products): C[s, b, 0, j] =
// Σ_k A[b, 0, k]·B[b, k, j] over split s's range of k (kchunk long; the
// bias added when flags say and splits is 1). A group of MatmulThreads
// threads takes cols columns, lanes = MatmulThreads/cols threads per column
// striding over k and meeting in shared memory: cols is 64 when B's columns
// are contiguous (bn = 1: neighbouring threads read neighbouring columns),
// 8 otherwise (a column's 32 lanes are neighbouring threads, reading
// neighbouring k when bk = 1, as in a transposed weight). Groups take (split, batch, column tile) grid-stride.
// A, B and the bias are of dtype code dt, C of cdt.
//
//gpu:kernel
func matvec(c, a, b, bias []uint32, dt, cdt, batch, n, k, flags, aoff, ab, ak, boff, bb, bk, bn, kchunk, splits uint32) {
	sh := kernel.Shared[[MatmulThreads]float32]()
	t := kernel.ThreadX()
	cols := uint32(8)
	if bn == 1 {
		cols = 64
	}
	lanes := MatmulThreads / cols
	col, lane, step := t%cols, t/cols, cols // a column's lanes lie step threads apart
	if bn != 1 {
		col, lane, step = t/lanes, t%lanes, 1 // a warp reads 32 neighbouring k of a column
	}
	tilesN := (n + cols - 1) / cols
	perSplit := batch * tilesN
	for w := kernel.GroupX(); w < perSplit*splits; w += kernel.GridX() {
		split := w / perSplit
		bi := (w % perSplit) / tilesN
		j := (w%tilesN)*cols + col
		kbegin := split * kchunk
		kend := min(k, kbegin+kchunk)
		var acc float32
		if j < n {
			abase := aoff + bi*ab
			bbase := boff + bi*bb + j*bn
			for q := kbegin + lane; q < kend; q += lanes {
				xa, xb := abase+q*ak, bbase+q*bk
				acc += kernel.Float32frombits(bitsOf(a[wordOf(xa, dt)], dt, xa)) * kernel.Float32frombits(bitsOf(b[wordOf(xb, dt)], dt, xb))
			}
		}
		sh[t] = acc
		kernel.Barrier()
		for h := lanes / 2; h > 0; h /= 2 {
			if lane < h {
				sh[t] += sh[t+h*step]
			}
			kernel.Barrier()
		}
		if lane == 0 && j < n {
			v := sh[t]
			if flags&MatmulBias != 0 {
				v += kernel.Float32frombits(bitsOf(bias[wordOf(j, dt)], dt, j))
			}
			o := (split*batch+bi)*n + j
			if cdt == DTFloat32 {
				c[o] = kernel.Float32bits(v)
			} else {
				kernel.AtomicAnd(&c[o/2], otherHalf(o))
				kernel.AtomicOr(&c[o/2], halfBits(v, cdt, o))
			}
		}
		kernel.Barrier()
	}
}
