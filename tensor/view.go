package tensor

import (
	"slices"

	"github.com/anygpu/gpu"
)

// view is a new tensor over t's buffer (its own reference).
func (t *Tensor) view(shape, strides []int, offset int) *Tensor {
	return newTensor(t.st, t.dtype, shape, strides, offset)
}

// View returns a new tensor handle over the same elements, closed
// independently of t.
func (t *Tensor) View() (*Tensor, error) {
	if err := t.usable("view"); err != nil {
		return nil, err
	}
	return t.view(t.shape, t.strides, t.offset), nil
}

// Slice returns the view of elements start ≤ i < end along dimension dim
// (negative dim counts from the end), with 0 ≤ start ≤ end ≤ size as Go's
// slice bounds.
func (t *Tensor) Slice(dim, start, end int) (*Tensor, error) {
	const op = "slice"
	if err := t.usable(op); err != nil {
		return nil, err
	}
	d, err := normAxis(op, dim, len(t.shape), t.shape)
	if err != nil {
		return nil, err
	}
	if start < 0 || start > end || end > t.shape[d] {
		return nil, invalid(op, "[%d:%d] of dimension %d of shape %s (size %d)", start, end, dim, shapeString(t.shape), t.shape[d])
	}
	var buf [MaxRank]int
	shape := buf[:copy(buf[:], t.shape)]
	shape[d] = end - start
	off := t.offset
	if end > start {
		off += start * t.strides[d]
	}
	return t.view(shape, t.strides, off), nil
}

// Reshape returns a view of the elements in a new shape with as many
// elements; one size may be -1, inferred. Reshape never copies: when no
// strides make t's elements, row-major, the new shape (a transposed matrix
// flattened, say), it is an error of category InvalidArgument; call
// Contiguous first, which copies. Merging or splitting dimensions that are
// contiguous with each other, and adding or dropping dimensions of size 1,
// always work.
func (t *Tensor) Reshape(shape ...int) (*Tensor, error) {
	const op = "reshape"
	if err := t.usable(op); err != nil {
		return nil, err
	}
	var buf [MaxRank]int
	if len(shape) <= MaxRank {
		shape = buf[:copy(buf[:], shape)]
	} else {
		shape = slices.Clone(shape)
	}
	infer, known := -1, 1
	for i, s := range shape {
		switch {
		case s == -1 && infer < 0:
			infer = i
		case s < 0:
			return nil, invalid(op+" "+shapeString(t.shape)+" to "+shapeString(shape), "sizes must be ≥ 0, with at most one -1")
		default:
			known *= s
		}
	}
	n := t.Len()
	if infer >= 0 {
		if known == 0 || n%known != 0 {
			return nil, invalid(op+" "+shapeString(t.shape)+" to "+shapeString(shape), "%d elements do not divide into %d", n, known)
		}
		shape[infer] = n / known
		known = n
	}
	if known != n {
		return nil, invalid(op+" "+shapeString(t.shape)+" to "+shapeString(shape), "%d elements vs %d", n, known)
	}
	if err := checkShape(op, shape); err != nil {
		return nil, err
	}
	var sbuf [MaxRank]int
	strides := sbuf[:len(shape)]
	if !viewStrides(t.shape, t.strides, shape, strides) {
		return nil, invalidHint(op+" "+shapeString(t.shape)+" to "+shapeString(shape),
			"call Contiguous first (it copies)", "no strides make a view of strides %s that shape", shapeString(t.strides))
	}
	return t.view(shape, strides, t.offset), nil
}

// viewStrides finds strides that lay out the elements of a view (shape,
// strides), row-major, in shape to, and writes them to out (of to's length);
// false when there are none. The view's dimensions split into chunks, each
// a run of dimensions contiguous with one another; every chunk must be made
// of whole dimensions of to.
func viewStrides(shape, strides, to, out []int) bool {
	if numel(shape) == 0 || len(shape) == 0 {
		rowMajorInto(out, to)
		return true
	}
	v := len(to) - 1
	base := strides[len(shape)-1] // the stride of the current chunk's last dimension
	chunk, made := 1, 1           // elements of the chunk, and of to's dimensions placed in it
	for d := len(shape) - 1; d >= 0; d-- {
		chunk *= shape[d]
		if d > 0 && (shape[d-1] == 1 || strides[d-1] == chunk*base) {
			continue // dimension d-1 continues the chunk
		}
		for v >= 0 && (made < chunk || to[v] == 1) {
			out[v] = made * base
			made *= to[v]
			v--
		}
		if made != chunk {
			return false
		}
		if d > 0 {
			base, chunk, made = strides[d-1], 1, 1
		}
	}
	return v == -1
}

// Transpose returns the view with dimensions a and b swapped.
func (t *Tensor) Transpose(a, b int) (*Tensor, error) {
	const op = "transpose"
	if err := t.usable(op); err != nil {
		return nil, err
	}
	i, err := normAxis(op, a, len(t.shape), t.shape)
	if err != nil {
		return nil, err
	}
	j, err := normAxis(op, b, len(t.shape), t.shape)
	if err != nil {
		return nil, err
	}
	perm := make([]int, len(t.shape))
	for k := range perm {
		perm[k] = k
	}
	perm[i], perm[j] = perm[j], perm[i]
	return t.Permute(perm...)
}

// Permute returns the view whose dimension i is t's dimension perm[i];
// perm is a permutation of 0..rank-1.
func (t *Tensor) Permute(perm ...int) (*Tensor, error) {
	const op = "permute"
	if err := t.usable(op); err != nil {
		return nil, err
	}
	if len(perm) != len(t.shape) {
		return nil, invalid(op+" "+shapeString(t.shape), "permutation %s of %d dimensions for rank %d", shapeString(perm), len(perm), len(t.shape))
	}
	seen := make([]bool, len(perm))
	shape, strides := make([]int, len(perm)), make([]int, len(perm))
	for i, p := range perm {
		if p < 0 || p >= len(perm) || seen[p] {
			return nil, invalid(op+" "+shapeString(t.shape), "%s is not a permutation of 0..%d", shapeString(perm), len(perm)-1)
		}
		seen[p] = true
		shape[i], strides[i] = t.shape[p], t.strides[p]
	}
	return t.view(shape, strides, t.offset), nil
}

// broadcastShapes is the shape a and b broadcast to (NumPy's rule: aligned
// at the end, sizes equal or one of them 1).
func broadcastShapes(op string, a, b []int) ([]int, error) {
	return broadcastShapesInto(op, a, b, make([]int, max(len(a), len(b))))
}

// broadcastShapesInto is broadcastShapes written to out (of the longer
// shape's length).
func broadcastShapesInto(op string, a, b, out []int) ([]int, error) {
	n := max(len(a), len(b))
	for i := range n {
		x, y := 1, 1
		if k := i - (n - len(a)); k >= 0 {
			x = a[k]
		}
		if k := i - (n - len(b)); k >= 0 {
			y = b[k]
		}
		switch {
		case x == y || y == 1:
			out[i] = x
		case x == 1:
			out[i] = y
		default:
			return nil, invalid(op+" "+shapeString(a)+" and "+shapeString(b),
				"sizes %d and %d of dimension %d do not broadcast (they must be equal, or one of them 1)", x, y, i)
		}
	}
	return out, nil
}

// BroadcastShapes is the shape tensors of shapes a and b broadcast to, by
// NumPy's rule; an InvalidArgument error naming both when they do not.
func BroadcastShapes(a, b []int) ([]int, error) { return broadcastShapes("broadcast", a, b) }

// expandStridesInto writes to strides (of shape's length) t's strides for
// the view of t broadcast to shape (stride 0 along the dimensions it
// repeats), and returns them.
func (t *Tensor) expandStridesInto(op string, shape, strides []int) ([]int, error) {
	fail := func() error {
		return invalid(op+" "+shapeString(t.shape)+" to "+shapeString(shape),
			"a dimension must keep its size or have size 1, and dimensions are only added in front")
	}
	if len(shape) < len(t.shape) {
		return nil, fail()
	}
	pad := len(shape) - len(t.shape)
	for i := range shape {
		if i < pad {
			strides[i] = 0
			continue
		}
		switch s := t.shape[i-pad]; {
		case s == shape[i]:
			strides[i] = t.strides[i-pad]
		case s == 1:
			strides[i] = 0
		default:
			return nil, fail()
		}
	}
	return strides, nil
}

// Expand returns the view of t broadcast to shape, without copying: a
// dimension of size 1 repeats (stride 0) and new dimensions may be added in
// front; -1 keeps a size. Write to an expanded view's elements with care:
// they alias.
func (t *Tensor) Expand(shape ...int) (*Tensor, error) {
	const op = "expand"
	if err := t.usable(op); err != nil {
		return nil, err
	}
	var buf, sbuf [MaxRank]int
	if len(shape) <= MaxRank {
		shape = buf[:copy(buf[:], shape)]
	} else {
		shape = slices.Clone(shape)
	}
	for i, s := range shape {
		if k := i - (len(shape) - len(t.shape)); s == -1 && k >= 0 {
			shape[i] = t.shape[k]
		}
	}
	if err := checkShape(op, shape); err != nil {
		return nil, err
	}
	strides, err := t.expandStridesInto(op, shape, sbuf[:len(shape)])
	if err != nil {
		return nil, err
	}
	return t.view(shape, strides, t.offset), nil
}

// Contiguous returns t's elements as a contiguous tensor: a new handle over
// the same buffer when t already is contiguous, else a copy made on the
// device (a kernel, not a transfer). Either way close the result.
func (t *Tensor) Contiguous() (*Tensor, error) {
	const op = "contiguous"
	if err := t.usable(op); err != nil {
		return nil, err
	}
	if t.IsContiguous() {
		var buf [MaxRank]int
		rowMajorInto(buf[:len(t.shape)], t.shape)
		return t.view(t.shape, buf[:len(t.shape)], t.offset), nil
	}
	return t.gather(op)
}

// packed is t's elements contiguous from the start of a buffer, as kernels
// that take a plain vector read them: t itself when it already is, else a
// copy, which the caller closes (closeCopy).
func (t *Tensor) packed(op string) (*Tensor, error) {
	if err := t.usable(op); err != nil {
		return nil, err
	}
	if t.IsContiguous() && t.offset == 0 {
		return t, nil
	}
	return t.gather(op)
}

// closeCopy closes p, what t.packed returned, when it is a copy.
func (t *Tensor) closeCopy(p *Tensor) {
	if p != t {
		_ = p.Close()
	}
}

// gather copies t's elements into a new contiguous tensor at offset 0, on
// the device.
func (t *Tensor) gather(op string) (*Tensor, error) {
	out, err := empty(t.st.ds, op, t.dtype, t.shape)
	if err != nil {
		return nil, err
	}
	if err := t.gatherInto(op, out); err != nil {
		_ = out.Close()
		return nil, err
	}
	return out, nil
}

// gatherInto copies t's elements into out, contiguous from the start of its
// buffer, of t's dtype and at least t's length, a whole word per thread (the
// bytes of out's word past t's last element are zeroed).
func (t *Tensor) gatherInto(op string, out *Tensor) error {
	return t.gatherViewInto(op, out, t.shape, t.strides, t.offset)
}

// gatherViewInto is gatherInto for the view (shape, strides, offset) of t's
// buffer, without a tensor for it.
func (t *Tensor) gatherViewInto(op string, out *Tensor, shape, strides []int, offset int) error {
	ds := t.st.ds
	n := numel(shape)
	per := 4 / t.dtype.Size()
	words := (n + per - 1) / per
	l := coalesced(shape, strides)
	var args argList
	args.add(gpu.Buf(out.st.buf), gpu.Buf(t.st.buf))
	args.u32(n, t.dtype.Size())
	args.view(offset, l.shape[:l.rank], l.strides[0][:l.rank])
	return wrap(ds.launch("gather", false, words, []*storage{out.st, t.st}, args.args()...), op)
}
