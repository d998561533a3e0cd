package fp

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var formats = []struct {
	name string
	f    Format
	// The format's facts, from its definition: the largest finite value, the
	// smallest positive subnormal and normal values.
	max, minSub, minNormal float64
}{
	{"float16", Half, 65504, math.Ldexp(1, -24), math.Ldexp(1, -14)},
	{"bfloat16", BFloat, math.Ldexp(0xff, 120), math.Ldexp(1, -133), math.Ldexp(1, -126)},
	{"e4m3fn", E4M3FN, 448, math.Ldexp(1, -9), math.Ldexp(1, -6)},
	{"e5m2", E5M2, 57344, math.Ldexp(1, -16), math.Ldexp(1, -14)},
}

// refValue is the value of encoding v by the textbook formula, in float64:
// (-1)^s · 2^(e-bias) · 1.m for normal numbers, (-1)^s · 2^(1-bias) · 0.m
// for subnormals; NaN or ±Inf for the special encodings.
func refValue(f Format, v uint32) float64 {
	n := 1 + f.Exp + f.Mant
	s := v >> (n - 1) & 1
	e := int(v>>f.Mant) & (1<<f.Exp - 1)
	m := float64(v & (1<<f.Mant - 1))
	bias := 1<<(f.Exp-1) - 1
	sign := 1.0
	if s == 1 {
		sign = -1
	}
	top := 1<<f.Exp - 1
	switch {
	case f.Inf && e == top && m == 0:
		return math.Inf(int(sign))
	case f.Inf && e == top:
		return math.NaN()
	case !f.Inf && e == top && m == float64(int(1)<<f.Mant-1):
		return math.NaN()
	case e == 0:
		return sign * math.Ldexp(m, 1-bias-f.Mant)
	default:
		return sign * math.Ldexp(1+m/float64(int(1)<<f.Mant), e-bias)
	}
}

func TestDecodeExhaustive(t *testing.T) {
	for _, tc := range formats {
		t.Run(tc.name, func(t *testing.T) {
			n := 1 << (1 + tc.f.Exp + tc.f.Mant)
			nans := 0
			for v := 0; v < n; v++ {
				want := refValue(tc.f, uint32(v))
				got := tc.f.Decode(uint32(v))
				if math.IsNaN(want) {
					nans++
					require.True(t, math.IsNaN(float64(got)), "decode %#x = %v, want NaN", v, got)
					require.True(t, tc.f.IsNaN(uint32(v)))
					continue
				}
				require.False(t, tc.f.IsNaN(uint32(v)))
				require.Equal(t, want, float64(got), "decode %#x", v)
				require.Equal(t, math.Signbit(want), math.Signbit(float64(got)), "sign of %#x", v)
				// Every value round-trips to its own encoding.
				require.Equal(t, uint32(v), tc.f.Encode(got), "encode(decode(%#x))", v)
			}
			assert.Equal(t, tc.max, float64(tc.f.Decode(tc.f.MaxFinite())))
			assert.Equal(t, tc.minSub, float64(tc.f.Decode(1)))
			assert.Equal(t, tc.minNormal, float64(tc.f.Decode(1<<tc.f.Mant)))
			if tc.f.Inf {
				assert.Equal(t, 2*((1<<tc.f.Mant)-1), nans, "NaN encodings")
			} else {
				assert.Equal(t, 2, nans, "NaN encodings (0x7f, 0xff)")
			}
		})
	}
}

// table is the format's finite non-negative values with their encodings,
// ascending, and, past the largest, the value the next encoding would have:
// 2^(emax+1) for IEEE-like formats (where it is infinity), the NaN
// encoding's would-be value for E4M3 FN (480).
type table struct {
	vals []float64
	encs []uint32
	top  float64 // the virtual value just past the largest finite one
}

func newTable(f Format) table {
	var tb table
	n := uint32(1) << (f.Exp + f.Mant)
	for v := uint32(0); v < n; v++ {
		x := refValue(f, v)
		if math.IsNaN(x) || math.IsInf(x, 0) {
			continue
		}
		tb.vals = append(tb.vals, x)
		tb.encs = append(tb.encs, v)
	}
	last := tb.encs[len(tb.encs)-1]
	e := int(last>>f.Mant) & (1<<f.Exp - 1)
	m := last & (1<<f.Mant - 1)
	bias := 1<<(f.Exp-1) - 1
	tb.top = math.Ldexp(1+float64(m+1)/float64(int(1)<<f.Mant), e-bias)
	return tb
}

// refEncode rounds |x| to nearest, ties to the even encoding, by searching
// the value table; the comparisons are exact in float64 (x and its
// neighbours are within a factor of two of each other, so their differences
// are exact by Sterbenz's lemma, or one of them is 0).
func refEncode(f Format, tb table, x float32) uint32 {
	sign := uint32(0)
	if math.Signbit(float64(x)) {
		sign = 1 << (f.Exp + f.Mant)
	}
	if math.IsNaN(float64(x)) {
		return sign | f.NaN()
	}
	overflow := func() uint32 {
		if f.Inf {
			return sign | f.expAll()
		}
		return sign | f.NaN()
	}
	ax := math.Abs(float64(x))
	if math.IsInf(ax, 0) {
		return overflow()
	}
	i := sort.SearchFloat64s(tb.vals, ax) // first value ≥ ax
	if i < len(tb.vals) && tb.vals[i] == ax {
		return sign | tb.encs[i]
	}
	lo := tb.vals[i-1]
	hi, hiEven := tb.top, true
	if i < len(tb.vals) {
		hi, hiEven = tb.vals[i], tb.encs[i]&1 == 0
	} else {
		// The virtual value past the largest: its encoding would be the
		// largest's plus one, so its parity is the opposite.
		hiEven = tb.encs[i-1]&1 == 1
	}
	dlo, dhi := ax-lo, hi-ax
	if dlo < dhi || (dlo == dhi && !hiEven) {
		return sign | tb.encs[i-1]
	}
	if i == len(tb.vals) {
		return overflow()
	}
	return sign | tb.encs[i]
}

func TestEncodeRoundsToNearestEven(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tc := range formats {
		t.Run(tc.name, func(t *testing.T) {
			tb := newTable(tc.f)
			check := func(x float32) {
				want := refEncode(tc.f, tb, x)
				got := tc.f.Encode(x)
				if tc.f.IsNaN(want) {
					require.True(t, tc.f.IsNaN(got), "encode(%g [%#x]) = %#x, want NaN", x, math.Float32bits(x), got)
					require.Equal(t, want&tc.f.signBit(), got&tc.f.signBit(), "NaN sign of %g", x)
					return
				}
				require.Equal(t, want, got, "encode(%g [%#x])", x, math.Float32bits(x))
			}
			// Every value, every midpoint between neighbours (a tie) and the
			// float32s on either side of it, both signs.
			vals := append(append([]float64{}, tb.vals...), tb.top)
			for i, v := range vals {
				for _, s := range []float32{1, -1} {
					check(s * float32(v))
					if i+1 < len(vals) {
						mid := float32((v + vals[i+1]) / 2)
						require.Equal(t, (v+vals[i+1])/2, float64(mid), "the midpoint is a float32")
						check(s * mid)
						check(s * math.Nextafter32(mid, 0))
						check(s * math.Nextafter32(mid, float32(math.Inf(1))))
					}
				}
			}
			// Random float32 bit patterns (every exponent) and random values
			// near the format's range.
			for range 200000 {
				check(math.Float32frombits(rng.Uint32()))
				check(float32(rng.NormFloat64() * tc.max / 4))
				check(float32(rng.NormFloat64() * tc.minNormal))
			}
			specials := []float32{0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)),
				float32(math.NaN()), -float32(math.NaN()), math.MaxFloat32, math.SmallestNonzeroFloat32,
				float32(tc.max), float32(tc.minSub / 2), float32(tc.minSub / 2 * 1.0000001)}
			for _, x := range specials {
				check(x)
			}
		})
	}
}

// TestEncodeFacts pins facts of each format's definition that the rounding
// reference could share a misunderstanding of.
func TestEncodeFacts(t *testing.T) {
	tests := []struct {
		name string
		f    Format
		x    float32
		want uint32
	}{
		{"f16 one", Half, 1, 0x3c00},
		{"f16 max", Half, 65504, 0x7bff},
		{"f16 65519 rounds to max", Half, 65519, 0x7bff},
		{"f16 65520 (tie past max) overflows", Half, 65520, 0x7c00},
		{"f16 smallest subnormal", Half, float32(math.Ldexp(1, -24)), 0x0001},
		{"f16 half the smallest subnormal ties to zero", Half, float32(math.Ldexp(1, -25)), 0x0000},
		{"f16 1+2^-11 ties to even 1", Half, 1 + float32(math.Ldexp(1, -11)), 0x3c00},
		{"f16 1+3·2^-11 ties to even 1+2^-9", Half, 1 + float32(math.Ldexp(3, -11)), 0x3c02},
		{"f16 -2", Half, -2, 0xc000},
		{"bf16 one", BFloat, 1, 0x3f80},
		{"bf16 pi", BFloat, math.Pi, 0x4049},
		{"bf16 max float32 overflows", BFloat, math.MaxFloat32, 0x7f80},
		{"e4m3 max", E4M3FN, 448, 0x7e},
		{"e4m3 464 (tie) rounds to max", E4M3FN, 464, 0x7e},
		{"e4m3 465 is NaN", E4M3FN, 465, 0x7f},
		{"e4m3 -inf is NaN", E4M3FN, float32(math.Inf(-1)), 0xff},
		{"e4m3 smallest subnormal", E4M3FN, float32(math.Ldexp(1, -9)), 0x01},
		{"e4m3 one", E4M3FN, 1, 0x38},
		{"e5m2 max", E5M2, 57344, 0x7b},
		{"e5m2 61440 (tie past max) overflows", E5M2, 61440, 0x7c},
		{"e5m2 one", E5M2, 1, 0x3c},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, tc.f.Encode(tc.x), "%#x", tc.f.Encode(tc.x))
		})
	}
}
