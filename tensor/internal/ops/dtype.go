package ops

import "github.com/anygpu/gpu/kernel"

// The float ops take tensors of dtype DTFloat32, DTFloat16 or DTBFloat16 as
// []uint32 buffers and a dtype code: an element at index at (in elements of
// the dtype) is word at of a float32 buffer, or half at%2 (the low half
// first) of word at/2 of a 16-bit one. Arithmetic is in float32: a load
// (bitsOf) widens an element exactly and a store (encode16, halfBits)
// rounds to nearest even. Helpers cannot take buffers, so the kernels index
// the words themselves.

// wordOf is the index of the word of a float buffer of dtype code dt that
// holds element at.
func wordOf(at, dt uint32) uint32 {
	if dt == DTFloat32 {
		return at
	}
	return at / 2
}

// bitsOf is the float32 bits of element at of dtype code dt, from w, the
// word that holds it: w itself for float32. A load is
// kernel.Float32frombits(bitsOf(x[wordOf(at, dt)], dt, at)). bitsOf is
// small enough for Go to inline (the CPU backend runs kernels as Go), so
// that a float32 load costs a branch and no call.
func bitsOf(w, dt, at uint32) uint32 {
	if dt != DTFloat32 {
		return half16(w, dt, at)
	}
	return w
}

// half16 is bitsOf for the 16-bit dtypes.
func half16(w, dt, at uint32) uint32 {
	v := (w >> ((at % 2) * 16)) & 0xffff
	if dt == DTBFloat16 {
		return v << 16
	}
	return kernel.Float32bits(smallDecode(v, 5, 10, true))
}

// bf16Bits rounds f to the nearest bfloat16, ties to even, and returns its
// bits: the top half of f's after adding half an ulp of bfloat16 less one
// (plus one when the kept half is odd). Subnormals round alike, since the
// two formats share their exponent range; a NaN stays a quiet NaN with its
// sign and the top of its payload (as smallEncode(f, 8, 7, true)).
func bf16Bits(f float32) uint32 {
	b := kernel.Float32bits(f)
	if b&0x7fffffff > 0x7f800000 {
		return (b >> 16) | 0x40
	}
	return (b + 0x7fff + ((b >> 16) & 1)) >> 16
}

// encode16 is f rounded to nearest even to dtype code dt (DTFloat16 or
// DTBFloat16), as bits in the low half.
func encode16(f float32, dt uint32) uint32 {
	if dt == DTBFloat16 {
		return bf16Bits(f)
	}
	return smallEncode(f, 5, 10, true)
}

// A kernel stores f to element at of a float buffer y of dtype code dt so:
//
//	if dt == DTFloat32 {
//		y[at] = kernel.Float32bits(f)
//	} else {
//		kernel.AtomicAnd(&y[at/2], otherHalf(at))
//		kernel.AtomicOr(&y[at/2], halfBits(f, dt, at))
//	}
//
// A 16-bit element is an atomic update of its half of the word (clear it,
// then set it), so elements sharing a word may be written by different
// threads, even of different groups.

// otherHalf is the mask of the half of element at's word that is not it.
func otherHalf(at uint32) uint32 {
	return ^(uint32(0xffff) << ((at % 2) * 16))
}

// halfBits is f rounded to dtype code dt (16-bit), in element at's half of
// its word.
func halfBits(f float32, dt, at uint32) uint32 {
	return encode16(f, dt) << ((at % 2) * 16)
}

// perWord is the number of elements of dtype code dt in a 32-bit word: 1 for
// float32, 2 for the 16-bit floats.
func perWord(dt uint32) uint32 {
	if dt == DTFloat32 {
		return 1
	}
	return 2
}
