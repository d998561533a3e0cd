package ops

import "github.com/anygpu/gpu/kernel"

// reduceRowsVec is reduceRows (op ReduceSum, ReduceMean or ReduceMax) for
// rows that move as 16-byte vectors, as rowsLeanVec's do: rows of vecs
// vectors (cols/(4·perWord(dt))), row r's first at vector xoff + r*xrow of
// x. Groups of b threads (a multiple of SubgroupSize, at most LeanGroup)
// take rows GroupX, GroupX+GridX, ...; thread t folds vectors t, t+b, ...,
// LeanVecs loads in flight at a time, and the group's subgroups meet in
// shared memory. out[r] is written as reduceRows writes it (a 16-bit
// result is an atomic update of its half of the word). The maximum starts
// from -Inf, so a row's NaNs are not reliably propagated (as Max
// documents). Its variants fix dt.
//
//gpu:kernel
//gpu:variant reduceRowsVecF32 dt=DTFloat32
//gpu:variant reduceRowsVecBF16 dt=DTBFloat16
//gpu:variant reduceRowsVecF16 dt=DTFloat16
func reduceRowsVec(out []uint32, x []float32, rows, vecs, dt, op, xoff, xrow uint32) {
	red := kernel.Shared[[LeanGroup]float32]() // one value per subgroup
	t, b := kernel.ThreadX(), kernel.GroupSizeX()
	sg := kernel.SubgroupSize()
	subs := b / sg
	per := perWord(dt)
	widest := op == ReduceMax
	var none float32 // what a fold starts from
	if widest {
		none = kernel.Float32frombits(0xff800000) // -Inf
	}
	for r := kernel.GroupX(); r < rows; r += kernel.GridX() {
		base := xoff + r*xrow
		v := none
		for v0 := t; v0 < vecs; v0 += LeanVecs * b {
			var ws [LeanVecs]kernel.Float4
			for u := uint32(0); u < LeanVecs; u++ {
				if v0+u*b < vecs {
					ws[u] = kernel.Load4(x, base+v0+u*b)
				}
			}
			for u := uint32(0); u < LeanVecs; u++ {
				if v0+u*b < vecs {
					if widest {
						v = vecMax(v, ws[u], per, dt)
					} else {
						v += vecSum(ws[u], per, dt)
					}
				}
			}
			if last(v0, LeanVecs*b, vecs) {
				break
			}
		}
		var sv float32
		if widest {
			sv = kernel.SubgroupMax(v)
		} else {
			sv = kernel.SubgroupAdd(v)
		}
		if t%sg == 0 {
			red[t/sg] = sv
		}
		kernel.Barrier()
		// Many subgroups (the portable dialects' subgroups of one thread)
		// halve in shared memory first; the last few, one thread folds.
		n := subs
		for n > leanParts {
			n /= 2
			if t < n {
				red[t] = leanFold(widest, red[t], red[t+n])
			}
			kernel.Barrier()
		}
		if t == 0 {
			total := red[0]
			for i := uint32(1); i < n; i++ {
				total = leanFold(widest, total, red[i])
			}
			if op == ReduceMean {
				total /= float32(vecs * 4 * per)
			}
			if dt == DTFloat32 {
				out[r] = kernel.Float32bits(total)
			} else {
				kernel.AtomicAnd(&out[r/2], otherHalf(r))
				kernel.AtomicOr(&out[r/2], halfBits(total, dt, r))
			}
		}
		kernel.Barrier() // red is the next row's
	}
}
