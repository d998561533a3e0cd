package tensor

import "github.com/anygpu/gpu"

// Cast returns x converted to dtype d, contiguous, on the device: floats
// round to nearest even (through subnormals; beyond the range: ±Inf, or NaN
// for Float8E4M3, which has no infinities), integers truncate toward zero
// and saturate, NaN giving 0. Casting to x's own dtype is Contiguous.
func Cast(x *Tensor, d DType) (*Tensor, error) {
	const op = "cast"
	if err := x.usable(op); err != nil {
		return nil, err
	}
	if !d.Valid() {
		return nil, invalid(op, "unknown dtype %d", int(d))
	}
	if d == x.dtype {
		return x.Contiguous()
	}
	ds := x.st.ds
	out, err := empty(ds, op, d, x.shape)
	if err != nil {
		return nil, err
	}
	n := x.Len()
	per := 4 / d.Size()
	words := (n + per - 1) / per
	var a argList
	a.add(gpu.Buf(out.st.buf), gpu.Buf(x.st.buf))
	a.u32(n, int(x.dtype), int(d))
	l := coalesced(x.shape, x.strides)
	a.view(x.offset, l.shape[:l.rank], l.strides[0][:l.rank])
	if err := ds.launch("castElems", false, words, []*storage{out.st, x.st}, a.args()...); err != nil {
		_ = out.Close()
		return nil, wrap(err, op)
	}
	return out, nil
}
