package kernel_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu/kernel"
)

// halfValue is the value of binary16 bits h by the format's definition:
// (-1)**s * 2**(e-15) * (1 + m/1024) for a normal, (-1)**s * 2**-14 * m/1024
// for a subnormal; e == 31 is Inf (m == 0) or NaN.
func halfValue(h uint16) float64 {
	s, e, m := h>>15, int(h>>10)&0x1f, float64(h&0x3ff)
	var v float64
	switch e {
	case 31:
		if m != 0 {
			return math.NaN()
		}
		v = math.Inf(1)
	case 0:
		v = math.Ldexp(m/1024, -14)
	default:
		v = math.Ldexp(1+m/1024, e-15)
	}
	if s == 1 {
		v = -v
	}
	return v
}

// nearestHalf rounds x to binary16 by the definition: the nearest of the
// finite halves, ties to the one with an even significand, and beyond the
// largest (65504) by half its spacing (65520) or more to Inf.
func nearestHalf(x float64) uint16 {
	sign := uint16(0)
	if math.Signbit(x) {
		sign, x = 0x8000, -x
	}
	if x >= 65520 {
		return sign | 0x7c00
	}
	// The positive finite halves increase with their bits 0..0x7bff.
	lo, hi := uint16(0), uint16(0x7bff)
	for lo < hi { // the greatest half ≤ x
		mid := (lo + hi + 1) / 2
		if halfValue(mid) <= x {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	if lo == 0x7bff {
		return sign | lo
	}
	below, above := x-halfValue(lo), halfValue(lo+1)-x
	switch {
	case below < above:
		return sign | lo
	case above < below:
		return sign | (lo + 1)
	case lo&1 == 0:
		return sign | lo
	}
	return sign | (lo + 1)
}

func TestToFloat32EveryHalf(t *testing.T) {
	for h := range 1 << 16 {
		got := kernel.ToFloat32(kernel.Float16(h))
		want := halfValue(uint16(h))
		if math.IsNaN(want) {
			require.True(t, math.IsNaN(float64(got)), "half %#04x", h)
			require.Equal(t, uint32(h&0x3ff), math.Float32bits(got)>>13&0x3ff, "half %#04x keeps its payload", h)
			continue
		}
		require.Equal(t, want, float64(got), "half %#04x", h)
		require.Equal(t, math.Signbit(want), math.Signbit(float64(got)), "half %#04x", h)
	}
}

func TestToFloat16(t *testing.T) {
	tests := []struct {
		name string
		x    float32
		want uint16
	}{
		{"one", 1, 0x3c00},
		{"minus two", -2, 0xc000},
		{"largest", 65504, 0x7bff},
		{"just under the overflow tie", math.Float32frombits(0x477fefff), 0x7bff},
		{"the overflow tie rounds to Inf", 65520, 0x7c00},
		{"Inf", float32(math.Inf(1)), 0x7c00},
		{"minus Inf", float32(math.Inf(-1)), 0xfc00},
		{"plus zero", 0, 0x0000},
		{"minus zero", float32(math.Copysign(0, -1)), 0x8000},
		{"smallest normal", 1.0 / 16384, 0x0400},
		{"smallest subnormal", 1.0 / 16777216, 0x0001},
		{"the zero tie goes to zero", 1.0 / 33554432, 0x0000},
		{"just over the zero tie", math.Float32frombits(0x33000001), 0x0001},
		{"a subnormal tie to even (1.5 units)", 1.5 / 16777216, 0x0002},
		{"a subnormal tie to even (2.5 units)", 2.5 / 16777216, 0x0002},
		{"a normal tie to even", 1 + 1.0/2048, 0x3c00},
		{"a normal tie up to even", 1 + 3.0/2048, 0x3c02},
		{"a float32 subnormal", math.Float32frombits(1), 0x0000},
		{"a quiet NaN", math.Float32frombits(0x7fc00000), 0x7e00},
		{"a signalling NaN becomes quiet", math.Float32frombits(0xff800001), 0xfe00},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, uint16(kernel.ToFloat16(tt.x)), "ToFloat16(%g)", tt.x)
			if !math.IsNaN(float64(tt.x)) {
				assert.Equal(t, tt.want, nearestHalf(float64(tt.x)), "the definition of %g", tt.x)
			}
		})
	}
}

func TestToFloat16MatchesTheDefinition(t *testing.T) {
	var xs []float32
	// Every finite half, the float32s either side of it and of the midpoints
	// between neighbours (where rounding decides).
	for h := uint16(0); h < 0x7bff; h++ {
		a, b := halfValue(h), halfValue(h+1)
		for _, v := range []float32{float32(a), float32((a + b) / 2)} {
			xs = append(xs, v, math.Nextafter32(v, 0), math.Nextafter32(v, float32(math.Inf(1))))
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 1 << 20 {
		xs = append(xs, math.Float32frombits(r.Uint32()))
	}
	for _, x := range xs {
		for _, v := range []float32{x, -x} {
			got := uint16(kernel.ToFloat16(v))
			if math.IsNaN(float64(v)) {
				require.Equal(t, uint16(0x7c00), got&0x7c00, "NaN %#08x", math.Float32bits(v))
				require.NotZero(t, got&0x200, "NaN %#08x is quiet", math.Float32bits(v))
				continue
			}
			require.Equal(t, nearestHalf(float64(v)), got, "ToFloat16(%g = %#08x)", v, math.Float32bits(v))
		}
	}
}

func TestFloat16RoundTrip(t *testing.T) {
	for h := range 1 << 16 {
		if h&0x7c00 == 0x7c00 && h&0x3ff != 0 {
			continue // NaN: quieted
		}
		require.Equal(t, uint16(h), uint16(kernel.ToFloat16(kernel.ToFloat32(kernel.Float16(h)))), "half %#04x", h)
	}
}
