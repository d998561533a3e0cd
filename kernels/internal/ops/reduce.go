package ops

import "github.com/anygpu/gpu/kernel"

// maxGroup is the most threads of a group the reductions sum in shared
// memory at once; larger groups fold into it first, maxGroup threads at a
// time. A group of 256, the usual block, takes one store and four tree
// rounds (five barriers; the hand-written kernels took nine); with 64 slots
// such a group took four fold rounds and six tree rounds. It must be a power
// of 4 (the tree's fan-in).
const maxGroup = 256

// reduce_sum writes to out[g] the sum of the elements x[c·G·B + g·B + t]
// (below n) of group g; see package kernels for the two passes.
//
//gpu:kernel
func reduce_sum(out, x []float32, n uint32) {
	if kernel.GroupY()|kernel.GroupZ() != 0 {
		return
	}
	sh := kernel.Shared[[maxGroup]float32]()
	b, t := kernel.GroupSizeX(), kernel.ThreadX()
	s := b * kernel.GridX()
	var a0, a1, a2, a3, b0, b1, b2, b3 float32
	if kernel.ThreadY()|kernel.ThreadZ() == 0 && n > 0 {
		if b%4 == 0 {
			q := b / 4
			sub := t / q
			lane := t - sub*q
			step := 4 * s
			for base := kernel.GroupX()*b + sub*s; base < n; base += step {
				if n-base > step && n-base-step >= b {
					// This round's chunk and the next's are whole: two
					// loads in flight, one test for the whole quarter.
					e := base + 4*lane
					u := kernel.Load4(x, e/4)
					v := kernel.Load4(x, (e+step)/4)
					a0 += u.X
					a1 += u.Y
					a2 += u.Z
					a3 += u.W
					b0 += v.X
					b1 += v.Y
					b2 += v.Z
					b3 += v.W
					base += step
				} else {
					e := base + 4*lane
					if e < n && n-e > 3 {
						u := kernel.Load4(x, e/4)
						a0 += u.X
						a1 += u.Y
						a2 += u.Z
						a3 += u.W
					} else {
						for ; e < n; e++ {
							a0 += x[e]
						}
					}
				}
				if last(base, step, n) {
					break
				}
			}
		} else {
			for i := kernel.GroupX()*b + t; i < n; i += s {
				a0 += x[i]
				if last(i, s, n) {
					break
				}
			}
		}
	}
	// The group's sum, in shared memory: groups of more than maxGroup
	// threads fold into maxGroup slots first. The barriers also order every
	// read of x before out is written (out may be x).
	tid := kernel.ThreadIndex()
	nt := kernel.GroupSizeX() * kernel.GroupSizeY() * kernel.GroupSizeZ()
	v := ((a0 + a1) + (a2 + a3)) + ((b0 + b1) + (b2 + b3))
	for fold := uint32(0); fold < nt; fold += maxGroup {
		if tid >= fold && tid-fold < maxGroup {
			if fold == 0 {
				sh[tid] = v
			} else {
				sh[tid-fold] += v
			}
		}
		kernel.Barrier()
	}
	// A tree of fan-in 4 (maxGroup is a power of 4): four rounds, and so
	// four barriers, for 256 slots. It starts at maxGroup/4 whatever the
	// group's size: with fewer live slots its first rounds add nothing, and
	// every h is a constant.
	live := min(nt, maxGroup)
	for h := uint32(maxGroup / 4); h > 0; h /= 4 {
		if tid < h && tid+h < live {
			r := sh[tid] + sh[tid+h]
			if tid+2*h < live {
				r += sh[tid+2*h]
			}
			if tid+3*h < live {
				r += sh[tid+3*h]
			}
			sh[tid] = r
		}
		kernel.Barrier()
	}
	if tid == 0 {
		out[kernel.GroupX()] = sh[0]
	}
}

// dotOp (the op dot: a Go name the front end accepts) writes to out[g] the sum of x[i]·y[i] over the elements i of group g,
// as reduce_sum does.
//
//gpu:kernel
func dotOp(out, x, y []float32, n uint32) {
	if kernel.GroupY()|kernel.GroupZ() != 0 {
		return
	}
	sh := kernel.Shared[[maxGroup]float32]()
	b, t := kernel.GroupSizeX(), kernel.ThreadX()
	s := b * kernel.GridX()
	var a0, a1, a2, a3, b0, b1, b2, b3 float32
	if kernel.ThreadY()|kernel.ThreadZ() == 0 && n > 0 {
		if b%4 == 0 {
			q := b / 4
			sub := t / q
			lane := t - sub*q
			step := 4 * s
			for base := kernel.GroupX()*b + sub*s; base < n; base += step {
				if n-base > step && n-base-step >= b {
					e := base + 4*lane
					u := kernel.Load4(x, e/4)
					v := kernel.Load4(y, e/4)
					u2 := kernel.Load4(x, (e+step)/4)
					v2 := kernel.Load4(y, (e+step)/4)
					a0 += u.X * v.X
					a1 += u.Y * v.Y
					a2 += u.Z * v.Z
					a3 += u.W * v.W
					b0 += u2.X * v2.X
					b1 += u2.Y * v2.Y
					b2 += u2.Z * v2.Z
					b3 += u2.W * v2.W
					base += step
				} else {
					e := base + 4*lane
					if e < n && n-e > 3 {
						u := kernel.Load4(x, e/4)
						v := kernel.Load4(y, e/4)
						a0 += u.X * v.X
						a1 += u.Y * v.Y
						a2 += u.Z * v.Z
						a3 += u.W * v.W
					} else {
						for ; e < n; e++ {
							a0 += x[e] * y[e]
						}
					}
				}
				if last(base, step, n) {
					break
				}
			}
		} else {
			for i := kernel.GroupX()*b + t; i < n; i += s {
				a0 += x[i] * y[i]
				if last(i, s, n) {
					break
				}
			}
		}
	}
	// The group's sum, in shared memory: groups of more than maxGroup
	// threads fold into maxGroup slots first. The barriers also order every
	// read of x before out is written (out may be x).
	tid := kernel.ThreadIndex()
	nt := kernel.GroupSizeX() * kernel.GroupSizeY() * kernel.GroupSizeZ()
	v := ((a0 + a1) + (a2 + a3)) + ((b0 + b1) + (b2 + b3))
	for fold := uint32(0); fold < nt; fold += maxGroup {
		if tid >= fold && tid-fold < maxGroup {
			if fold == 0 {
				sh[tid] = v
			} else {
				sh[tid-fold] += v
			}
		}
		kernel.Barrier()
	}
	// A tree of fan-in 4 (maxGroup is a power of 4): four rounds, and so
	// four barriers, for 256 slots. It starts at maxGroup/4 whatever the
	// group's size: with fewer live slots its first rounds add nothing, and
	// every h is a constant.
	live := min(nt, maxGroup)
	for h := uint32(maxGroup / 4); h > 0; h /= 4 {
		if tid < h && tid+h < live {
			r := sh[tid] + sh[tid+h]
			if tid+2*h < live {
				r += sh[tid+2*h]
			}
			if tid+3*h < live {
				r += sh[tid+3*h]
			}
			sh[tid] = r
		}
		kernel.Barrier()
	}
	if tid == 0 {
		out[kernel.GroupX()] = sh[0]
	}
}
