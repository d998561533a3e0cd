package ops

import "github.com/anygpu/gpu/kernel"

// gather copies the n elements of a strided view of x (esize bytes each: 1, 2
// or 4; offset xoff and strides t0..t5 in elements, sizes s0..s5) into y,
// contiguous. Each thread writes whole 32-bit words of y (4/esize elements),
// so no two threads write the same word; the bytes of y's last word past the
// n-th element are set to 0.
//
//gpu:kernel
func gather(y, x []uint32, n, esize, xoff, s0, s1, s2, s3, s4, s5, t0, t1, t2, t3, t4, t5 uint32) {
	if n == 0 {
		return
	}
	per := 4 / esize // elements per word
	bitsPer := esize * 8
	mask := uint32(1)<<bitsPer - 1 // 0xffffffff for 4-byte elements (1<<32 is 0)
	words := n/per + (n%per+per-1)/per
	step := kernel.GroupSizeX() * kernel.GridX()
	r := rank6(s0, s1, s2, s3, s4)
	for w := kernel.GroupX()*kernel.GroupSizeX() + kernel.ThreadX(); w < words; w += step {
		var out uint32
		for j := uint32(0); j < per; j++ {
			e := w*per + j
			if e < n {
				src := xoff + offset6(e, r, s1, s2, s3, s4, s5, t0, t1, t2, t3, t4, t5)
				v := (x[src/per] >> ((src % per) * bitsPer)) & mask
				out |= v << (j * bitsPer)
			}
		}
		y[w] = out
		if last(w, step, words) {
			break
		}
	}
}
