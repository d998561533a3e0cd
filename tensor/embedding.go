package tensor

import (
	"math"
	"slices"

	"github.com/anygpu/gpu"
)

// Embedding returns the rows of table ([vocab dim], Float32, Float16 or
// BFloat16, any view)
// that the Int32 tensor ids names: a tensor of shape ids.Shape() + [dim].
// The ids stay on the device (an ArgMax result feeds the next step without a
// transfer), so an id outside [0, vocab) cannot be reported: its row is
// zeros.
func Embedding(table, ids *Tensor) (*Tensor, error) { return EmbeddingFrom(table, ids, 0) }

// EmbeddingFrom is Embedding with table's rows standing for the ids
// first..first+vocab-1; other ids give rows of zeros, so that the lookups
// in the parts of a table split by rows (a table larger than a backend binds
// at once) add up to the lookup in the whole.
func EmbeddingFrom(table, ids *Tensor, first int) (*Tensor, error) {
	const op = "embedding"
	if err := needFloat(op, table, nil); err != nil {
		return nil, err
	}
	if err := ids.usable(op); err != nil {
		return nil, err
	}
	if ids.dtype != Int32 {
		return nil, invalidHint(op, "Cast the ids to Int32", "ids of dtype %s", ids.dtype)
	}
	if err := sameDevice(op, table, ids); err != nil {
		return nil, err
	}
	if len(table.shape) != 2 {
		return nil, invalid(op+" "+shapeString(table.shape), "a table of rank 2 [vocab dim]")
	}
	vocab, dim := table.shape[0], table.shape[1]
	if first < math.MinInt32 || first > math.MaxInt32-vocab {
		return nil, invalid(op, "first id %d: the ids are int32", first)
	}
	shape := append(append([]int{}, ids.shape...), dim)
	ds := table.st.ds
	out, err := empty(ds, op, table.dtype, shape)
	if err != nil {
		return nil, err
	}
	if out.Len() == 0 {
		return out, nil
	}
	ip, err := ids.packed(op)
	if err != nil {
		_ = out.Close()
		return nil, err
	}
	defer ids.closeCopy(ip)
	u := func(v int) gpu.Arg { return gpu.U32(uint32(v)) }
	n := out.Len()
	args := []gpu.Arg{gpu.Buf(out.st.buf), gpu.Buf(table.st.buf), gpu.Buf(ip.st.buf), u(int(table.dtype)), u(n), u(dim), u(vocab),
		u(ip.offset), u(table.offset), u(table.strides[0]), u(table.strides[1]), gpu.I32(int32(first))}
	if err := ds.launch("embedding", false, words(table.dtype, n), []*storage{out.st, table.st, ip.st}, args...); err != nil {
		_ = out.Close()
		return nil, wrap(err, op)
	}
	return out, nil
}

// Rotary returns the rotary position embedding of x, of shape [seq heads
// dim] (dim even; any view), in the rotate-half form (GPT-NeoX, Llama):
// position pos+s of row s turns the pair (x[p], x[p+dim/2]) by the angle
// (pos+s)·base^(-2p/dim). base is usually 10000.
func Rotary(x *Tensor, pos int, base float32) (*Tensor, error) {
	const op = "rotary"
	if err := checkRotary(op, x, base); err != nil {
		return nil, err
	}
	if pos < 0 {
		return nil, invalid(op, "position %d and base %g; want pos ≥ 0 and base > 0", pos, base)
	}
	return rotary(op, x, pos, nil, base)
}

// checkRotary is nil when x and base suit Rotary.
func checkRotary(op string, x *Tensor, base float32) error {
	if err := needFloat(op, x, nil); err != nil {
		return err
	}
	if len(x.shape) != 3 || x.shape[2]%2 != 0 {
		return invalid(op+" "+shapeString(x.shape), "a tensor [seq heads dim] with dim even")
	}
	if base <= 0 {
		return invalid(op, "base %g; want base > 0", base)
	}
	return nil
}

// rotary launches the rotary kernel on the checked x, its first row at
// position pos, or, when at is not nil, at at[0] read on the device (a
// checked position tensor).
func rotary(op string, x *Tensor, pos int, at *Tensor, base float32) (*Tensor, error) {
	ds := x.st.ds
	out, err := empty(ds, op, x.dtype, x.shape)
	if err != nil {
		return nil, err
	}
	n := out.Len() / 2
	uses := []*storage{out.st, x.st}
	posArg, posAt, pdev := gpu.Buf(x.st.buf), pos, 0
	if at != nil {
		posArg, posAt, pdev = gpu.Buf(at.st.buf), at.offset, 1
		uses = append(uses, at.st)
	}
	var args argList
	args.add(gpu.Buf(out.st.buf), gpu.Buf(x.st.buf), posArg)
	args.u32(int(x.dtype), n, x.shape[1], x.shape[2], posAt, pdev)
	args.u32(x.offset, x.strides[0], x.strides[1], x.strides[2])
	args.add(gpu.F32(float32(math.Log(float64(base)))))
	if err := ds.launch("rotary", false, n, uses, args.args()...); err != nil {
		_ = out.Close()
		return nil, wrap(err, op)
	}
	return out, nil
}

// assign copies src into dst, views of the same shape and dtype (of 4 or 2
// bytes), on the device.
func assign(op string, dst, src *Tensor) error {
	return assignView(op, dst, dst.strides, dst.offset, src)
}

// assignView is assign into the view of dst's buffer with src's shape, the
// strides dstrides and the offset doffset, without a tensor for it.
func assignView(op string, dst *Tensor, dstrides []int, doffset int, src *Tensor) error {
	n := src.Len()
	if n == 0 {
		return nil
	}
	l := coalesced(src.shape, dstrides, src.strides)
	var args argList
	args.add(gpu.Buf(dst.st.buf), gpu.Buf(src.st.buf))
	args.u32(src.dtype.Size(), n)
	args.padded(l.shape[:l.rank], MaxRank, 1)
	args.u32(doffset)
	args.padded(l.strides[0][:l.rank], MaxRank, 0)
	args.u32(src.offset)
	args.padded(l.strides[1][:l.rank], MaxRank, 0)
	return wrap(dst.st.ds.launch("scatter", false, n, []*storage{dst.st, src.st}, args.args()...), op)
}

// Concat returns the tensors (Float32, Float16 or BFloat16, one dtype)
// joined along dimension axis (negative counts from the end): they have the
// same rank and device, and the same sizes but along axis. The result is
// contiguous, copied on the device.
func Concat(axis int, ts ...*Tensor) (*Tensor, error) {
	const op = "concat"
	if len(ts) == 0 {
		return nil, invalid(op, "no tensors")
	}
	for _, t := range ts {
		if err := needFloat(op, t, ts[0]); err != nil {
			return nil, err
		}
	}
	first := ts[0]
	ax, err := normAxis(op, axis, len(first.shape), first.shape)
	if err != nil {
		return nil, err
	}
	shape := slices.Clone(first.shape)
	shape[ax] = 0
	for _, t := range ts {
		if err := sameDevice(op, first, t); err != nil {
			return nil, err
		}
		if len(t.shape) != len(first.shape) {
			return nil, invalid(op+" "+shapeString(first.shape)+" and "+shapeString(t.shape), "ranks differ")
		}
		for d := range t.shape {
			if d != ax && t.shape[d] != first.shape[d] {
				return nil, invalid(op+" "+shapeString(first.shape)+" and "+shapeString(t.shape), "dimension %d differs", d)
			}
		}
		shape[ax] += t.shape[ax]
	}
	out, err := empty(first.st.ds, op, first.dtype, shape)
	if err != nil {
		return nil, err
	}
	at := 0
	for _, t := range ts {
		part := out.view(slices.Clone(t.shape), slices.Clone(out.strides), at*out.strides[ax])
		err := assign(op, part, t)
		_ = part.Close()
		if err != nil {
			_ = out.Close()
			return nil, err
		}
		at += t.shape[ax]
	}
	return out, nil
}
