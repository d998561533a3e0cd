package kernels

import (
	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/kernels/internal/vsum"
)

// goReduceSumTuned writes group g's partial sum of x to out[g] (the elements
// the package documentation assigns to the group: the chunks of B elements
// at c·G·B + g·B below n) with the vector sums of package vsum. The
// generated Go kernel must add each thread's elements in the thread's own
// order and then the threads' sums in the kernel's shared-memory tree; a
// reduction may add in any order (results are compared with
// ReductionTolerance), which lets this one add a group's chunks as whole
// runs, four side by side, in vector registers. The launch checks are
// guardGo's; a group with y or z index other than 0 writes nothing, as the
// generated kernel.
func goReduceSumTuned(g backend.Group, args []backend.Arg) {
	out, x, n := args[0].Float32s(), args[1].Float32s(), int(args[2].U32())
	lo, b, stride, ok := reduceShare(g)
	if !ok {
		return
	}
	s := groupSum(x[:n], nil, lo, b, stride)
	out[g.ID.X] = float32(s) // after every read: with grid 1, out may be x
}

// goDotTuned is goReduceSumTuned for dot: group g's partial sum of
// x[i]·y[i].
func goDotTuned(g backend.Group, args []backend.Arg) {
	out, x, y, n := args[0].Float32s(), args[1].Float32s(), args[2].Float32s(), int(args[3].U32())
	lo, b, stride, ok := reduceShare(g)
	if !ok {
		return
	}
	s := groupSum(x[:n], y[:n], lo, b, stride)
	out[g.ID.X] = float32(s)
}

// reduceShare returns group g's first element lo, the chunk length B and
// the grid stride G·B of a one-dimensional reduction; ok is false for a
// group that writes nothing (a y or z index other than 0).
func reduceShare(g backend.Group) (lo, b, stride int, ok bool) {
	size, grid := g.Size.Norm(), g.Grid.Norm()
	if g.ID.Y != 0 || g.ID.Z != 0 || size.X <= 0 || grid.X <= 0 || g.ID.X < 0 {
		return 0, 0, 0, false
	}
	b = size.X
	return g.ID.X * b, b, grid.X * b, true
}

// prefetchChunks is how many chunks ahead groupSum asks for the chunks it
// will read: two rounds of four. A group's chunks lie a grid apart (1 MiB
// for 1024 groups of 256), too short a run each for the hardware
// prefetchers; asking for them two rounds ahead (into L2) took one core from
// 12-14 GB/s to 16-19 over 16 Mi float32s (4 chunks ahead: 16-19, 16: 15-19,
// 24: 15).
const prefetchChunks = 8

// groupSum returns the sum of x[i] (y nil) or of x[i]·y[i] over the chunks
// [lo, lo+b), [lo+stride, lo+stride+b), ... clipped to len(x). Chunks that
// touch (a grid of one group) are one run; otherwise four whole chunks are
// read side by side, those prefetchChunks further asked for first.
func groupSum(x, y []float32, lo, b, stride int) float64 {
	n := len(x)
	if lo >= n {
		return 0
	}
	if stride == b {
		if y == nil {
			return vsum.Sum(x[lo:])
		}
		return vsum.Dot(x[lo:], y[lo:])
	}
	var s float64
	for ; lo+3*stride+b <= n; lo += 4 * stride {
		c0, c1, c2, c3 := lo, lo+stride, lo+2*stride, lo+3*stride
		if p := c0 + prefetchChunks*stride; p+3*stride+b <= n {
			vsum.Prefetch4(x[p:p+b], x[p+stride:p+stride+b], x[p+2*stride:p+2*stride+b], x[p+3*stride:p+3*stride+b])
			if y != nil {
				vsum.Prefetch4(y[p:p+b], y[p+stride:p+stride+b], y[p+2*stride:p+2*stride+b], y[p+3*stride:p+3*stride+b])
			}
		}
		if y == nil {
			s += vsum.Sum4(x[c0:c0+b], x[c1:c1+b], x[c2:c2+b], x[c3:c3+b])
		} else {
			s += vsum.Dot4(x[c0:c0+b], x[c1:c1+b], x[c2:c2+b], x[c3:c3+b],
				y[c0:c0+b], y[c1:c1+b], y[c2:c2+b], y[c3:c3+b])
		}
	}
	for ; lo < n; lo += stride {
		hi := min(lo+b, n)
		if y == nil {
			s += vsum.Sum(x[lo:hi])
		} else {
			s += vsum.Dot(x[lo:hi], y[lo:hi])
		}
	}
	return s
}
