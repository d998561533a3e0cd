// Package fp converts float32 to and from the narrow floating-point storage
// formats of package tensor: IEEE binary16, bfloat16 and the OCP 8-bit
// formats E4M3 (the FN variant: no infinities) and E5M2. Encoding rounds to
// nearest, ties to even, through subnormals; decoding is exact (every value of
// these formats is a float32).
package fp

import "math/bits"

// Format describes a binary floating-point format of at most 16 bits with a
// sign bit, Exp exponent bits and Mant mantissa bits.
type Format struct {
	Exp, Mant int
	// Inf says the all-ones exponent holds infinities (mantissa 0) and NaNs;
	// without it (E4M3 FN) only the all-ones encoding is NaN and the other
	// all-ones-exponent encodings are finite numbers.
	Inf bool
}

// The formats of package tensor.
var (
	Half   = Format{Exp: 5, Mant: 10, Inf: true}
	BFloat = Format{Exp: 8, Mant: 7, Inf: true}
	E4M3FN = Format{Exp: 4, Mant: 3, Inf: false}
	E5M2   = Format{Exp: 5, Mant: 2, Inf: true}
)

func (f Format) bias() int       { return 1<<(f.Exp-1) - 1 }
func (f Format) bits() int       { return 1 + f.Exp + f.Mant }
func (f Format) signBit() uint32 { return 1 << (f.Exp + f.Mant) }
func (f Format) expAll() uint32  { return (1<<f.Exp - 1) << f.Mant }

// MaxFinite is the encoding of the largest finite positive value.
func (f Format) MaxFinite() uint32 {
	if f.Inf {
		return f.expAll() - 1
	}
	return f.expAll() | (1<<f.Mant - 2)
}

// NaN is the canonical positive quiet NaN's encoding.
func (f Format) NaN() uint32 {
	if f.Inf {
		return f.expAll() | 1<<(f.Mant-1)
	}
	return f.expAll() | (1<<f.Mant - 1)
}

// IsNaN reports whether encoding v is a NaN.
func (f Format) IsNaN(v uint32) bool {
	a := v &^ f.signBit()
	if f.Inf {
		return a > f.expAll()
	}
	return a == f.expAll()|(1<<f.Mant-1)
}

// Decode returns the value of encoding v (its low f.bits() bits) as a float32,
// exactly. NaNs keep their sign and the top bits of their payload.
func (f Format) Decode(v uint32) float32 {
	v &= 1<<f.bits() - 1
	sign := (v & f.signBit()) << (31 - f.Exp - f.Mant)
	e := int((v >> f.Mant) & (1<<f.Exp - 1))
	m := v & (1<<f.Mant - 1)
	switch {
	case f.IsNaN(v):
		return fromBits(sign | 0x7fc00000 | m<<(23-f.Mant))
	case f.Inf && e == 1<<f.Exp-1:
		return fromBits(sign | 0x7f800000)
	case e == 0 && m == 0:
		return fromBits(sign)
	case e == 0 && f.bias() == 127:
		// A subnormal of a format with float32's exponent range (bfloat16)
		// is a float32 subnormal with the same leading mantissa bits.
		return fromBits(sign | m<<(23-f.Mant))
	case e == 0:
		// Subnormal: m·2^(1-bias-Mant); normalise into float32 (whose range
		// holds every subnormal of these formats as a normal number).
		shift := f.Mant + 1 - bits.Len32(m) // leading zeros within the field, plus one
		m = (m << shift) & (1<<f.Mant - 1)
		e = 1 - shift
	}
	return fromBits(sign | uint32(e-f.bias()+127)<<23 | m<<(23-f.Mant))
}

// Encode rounds x to the nearest value of the format, ties to even, and
// returns its encoding. Values beyond the largest finite one (after rounding)
// become infinity, or NaN in a format without infinities (E4M3 FN), as does
// an infinite x there; a NaN keeps its sign and the top bits of its payload,
// made quiet.
func (f Format) Encode(x float32) uint32 {
	b := toBits(x)
	sign := (b >> 31) << (f.Exp + f.Mant)
	a := b & 0x7fffffff
	switch {
	case a > 0x7f800000:
		if !f.Inf {
			return sign | f.NaN()
		}
		return sign | f.expAll() | 1<<(f.Mant-1) | (a&0x7fffff)>>(23-f.Mant)
	case a == 0x7f800000:
		if !f.Inf {
			return sign | f.NaN()
		}
		return sign | f.expAll()
	case a == 0:
		return sign
	}
	// x = m·2^e exactly, with te the exponent of its leading bit.
	m := uint64(a & 0x7fffff)
	e := -149
	if a>>23 != 0 {
		m |= 1 << 23
		e = int(a>>23) - 150
	}
	te := bits.Len64(m) - 1 + e
	minExp := 1 - f.bias()
	ulpExp := max(te, minExp) - f.Mant
	shift := ulpExp - e // ≥ 0: float32 is finer than every format here
	var q uint64
	if shift < 40 {
		q = m >> shift
		if shift > 0 {
			rem := m & (1<<shift - 1)
			half := uint64(1) << (shift - 1)
			if rem > half || (rem == half && q&1 == 1) {
				q++
			}
		}
	}
	var enc uint64
	if te < minExp {
		enc = q // a subnormal; q == 2^Mant is the smallest normal's encoding
	} else {
		enc = uint64(te+f.bias()-1)<<f.Mant + q
	}
	if enc > uint64(f.MaxFinite()) {
		if f.Inf {
			return sign | f.expAll()
		}
		return sign | f.NaN()
	}
	return sign | uint32(enc)
}
