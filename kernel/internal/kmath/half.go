package kmath

import "math"

// HalfFromFloat32 rounds x to the nearest IEEE 754 binary16 value, ties to
// even, and returns its bits: values beyond the largest finite half (65504)
// that round past it become infinities, values below the smallest subnormal
// half's halfway point (2**-25) become zeros of x's sign, and a NaN stays a
// quiet NaN that keeps the top ten bits of its payload. It uses integer
// operations only, as the GPU dialects' copy of it (package opt) does.
func HalfFromFloat32(x float32) uint16 {
	b := math.Float32bits(x)
	sign := (b >> 16) & 0x8000
	a := b & 0x7fffffff
	switch {
	case a > 0x7f800000: // NaN
		return uint16(sign | 0x7e00 | (a>>13)&0x3ff)
	case a >= 0x477ff000: // 65520 or more (Inf included) rounds to Inf
		return uint16(sign | 0x7c00)
	case a >= 0x38800000: // a normal half (2**-14 or more): rebias, round off 13 bits
		m := a - 0x38000000
		return uint16(sign | (m+0xfff+(m>>13)&1)>>13)
	case a <= 0x33000000: // 2**-25 or less rounds to zero
		return uint16(sign)
	}
	// A subnormal half: the significand in units of 2**-24, rounded.
	e := a >> 23
	m := a&0x7fffff | 0x800000
	shift := 126 - e
	r := m >> shift
	rest := m & (1<<shift - 1)
	half := uint32(1) << (shift - 1)
	if rest > half || rest == half && r&1 == 1 {
		r++
	}
	return uint16(sign | r)
}

// Float32FromHalf is the binary16 value with bits h as a float32 (exact:
// every half is a float32).
func Float32FromHalf(h uint16) float32 {
	v := uint32(h)
	sign := (v & 0x8000) << 16
	e := (v >> 10) & 0x1f
	m := v & 0x3ff
	switch {
	case e == 0x1f: // Inf or NaN
		return math.Float32frombits(sign | 0x7f800000 | m<<13)
	case e != 0:
		return math.Float32frombits(sign | (e+112)<<23 | m<<13)
	case m == 0:
		return math.Float32frombits(sign)
	}
	e = 113 // a subnormal: normalize
	for m&0x400 == 0 {
		m <<= 1
		e--
	}
	return math.Float32frombits(sign | e<<23 | (m&0x3ff)<<13)
}
