package handwritten

import (
	"maps"

	"github.com/anygpu/gpu/backend"
)

// Go returns the hand-written Go kernels of every built-in op, by op name
// (kernels.OpFill, ...): sgemm's is the hand-tuned GEMM of internal/gemm
// (sgemm.go), which the CPU backend ran until the generated sgemm (on
// kernel.MatMulAddFrom) replaced it. Each call returns a fresh map.
func Go() map[string]backend.GoKernel {
	return maps.Clone(goKernels)
}

// goKernels are the hand-written Go kernels, by op name (kernels.OpFill, ...).
var goKernels = map[string]backend.GoKernel{
	"fill":       goFill,
	"copy":       goCopy,
	"scale":      goScale,
	"axpy":       goAxpy,
	"add":        goAdd,
	"mul":        goMul,
	"reduce_sum": goReduceSum,
	"dot":        goDot,
	"transpose":  goTranspose,
	"sgemm":      goSgemm,
}

// stride1 describes a one-dimensional op's share of the work for group g: the
// first element lo, the block size b and the grid stride G*B. ok is false for
// a group that does nothing (a y or z index other than 0, or an empty block).
// The group then handles [lo, lo+b), [lo+stride, lo+stride+b), ... below n.
func stride1(g backend.Group) (lo, b, stride int, ok bool) {
	if g.ID.Y != 0 || g.ID.Z != 0 || g.Size.X <= 0 || g.Grid.X <= 0 || g.ID.X < 0 {
		return 0, 0, 0, false
	}
	b = g.Size.X
	return g.ID.X * b, b, g.Grid.X * b, true
}

// fits reports whether r*c elements fit in l, without overflowing.
func fits(l, r, c int) bool { return r == 0 || c <= l/r }

func goFill(g backend.Group, args []backend.Arg) {
	if len(args) < 3 {
		return
	}
	y, n, v := args[0].Float32s(), int(args[1].U32()), args[2].F32()
	lo, b, stride, ok := stride1(g)
	if !ok || len(y) < n {
		return
	}
	for ; lo < n; lo += stride {
		hi := min(lo+b, n)
		fillF32(y[lo:hi:hi], v)
	}
}

func goCopy(g backend.Group, args []backend.Arg) {
	if len(args) < 3 {
		return
	}
	y, x, n := args[0].Float32s(), args[1].Float32s(), int(args[2].U32())
	lo, b, stride, ok := stride1(g)
	if !ok || len(y) < n || len(x) < n {
		return
	}
	for ; lo < n; lo += stride {
		hi := min(lo+b, n)
		copy(y[lo:hi:hi], x[lo:hi:hi])
	}
}

func goScale(g backend.Group, args []backend.Arg) {
	if len(args) < 4 {
		return
	}
	y, x, n, a := args[0].Float32s(), args[1].Float32s(), int(args[2].U32()), args[3].F32()
	lo, b, stride, ok := stride1(g)
	if !ok || len(y) < n || len(x) < n {
		return
	}
	for ; lo < n; lo += stride {
		hi := min(lo+b, n)
		scaleF32(y[lo:hi:hi], x[lo:hi:hi], a)
	}
}

func goAxpy(g backend.Group, args []backend.Arg) {
	if len(args) < 4 {
		return
	}
	y, x, n, a := args[0].Float32s(), args[1].Float32s(), int(args[2].U32()), args[3].F32()
	lo, b, stride, ok := stride1(g)
	if !ok || len(y) < n || len(x) < n {
		return
	}
	for ; lo < n; lo += stride {
		hi := min(lo+b, n)
		axpyF32(y[lo:hi:hi], x[lo:hi:hi], a)
	}
}

func goAdd(g backend.Group, args []backend.Arg) {
	if len(args) < 4 {
		return
	}
	z, x, y, n := args[0].Float32s(), args[1].Float32s(), args[2].Float32s(), int(args[3].U32())
	lo, b, stride, ok := stride1(g)
	if !ok || len(z) < n || len(x) < n || len(y) < n {
		return
	}
	for ; lo < n; lo += stride {
		hi := min(lo+b, n)
		addF32(z[lo:hi:hi], x[lo:hi:hi], y[lo:hi:hi])
	}
}

func goMul(g backend.Group, args []backend.Arg) {
	if len(args) < 4 {
		return
	}
	z, x, y, n := args[0].Float32s(), args[1].Float32s(), args[2].Float32s(), int(args[3].U32())
	lo, b, stride, ok := stride1(g)
	if !ok || len(z) < n || len(x) < n || len(y) < n {
		return
	}
	for ; lo < n; lo += stride {
		hi := min(lo+b, n)
		mulF32(z[lo:hi:hi], x[lo:hi:hi], y[lo:hi:hi])
	}
}

// goReduceSum writes group g's grid-stride partial sum to out[g]. It adds
// runs of up to reduceBlock elements in float32, like a GPU thread would, and
// those runs in float64, so its error stays well inside ReductionTolerance.
func goReduceSum(g backend.Group, args []backend.Arg) {
	if len(args) < 3 {
		return
	}
	out, x, n := args[0].Float32s(), args[1].Float32s(), int(args[2].U32())
	lo, b, stride, ok := stride1(g)
	if !ok || len(x) < n || g.ID.X >= len(out) {
		return
	}
	s := reduceGroup(x[:n], nil, lo, b, stride)
	out[g.ID.X] = float32(s) // after every read: with grid 1, out may be x
}

// goDot writes group g's grid-stride partial sum of x[i]*y[i] to out[g].
func goDot(g backend.Group, args []backend.Arg) {
	if len(args) < 4 {
		return
	}
	out, x, y, n := args[0].Float32s(), args[1].Float32s(), args[2].Float32s(), int(args[3].U32())
	lo, b, stride, ok := stride1(g)
	if !ok || len(x) < n || len(y) < n || g.ID.X >= len(out) {
		return
	}
	s := reduceGroup(x[:n], y[:n], lo, b, stride)
	out[g.ID.X] = float32(s)
}

// reduceGroup returns the sum of x[i] (y nil) or of x[i]*y[i] over the chunks
// [lo, lo+b), [lo+stride, lo+stride+b), ... of one group, clipped to len(x).
// Four full chunks are summed at a time: they lie stride apart, where the
// hardware prefetchers do not follow, and interleaving them overlaps their
// cache misses (twice the bandwidth of one chunk after another).
func reduceGroup(x, y []float32, lo, b, stride int) float64 {
	n := len(x)
	var s float64
	for ; lo+3*stride+b <= n; lo += 4 * stride {
		c0, c1, c2, c3 := lo, lo+stride, lo+2*stride, lo+3*stride
		if y == nil {
			s += sum4F32(x[c0:c0+b], x[c1:c1+b], x[c2:c2+b], x[c3:c3+b])
		} else {
			s += dot4F32(x[c0:c0+b], x[c1:c1+b], x[c2:c2+b], x[c3:c3+b],
				y[c0:c0+b], y[c1:c1+b], y[c2:c2+b], y[c3:c3+b])
		}
	}
	for ; lo < n; lo += stride {
		hi := min(lo+b, n)
		if y == nil {
			s += sumF32(x[lo:hi:hi])
		} else {
			s += dotF32(x[lo:hi:hi], y[lo:hi:hi])
		}
	}
	return s
}

// tiles2 describes a two-dimensional op's share of the work for group g: the
// first column and row it handles, the block's width and height, and the grid
// strides in columns and rows. ok is false for a group that does nothing.
func tiles2(g backend.Group) (x0, y0, bx, by, sx, sy int, ok bool) {
	size, grid := g.Size.Norm(), g.Grid.Norm()
	if g.ID.Z != 0 || size.X <= 0 || size.Y <= 0 || grid.X <= 0 || grid.Y <= 0 || g.ID.X < 0 || g.ID.Y < 0 {
		return 0, 0, 0, 0, 0, 0, false
	}
	bx, by = size.X, size.Y
	return g.ID.X * bx, g.ID.Y * by, bx, by, grid.X * bx, grid.Y * by, true
}

func goTranspose(g backend.Group, args []backend.Arg) {
	if len(args) < 4 {
		return
	}
	out, in := args[0].Float32s(), args[1].Float32s()
	rows, cols := int(args[2].U32()), int(args[3].U32())
	c0, r0, bx, by, sx, sy, ok := tiles2(g)
	if !ok || rows == 0 || cols == 0 || !fits(len(in), rows, cols) || !fits(len(out), rows, cols) {
		return // an empty matrix: nothing to walk over (rows may be huge)
	}
	for ; r0 < rows; r0 += sy {
		r1 := min(r0+by, rows)
		for c := c0; c < cols; c += sx {
			transposeTile(out, in, rows, cols, r0, r1, c, min(c+bx, cols))
		}
	}
}

// transposeTile transposes rows [r0, r1) × columns [c0, c1) of in into out.
func transposeTile(out, in []float32, rows, cols, r0, r1, c0, c1 int) {
	for r := r0; r < r1; r++ {
		src := in[r*cols+c0 : r*cols+c1]
		dst := out[c0*rows+r:]
		for j, v := range src {
			dst[j*rows] = v
		}
	}
}

// The loops below are the hot paths. Each re-slices its inputs to the output's
// length so the compiler proves every index in range and drops the bounds
// checks, and the longer ones are unrolled by four.

func fillF32(y []float32, v float32) {
	for i := range y {
		y[i] = v
	}
}

func scaleF32(y, x []float32, a float32) {
	x = x[:len(y)]
	for i := range y {
		y[i] = a * x[i]
	}
}

func axpyF32(y, x []float32, a float32) {
	x = x[:len(y)]
	i := 0
	for ; i+4 <= len(y); i += 4 {
		yy, xx := y[i:i+4:i+4], x[i:i+4:i+4]
		yy[0] += a * xx[0]
		yy[1] += a * xx[1]
		yy[2] += a * xx[2]
		yy[3] += a * xx[3]
	}
	for ; i < len(y); i++ {
		y[i] += a * x[i]
	}
}

func addF32(z, x, y []float32) {
	x, y = x[:len(z)], y[:len(z)]
	for i := range z {
		z[i] = x[i] + y[i]
	}
}

func mulF32(z, x, y []float32) {
	x, y = x[:len(z)], y[:len(z)]
	for i := range z {
		z[i] = x[i] * y[i]
	}
}

// reduceBlock is how many elements the reductions add in float32 before
// moving the partial sum into a float64 total: short float32 sums run at
// float32 speed (about twice that of float64 accumulation with its
// conversions) and keep the accuracy of a blocked sum, each float32
// accumulator adding at most reduceBlock/2 values.
const reduceBlock = 256

// sumF32 sums x: float32 accumulators over blocks of reduceBlock, the blocks
// added in float64.
func sumF32(x []float32) float64 {
	var total float64
	for len(x) > 0 {
		blk := x[:min(len(x), reduceBlock)]
		x = x[len(blk):]
		var s0, s1, s2, s3, s4, s5, s6, s7 float32
		i := 0
		for ; i+8 <= len(blk); i += 8 {
			v := blk[i : i+8 : i+8]
			s0 += v[0]
			s1 += v[1]
			s2 += v[2]
			s3 += v[3]
			s4 += v[4]
			s5 += v[5]
			s6 += v[6]
			s7 += v[7]
		}
		for ; i < len(blk); i++ {
			s0 += blk[i]
		}
		total += float64(((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7)))
	}
	return total
}

// dotF32 sums x[i]*y[i] the way sumF32 sums.
func dotF32(x, y []float32) float64 {
	y = y[:len(x)]
	var total float64
	for len(x) > 0 {
		m := min(len(x), reduceBlock)
		bx, by := x[:m], y[:m]
		x, y = x[m:], y[m:]
		var s0, s1, s2, s3, s4, s5, s6, s7 float32
		i := 0
		for ; i+8 <= m; i += 8 {
			u, v := bx[i:i+8:i+8], by[i:i+8:i+8]
			s0 += u[0] * v[0]
			s1 += u[1] * v[1]
			s2 += u[2] * v[2]
			s3 += u[3] * v[3]
			s4 += u[4] * v[4]
			s5 += u[5] * v[5]
			s6 += u[6] * v[6]
			s7 += u[7] * v[7]
		}
		for ; i < m; i++ {
			s0 += bx[i] * by[i]
		}
		total += float64(((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7)))
	}
	return total
}

// sum4F32 returns the sum of four equally long chunks, read side by side.
func sum4F32(x0, x1, x2, x3 []float32) float64 {
	x1, x2, x3 = x1[:len(x0)], x2[:len(x0)], x3[:len(x0)]
	var total float64
	for lo := 0; lo < len(x0); lo += reduceBlock {
		hi := min(lo+reduceBlock, len(x0))
		var s0, s1, s2, s3, t0, t1, t2, t3 float32
		i := lo
		for ; i+2 <= hi; i += 2 {
			a, b, c, d := x0[i:i+2:i+2], x1[i:i+2:i+2], x2[i:i+2:i+2], x3[i:i+2:i+2]
			s0 += a[0]
			t0 += a[1]
			s1 += b[0]
			t1 += b[1]
			s2 += c[0]
			t2 += c[1]
			s3 += d[0]
			t3 += d[1]
		}
		for ; i < hi; i++ {
			s0 += x0[i]
			s1 += x1[i]
			s2 += x2[i]
			s3 += x3[i]
		}
		total += float64(((s0 + t0) + (s1 + t1)) + ((s2 + t2) + (s3 + t3)))
	}
	return total
}

// dot4F32 returns the sum of x[i]*y[i] over four pairs of equally long
// chunks, read side by side.
func dot4F32(x0, x1, x2, x3, y0, y1, y2, y3 []float32) float64 {
	x1, x2, x3 = x1[:len(x0)], x2[:len(x0)], x3[:len(x0)]
	y0, y1, y2, y3 = y0[:len(x0)], y1[:len(x0)], y2[:len(x0)], y3[:len(x0)]
	var total float64
	for lo := 0; lo < len(x0); lo += reduceBlock {
		hi := min(lo+reduceBlock, len(x0))
		var s0, s1, s2, s3 float32
		for i := lo; i < hi; i++ {
			s0 += x0[i] * y0[i]
			s1 += x1[i] * y1[i]
			s2 += x2[i] * y2[i]
			s3 += x3[i] * y3[i]
		}
		total += float64((s0 + s1) + (s2 + s3))
	}
	return total
}
