package ops

import "github.com/anygpu/gpu/kernel"

// embedding sets y[r·dim + c] = table[toff + (ids[idoff + r] - first)·trow +
// c·tcol] for the rows r < n/dim of ids (contiguous from idoff) and the
// columns c < dim: the table's rows stand for ids first..first+vocab-1, and
// any other id gives a row of zeros (the device cannot report it without a
// transfer), so the lookups in a table split by rows add up.
//
//gpu:kernel
func embedding(y, table []float32, ids []int32, n, dim, vocab, idoff, toff, trow, tcol uint32, first int32) {
	if n == 0 {
		return
	}
	step := kernel.GroupSizeX() * kernel.GridX()
	for i := kernel.GroupX()*kernel.GroupSizeX() + kernel.ThreadX(); i < n; i += step {
		r, c := i/dim, i%dim
		id := ids[idoff+r] - first
		var v float32
		if id >= 0 && uint32(id) < vocab {
			v = table[toff+uint32(id)*trow+c*tcol]
		}
		y[i] = v
		if last(i, step, n) {
			break
		}
	}
}

// rotary applies the rotary position embedding (the rotate-half form of
// GPT-NeoX and Llama) to a view x[s, h, d] (offset xoff, strides xs, xh,
// xd; s < seq, h < heads, d < dim, dim even) into y, contiguous
// [seq, heads, dim]: with half = dim/2 and θ = (pos+s)·base^(-2p/dim) for
// p < half, y[p] = x[p]·cos θ - x[p+half]·sin θ and
// y[p+half] = x[p+half]·cos θ + x[p]·sin θ. lnBase is ln(base). n is
// seq·heads·half, one thread per pair.
//
//gpu:kernel
func rotary(y, x []float32, n, heads, dim, pos, xoff, xs, xh, xd uint32, lnBase float32) {
	if n == 0 {
		return
	}
	half := dim / 2
	step := kernel.GroupSizeX() * kernel.GridX()
	for i := kernel.GroupX()*kernel.GroupSizeX() + kernel.ThreadX(); i < n; i += step {
		p := i % half
		row := i / half // s·heads + h
		h, s := row%heads, row/heads
		theta := float32(pos+s) * kernel.Exp(-float32(2*p)/float32(dim)*lnBase)
		co, si := kernel.Cos(theta), kernel.Sin(theta)
		base := xoff + s*xs + h*xh
		u, v := x[base+p*xd], x[base+(p+half)*xd]
		o := row * dim
		y[o+p] = u*co - v*si
		y[o+p+half] = v*co + u*si
		if last(i, step, n) {
			break
		}
	}
}

// scatter sets y_view[i] = x_view[i] for the n elements of shape s0..s5:
// both are strided views (offsets yoff, xoff; strides yt*, xt*). The
// destination view must not overlap itself (no stride 0 where its size is
// more than 1). It writes a KV cache's new positions.
//
//gpu:kernel
func scatter(y, x []float32, n, s0, s1, s2, s3, s4, s5, yoff, yt0, yt1, yt2, yt3, yt4, yt5, xoff, xt0, xt1, xt2, xt3, xt4, xt5 uint32) {
	if n == 0 {
		return
	}
	step := kernel.GroupSizeX() * kernel.GridX()
	r := rank6(s0, s1, s2, s3, s4)
	for i := kernel.GroupX()*kernel.GroupSizeX() + kernel.ThreadX(); i < n; i += step {
		y[yoff+offset6(i, r, s1, s2, s3, s4, s5, yt0, yt1, yt2, yt3, yt4, yt5)] = x[xoff+offset6(i, r, s1, s2, s3, s4, s5, xt0, xt1, xt2, xt3, xt4, xt5)]
		if last(i, step, n) {
			break
		}
	}
}
