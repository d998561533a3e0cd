package tensor

import (
	"math"
	"slices"

	"github.com/anygpu/gpu"
)

// Device positions. A decode step replayed from a captured graph
// (gpu.Stream.BeginCapture) keeps every scalar argument of its launches as
// it was at capture, so the step cannot take the token's position as a Go
// int. The ops below read it instead from a position tensor: an Int32
// tensor of one element (shape [1] or []) on the ops' device, read by the
// kernels when they run, and moved on by Advance, on the device too. Their
// launches (kernels, grids, scalars) depend on the shapes alone, never on
// the position's value, so one capture serves every position. The device
// cannot report a position out of range: each op says what it does then.

// checkPosition is nil when at is a usable position tensor on x's device.
func checkPosition(op string, at, x *Tensor) error {
	if err := at.usable(op); err != nil {
		return err
	}
	shapes := op + " " + shapeString(x.shape) + " at " + shapeString(at.shape)
	if at.dtype != Int32 {
		return invalidHint(shapes, "Cast the position to Int32", "position of dtype %s", at.dtype)
	}
	if at.Len() != 1 || len(at.shape) > 1 {
		return invalid(shapes, "a position of shape [1] or []")
	}
	return sameDevice(op, x, at)
}

// AppendKVAt is AppendKV with the first position pos[0] read on the device
// (pos an Int32 tensor of shape [1] or []; see Device positions): cache[h,
// pos[0]+i, d] = x[i, h, d]. Rows whose position (int32 arithmetic) lies
// outside the cache's 0..ctx-1 are not written: no error is reported. The
// launch does not depend on pos's value, so the op can be captured once and
// replayed at every position.
func AppendKVAt(cache, x, pos *Tensor) error {
	const op = "append kv at"
	if err := checkCache(op, "the", cache, nil); err != nil {
		return err
	}
	if err := needFloat(op, x, cache); err != nil {
		return err
	}
	if err := sameDevice(op, cache, x); err != nil {
		return err
	}
	if err := checkPosition(op, pos, cache); err != nil {
		return err
	}
	heads, ctx, dim := cache.shape[0], cache.shape[1], cache.shape[2]
	if len(x.shape) != 3 || x.shape[1] != heads || x.shape[2] != dim {
		return invalid(op+" "+shapeString(x.shape)+" into "+shapeString(cache.shape), "want [n %d %d]", heads, dim)
	}
	return appendKV(op, cache, x, kvSource{heads: heads, ctx: ctx, dim: dim}, 0, pos)
}

// AppendPagedKVAt is AppendPagedKV with the first position pos[0] read on
// the device (pos an Int32 tensor of shape [1] or []; see Device
// positions). Rows whose position (int32 arithmetic) lies outside the
// table's 0..blocks·page-1, or whose table entry is outside the pool, are
// not written: no error is reported. The launch does not depend on pos's
// value, so the op can be captured once and replayed at every position.
func AppendPagedKVAt(pool, table, x, pos *Tensor) error {
	const op = "append paged kv at"
	capacity, err := checkPaged(op, "the", pool, table, nil)
	if err != nil {
		return err
	}
	if err := needFloat(op, x, pool); err != nil {
		return err
	}
	if err := sameDevice(op, pool, x, table); err != nil {
		return err
	}
	if err := checkPosition(op, pos, pool); err != nil {
		return err
	}
	pages, heads, page, dim := pool.shape[0], pool.shape[1], pool.shape[2], pool.shape[3]
	if len(x.shape) != 3 || x.shape[1] != heads || x.shape[2] != dim {
		return invalid(op+" "+shapeString(x.shape)+" into "+shapeString(pool.shape), "want [n %d %d]", heads, dim)
	}
	return appendKV(op, pool, x, kvSource{table: table, heads: heads, ctx: capacity, dim: dim, page: page, pages: pages}, 0, pos)
}

// AttentionAt is Attention with the queries' first position pos[0] read on
// the device (pos an Int32 tensor of shape [1] or []; see Device
// positions): query i attends to positions 0..pos[0]+i. A position past
// the cache, or negative, is taken as the cache's end (every query attends
// to all ctx positions); no error is reported. The launches depend on the
// shapes alone (the per-query kernel, split as for a query over all ctx
// positions, its splits past the position contributing nothing), so the op
// can be captured once and replayed at every position; a prefill takes the
// per-query kernel too, slower than Attention's blocks of queries.
func AttentionAt(q, k, v, pos *Tensor, scale float32) (*Tensor, error) {
	const op = "attention at"
	src, _, err := attentionSource(op, q, k, v)
	if err != nil {
		return nil, err
	}
	if err := checkPosition(op, pos, q); err != nil {
		return nil, err
	}
	return attend(op, q, src, 0, pos, scale)
}

// PagedAttentionAt is PagedAttention with the queries' first position
// pos[0] read on the device, as AttentionAt (see there for positions out
// of range and the launches, which do not depend on the position's value).
func PagedAttentionAt(q, k, v, table, pos *Tensor, scale float32) (*Tensor, error) {
	const op = "paged attention at"
	src, _, err := pagedSource(op, q, k, v, table)
	if err != nil {
		return nil, err
	}
	if err := checkPosition(op, pos, q); err != nil {
		return nil, err
	}
	return attend(op, q, src, 0, pos, scale)
}

// RotaryAt is Rotary with the first row's position pos[0] read on the
// device (pos an Int32 tensor of shape [1] or []; see Device positions):
// row s turns by the angles of position pos[0]+s, in int32 arithmetic (a
// negative position turns the other way; none is out of range). The launch
// does not depend on pos's value, so the op can be captured once and
// replayed at every position.
func RotaryAt(x, pos *Tensor, base float32) (*Tensor, error) {
	const op = "rotary at"
	if err := checkRotary(op, x, base); err != nil {
		return nil, err
	}
	if err := checkPosition(op, pos, x); err != nil {
		return nil, err
	}
	return rotary(op, x, 0, pos, base)
}

// Advance adds n to every element of pos, a contiguous Int32 tensor, in
// place on the device (int32 arithmetic: overflow wraps): a decode step
// moves its position tensor on to the next token's. n is a Go int within
// int32's range. The launch depends on pos's shape and n alone, so the op
// can be captured once and replayed.
func Advance(pos *Tensor, n int) error {
	const op = "advance"
	if err := pos.usable(op); err != nil {
		return err
	}
	if pos.dtype != Int32 {
		return invalidHint(op+" "+shapeString(pos.shape), "Cast to Int32", "a tensor of dtype %s", pos.dtype)
	}
	if !pos.IsContiguous() {
		return invalidHint(op+" "+shapeString(pos.shape), "Contiguous copies a view", "a view that is not contiguous")
	}
	if n < math.MinInt32 || n > math.MaxInt32 {
		return invalid(op, "step %d outside int32", n)
	}
	count := pos.Len()
	if count == 0 {
		return nil
	}
	ds := pos.st.ds
	var args argList
	args.add(gpu.Buf(pos.st.buf))
	args.u32(count, pos.offset, n)
	return wrap(ds.launch("advance", false, count, []*storage{pos.st}, args.args()...), op)
}

// ArgMaxInto is ArgMax writing into out, an Int32 tensor of ArgMax's result
// shape, contiguous from the start of its buffer (made by Empty or Zeros),
// instead of a new tensor: a decode step's next token lands where the
// next replay of the captured step reads it. Its launches depend on the
// shapes alone.
func ArgMaxInto(out, x *Tensor, axis int) error {
	const op = "argmax into"
	outer, err := checkArgMax(op, x, axis)
	if err != nil {
		return err
	}
	if err := out.usable(op); err != nil {
		return err
	}
	if err := sameDevice(op, x, out); err != nil {
		return err
	}
	shapes := op + " " + shapeString(x.shape) + " into " + shapeString(out.shape)
	if out.dtype != Int32 {
		return invalidHint(shapes, "make out with Empty(dev, tensor.Int32, ...)", "out of dtype %s", out.dtype)
	}
	if !slices.Equal(out.shape, outer) {
		return invalid(shapes, "out of shape %s; want %s", shapeString(out.shape), shapeString(outer))
	}
	if !out.IsContiguous() || out.offset != 0 {
		return invalidHint(shapes, "make out with Empty or Zeros", "out is a view")
	}
	return argmax(op, out, x, axis)
}

// Assign copies src's elements into dst's storage, on the device: dst and
// src have the same shape and dtype (of 4 or 2 bytes), and dst is a view whose elements
// are distinct (no stride 0 along a size above 1; dst and src may not
// overlap). A decode step copies a result into a fixed tensor so that the
// next replay of the captured step reads it; the launch depends on the
// shapes alone.
func Assign(dst, src *Tensor) error {
	const op = "assign"
	if err := dst.usable(op); err != nil {
		return err
	}
	if err := src.usable(op); err != nil {
		return err
	}
	if err := sameDevice(op, dst, src); err != nil {
		return err
	}
	shapes := op + " " + shapeString(src.shape) + " into " + shapeString(dst.shape)
	if !slices.Equal(dst.shape, src.shape) {
		return invalid(shapes, "shapes differ")
	}
	if dst.dtype != src.dtype {
		return invalidHint(shapes, "Cast one of them first", "%s into %s", src.dtype, dst.dtype)
	}
	if dst.dtype.Size() == 1 {
		return notSupported(shapes, "Cast to a 2- or 4-byte dtype first", "%s elements: assign copies 4- and 2-byte ones", dst.dtype)
	}
	for i, s := range dst.shape {
		if s > 1 && dst.strides[i] == 0 {
			return invalid(shapes, "dst repeats elements along dimension %d (stride 0)", i)
		}
	}
	return assign(op, dst, src)
}

// AppendKVPairAt is AppendKVAt of keys k into the key cache kc and values v
// into the value cache vc in one launch (a decode step appends both at
// every layer): kc[h, pos[0]+i, d] = k[i, h, d] and vc[h, pos[0]+i, d] =
// v[i, h, d]. The caches share shape and dtype, k and v are [n heads dim]
// (any views), and rows whose position lies outside the caches are not
// written, as AppendKVAt's.
func AppendKVPairAt(kc, vc, k, v, pos *Tensor) error {
	const op = "append kv pair at"
	if err := checkKVPair(op, kc, vc, k, v); err != nil {
		return err
	}
	if err := checkPosition(op, pos, kc); err != nil {
		return err
	}
	return appendKVPair(op, kc, vc, k, v, 0, pos)
}

// checkKVPair checks AppendKVPair's and AppendKVPairAt's caches kc and vc
// and their keys k and values v.
func checkKVPair(op string, kc, vc, k, v *Tensor) error {
	if err := checkCache(op, "the key", kc, nil); err != nil {
		return err
	}
	if err := checkCache(op, "the value", vc, kc); err != nil {
		return err
	}
	if !slices.Equal(kc.shape, vc.shape) {
		return invalid(op+" "+shapeString(kc.shape)+" and "+shapeString(vc.shape), "caches of one shape")
	}
	if err := needFloat(op, k, kc); err != nil {
		return err
	}
	if err := needFloat(op, v, kc); err != nil {
		return err
	}
	if err := sameDevice(op, kc, vc, k, v); err != nil {
		return err
	}
	heads, dim := kc.shape[0], kc.shape[2]
	for _, x := range []*Tensor{k, v} {
		if len(x.shape) != 3 || x.shape[1] != heads || x.shape[2] != dim || x.shape[0] != k.shape[0] {
			return invalid(op+" "+shapeString(k.shape)+" and "+shapeString(v.shape)+" into "+shapeString(kc.shape), "want [n %d %d] both", heads, dim)
		}
	}
	return nil
}

// appendKVPair launches appendKVPair for the checked caches, keys and
// values, at position pos, or, when at is not nil, at at[0] read on the
// device (a checked position tensor).
func appendKVPair(op string, kc, vc, k, v *Tensor, pos int, at *Tensor) error {
	heads, ctx, dim := kc.shape[0], kc.shape[1], kc.shape[2]
	n := k.shape[0]
	if n*heads*dim == 0 {
		return nil
	}
	ds := kc.st.ds
	var ubuf [5]*storage
	uses := append(ubuf[:0], kc.st, vc.st, k.st, v.st)
	posArg, posAt, pdev := gpu.Buf(kc.st.buf), pos, 0
	if at != nil {
		posArg, posAt, pdev = gpu.Buf(at.st.buf), at.offset, 1
		uses = append(uses, at.st)
	}
	var args argList
	args.add(gpu.Buf(kc.st.buf), gpu.Buf(vc.st.buf), gpu.Buf(k.st.buf), gpu.Buf(v.st.buf), posArg)
	args.u32(int(kc.dtype), n, heads, dim, posAt, pdev, ctx)
	args.u32(k.offset, k.strides[0], k.strides[1], k.strides[2])
	args.u32(v.offset, v.strides[0], v.strides[1], v.strides[2])
	return wrap(ds.launch("appendKVPair", false, n*heads*dim, uses, args.args()...), op)
}
