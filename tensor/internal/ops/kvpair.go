package ops

import "github.com/anygpu/gpu/kernel"

// appendKVPair is appendKV of keys k into kpool and values v into vpool at
// once, for contiguous caches ([heads ctx dim], page 0): for each of k's n
// rows i (k[i, h, d] at koff + i*ki + h*kh + d*kd, v's likewise), it writes
// kpool[h, first+i, d] and vpool[h, first+i, d], first being pos, or
// posb[pos] when pdev is not 0. Rows whose position (int32 arithmetic)
// lies outside 0..ctx-1 are not written. Elements are of dtype code dt,
// copied bit for bit. Threads take the elements grid-stride, a key and a
// value each: one launch where two appendKV would be.
//
//gpu:kernel
func appendKVPair(kpool, vpool, k, v, posb []uint32, dt, n, heads, dim, pos, pdev, ctx, koff, ki, kh, kd, voff, vi, vh, vd uint32) {
	total := n * heads * dim
	if total == 0 {
		return
	}
	first := pos
	if pdev != 0 {
		first = posb[pos]
	}
	step := kernel.GroupSizeX() * kernel.GridX()
	for e := kernel.GroupX()*kernel.GroupSizeX() + kernel.ThreadX(); e < total; e += step {
		d, h, i := e%dim, (e/dim)%heads, e/(dim*heads)
		j := first + i // as int32 arithmetic: a negative position is past ctx
		if j < ctx {
			o := (h*ctx+j)*dim + d
			ks := koff + i*ki + h*kh + d*kd
			vs := voff + i*vi + h*vh + d*vd
			if dt == DTFloat32 {
				kpool[o] = k[ks]
				vpool[o] = v[vs]
			} else {
				kb := (k[ks/2] >> ((ks % 2) * 16)) & 0xffff
				vb := (v[vs/2] >> ((vs % 2) * 16)) & 0xffff
				kernel.AtomicAnd(&kpool[o/2], otherHalf(o))
				kernel.AtomicOr(&kpool[o/2], kb<<((o%2)*16))
				kernel.AtomicAnd(&vpool[o/2], otherHalf(o))
				kernel.AtomicOr(&vpool[o/2], vb<<((o%2)*16))
			}
		}
		if last(e, step, total) {
			break
		}
	}
}
