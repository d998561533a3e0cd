package ops

import "github.com/anygpu/gpu/kernel"

// embedding sets y[r·dim + c] = table[toff + (ids[idoff + r] - first)·trow +
// c·tcol] for the rows r < n/dim of ids (contiguous from idoff) and the
// columns c < dim: the table's rows stand for ids first..first+vocab-1, and
// any other id gives a row of zeros (the device cannot report it without a transfer),
// so the lookups in a table split by rows add up. y and table are of dtype
// code dt; each thread writes whole words of y (perWord elements), copying
// the table's elements' bits.
//
//gpu:kernel
func embedding(y, table []uint32, ids []int32, dt, n, dim, vocab, idoff, toff, trow, tcol uint32, first int32) {
	if n == 0 {
		return
	}
	per := perWord(dt)
	bitsPer := 32 / per
	words := (n + per - 1) / per
	step := kernel.GroupSizeX() * kernel.GridX()
	for w := kernel.GroupX()*kernel.GroupSizeX() + kernel.ThreadX(); w < words; w += step {
		var out uint32
		for j := uint32(0); j < per; j++ {
			i := w*per + j
			if i < n {
				r, c := i/dim, i%dim
				id := ids[idoff+r] - first
				if id >= 0 && uint32(id) < vocab {
					at := toff + uint32(id)*trow + c*tcol
					v := table[wordOf(at, dt)]
					if per == 2 {
						v = (v >> ((at % 2) * 16)) & 0xffff
					}
					out |= v << (j * bitsPer)
				}
			}
		}
		y[w] = out
		if last(w, step, words) {
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
// seq·heads·half, one thread per pair. x and y are of dtype code dt.
// With pdev ≠ 0 the first row's position is posb[pos] (an int32 tensor's
// element, read on the device), not pos; positions are int32 (a negative
// one turns the other way). With pdev 0, posb is any buffer of the launch.
//
//gpu:kernel
func rotary(y, x, posb []uint32, dt, n, heads, dim, pos, pdev, xoff, xs, xh, xd uint32, lnBase float32) {
	if n == 0 {
		return
	}
	first := pos
	if pdev != 0 {
		first = posb[pos]
	}
	half := dim / 2
	step := kernel.GroupSizeX() * kernel.GridX()
	for i := kernel.GroupX()*kernel.GroupSizeX() + kernel.ThreadX(); i < n; i += step {
		p := i % half
		row := i / half // s·heads + h
		h, s := row%heads, row/heads
		theta := float32(int32(first+s)) * kernel.Exp(-float32(2*p)/float32(dim)*lnBase)
		co, si := kernel.Cos(theta), kernel.Sin(theta)
		base := xoff + s*xs + h*xh
		xa, xb := base+p*xd, base+(p+half)*xd
		u, v := kernel.Float32frombits(bitsOf(x[wordOf(xa, dt)], dt, xa)), kernel.Float32frombits(bitsOf(x[wordOf(xb, dt)], dt, xb))
		o := row*dim + p
		oh := o + half
		if dt == DTFloat32 {
			y[o] = kernel.Float32bits(u*co - v*si)
		} else {
			kernel.AtomicAnd(&y[o/2], otherHalf(o))
			kernel.AtomicOr(&y[o/2], halfBits(u*co-v*si, dt, o))
		}
		if dt == DTFloat32 {
			y[oh] = kernel.Float32bits(v*co + u*si)
		} else {
			kernel.AtomicAnd(&y[oh/2], otherHalf(oh))
			kernel.AtomicOr(&y[oh/2], halfBits(v*co+u*si, dt, oh))
		}
		if last(i, step, n) {
			break
		}
	}
}

// scatter sets y_view[i] = x_view[i] for the n elements of shape s0..s5:
// both are strided views (offsets yoff, xoff; strides yt*, xt*). The
// destination view must not overlap itself (no stride 0 where its size is
// more than 1). It writes a KV cache's new positions. Elements are esize
// bytes (4 or 2), copied as bits; a 2-byte one is an atomic update of its
// half of the word.
//
//gpu:kernel
func scatter(y, x []uint32, esize, n, s0, s1, s2, s3, s4, s5, yoff, yt0, yt1, yt2, yt3, yt4, yt5, xoff, xt0, xt1, xt2, xt3, xt4, xt5 uint32) {
	if n == 0 {
		return
	}
	step := kernel.GroupSizeX() * kernel.GridX()
	r := rank6(s0, s1, s2, s3, s4)
	for i := kernel.GroupX()*kernel.GroupSizeX() + kernel.ThreadX(); i < n; i += step {
		o := yoff + offset6(i, r, s1, s2, s3, s4, s5, yt0, yt1, yt2, yt3, yt4, yt5)
		at := xoff + offset6(i, r, s1, s2, s3, s4, s5, xt0, xt1, xt2, xt3, xt4, xt5)
		if esize == 4 {
			y[o] = x[at]
		} else {
			v := (x[at/2] >> ((at % 2) * 16)) & 0xffff
			kernel.AtomicAnd(&y[o/2], otherHalf(o))
			kernel.AtomicOr(&y[o/2], v<<((o%2)*16))
		}
		if last(i, step, n) {
			break
		}
	}
}
