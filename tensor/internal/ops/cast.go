package ops

import "github.com/anygpu/gpu/kernel"

// Dtype codes (castElems's src and dst), package tensor's DType values.
const (
	DTFloat32    = 0
	DTFloat16    = 1
	DTBFloat16   = 2
	DTInt8       = 3
	DTInt32      = 4
	DTUint8      = 5
	DTFloat8E4M3 = 6
	DTFloat8E5M2 = 7
)

// dtSize is the size in bytes of an element of dtype code dt.
func dtSize(dt uint32) uint32 {
	if dt == DTFloat16 || dt == DTBFloat16 {
		return 2
	}
	if dt == DTInt8 || dt == DTUint8 || dt == DTFloat8E4M3 || dt == DTFloat8E5M2 {
		return 1
	}
	return 4
}

// bitLen is the number of bits needed to write m (0 for 0).
func bitLen(m uint32) uint32 {
	n := uint32(0)
	for m>>n != 0 {
		n++
	}
	return n
}

// smallDecode is the value of encoding v of a float format with eb exponent
// and mb mantissa bits (hasInf: IEEE-like infinities and NaNs; else only
// the all-ones encoding is NaN, as in E4M3 FN). Its exponent range must lie
// inside float32's normal range (float16, the 8-bit formats).
func smallDecode(v, eb, mb uint32, hasInf bool) float32 {
	sb := ((v >> (eb + mb)) & 1) << 31
	e := (v >> mb) & (1<<eb - 1)
	m := v & (1<<mb - 1)
	bias := uint32(1)<<(eb-1) - 1
	if e == 1<<eb-1 && (hasInf || m == 1<<mb-1) {
		if hasInf && m == 0 {
			return kernel.Float32frombits(sb | 0x7f800000)
		}
		return kernel.Float32frombits(sb | 0x7fc00000 | m<<(23-mb))
	}
	if e == 0 {
		if m == 0 {
			return kernel.Float32frombits(sb)
		}
		// m·2^(1-bias-mb): a normal float32 times a power of two, exact.
		f := float32(m) * kernel.Float32frombits((128-bias-mb)<<23)
		if sb != 0 {
			return -f
		}
		return f
	}
	return kernel.Float32frombits(sb | (e+127-bias)<<23 | m<<(23-mb))
}

// smallEncode rounds f to the nearest value of the format of smallDecode
// (ties to even, through subnormals; beyond the largest finite value:
// infinity, or NaN without infinities) and returns its encoding; a NaN keeps
// its sign and the top of its payload, quiet. It is package fp's Encode in
// the kernel language, for formats up to 16 bits whose exponent range lies
// inside float32's (bfloat16's included).
func smallEncode(f float32, eb, mb uint32, hasInf bool) uint32 {
	b := kernel.Float32bits(f)
	sign := (b >> 31) << (eb + mb)
	a := b & 0x7fffffff
	expAll := (uint32(1)<<eb - 1) << mb
	maxFinite := expAll | (uint32(1)<<mb - 2)
	nan := expAll | (uint32(1)<<mb - 1)
	if hasInf {
		maxFinite = expAll - 1
		nan = expAll | uint32(1)<<(mb-1)
	}
	if a >= 0x7f800000 {
		if !hasInf {
			return sign | nan
		}
		if a == 0x7f800000 {
			return sign | expAll
		}
		return sign | nan | (a&0x7fffff)>>(23-mb)
	}
	if a == 0 {
		return sign
	}
	m := a & 0x7fffff
	e := int32(-149)
	if a>>23 != 0 {
		m |= 1 << 23
		e = int32(a>>23) - 150
	}
	te := int32(bitLen(m)) - 1 + e
	bias := int32(1)<<(eb-1) - 1
	minExp := 1 - bias
	shift := uint32(max(te, minExp) - int32(mb) - e)
	var q uint32
	if shift < 32 {
		q = m >> shift
		if shift > 0 {
			rem := m & (uint32(1)<<shift - 1)
			half := uint32(1) << (shift - 1)
			if rem > half || (rem == half && q&1 == 1) {
				q++
			}
		}
	}
	enc := q
	if te >= minExp {
		enc = uint32(te+bias-1)<<mb + q
	}
	if enc > maxFinite {
		if hasInf {
			return sign | expAll
		}
		return sign | nan
	}
	return sign | enc
}

// decodeElem is the value of element bits v of dtype code dt as a float32
// (integers convert exactly up to 2²⁴).
func decodeElem(v, dt uint32) float32 {
	if dt == DTFloat32 {
		return kernel.Float32frombits(v)
	} else if dt == DTFloat16 {
		return smallDecode(v, 5, 10, true)
	} else if dt == DTBFloat16 {
		return kernel.Float32frombits(v << 16)
	} else if dt == DTInt8 {
		return float32(int32(v<<24) >> 24)
	} else if dt == DTInt32 {
		return float32(int32(v))
	} else if dt == DTUint8 {
		return float32(v)
	} else if dt == DTFloat8E4M3 {
		return smallDecode(v, 4, 3, false)
	}
	return smallDecode(v, 5, 2, true)
}

// toInt32 truncates f toward zero, saturating, NaN giving 0, without
// relying on how a conversion of a NaN or an out-of-range float behaves (a
// plain Go call of a kernel differs there from a translated one).
func toInt32(f float32) int32 {
	if kernel.Float32bits(f)&0x7fffffff > 0x7f800000 {
		return 0
	}
	if f >= 2147483648 {
		return 2147483647
	}
	if f <= -2147483648 {
		return -2147483648
	}
	return int32(f)
}

// encodeElem is f as element bits of dtype code dt: floats round to nearest
// even; integers truncate toward zero and saturate to the type's range, NaN
// giving 0.
func encodeElem(f float32, dt uint32) uint32 {
	if dt == DTFloat32 {
		return kernel.Float32bits(f)
	} else if dt == DTFloat16 {
		return smallEncode(f, 5, 10, true)
	} else if dt == DTBFloat16 {
		return smallEncode(f, 8, 7, true)
	} else if dt == DTInt8 {
		return uint32(kernel.Clamp(toInt32(f), -128, 127)) & 0xff
	} else if dt == DTInt32 {
		return uint32(toInt32(f))
	} else if dt == DTUint8 {
		return uint32(kernel.Clamp(toInt32(f), 0, 255))
	} else if dt == DTFloat8E4M3 {
		return smallEncode(f, 4, 3, false)
	}
	return smallEncode(f, 5, 2, true)
}

// castElems converts the n elements of a strided view of x (dtype code src;
// offset xoff, sizes s0..s5, strides t0..t5, in elements) to dtype code dst,
// into y, contiguous. Each thread writes whole 32-bit words of y; the bytes
// of its last word past the n-th element are set to 0.
//
//gpu:kernel
func castElems(y, x []uint32, n, src, dst, xoff, s0, s1, s2, s3, s4, s5, t0, t1, t2, t3, t4, t5 uint32) {
	if n == 0 {
		return
	}
	sin, sout := dtSize(src), dtSize(dst)
	perIn, perOut := 4/sin, 4/sout
	bitsIn, bitsOut := sin*8, sout*8
	maskIn, maskOut := uint32(1)<<bitsIn-1, uint32(1)<<bitsOut-1
	words := n/perOut + (n%perOut+perOut-1)/perOut
	step := kernel.GroupSizeX() * kernel.GridX()
	r := rank6(s0, s1, s2, s3, s4)
	for w := kernel.GroupX()*kernel.GroupSizeX() + kernel.ThreadX(); w < words; w += step {
		var out uint32
		for j := uint32(0); j < perOut; j++ {
			e := w*perOut + j
			if e < n {
				at := xoff + offset6(e, r, s1, s2, s3, s4, s5, t0, t1, t2, t3, t4, t5)
				v := (x[at/perIn] >> ((at % perIn) * bitsIn)) & maskIn
				out |= (encodeElem(decodeElem(v, src), dst) & maskOut) << (j * bitsOut)
			}
		}
		y[w] = out
		if last(w, step, words) {
			break
		}
	}
}
