package kernel_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu/kernel"
	"github.com/anygpu/gpu/kernel/internal/kmath"
)

// nearestBFloat16 rounds x to bfloat16 by the definition: of the two
// bfloat16s around x (float32s whose low 16 bits are zero), the nearer, ties
// to the one with an even significand.
func nearestBFloat16(x float32) float64 {
	b := math.Float32bits(x)
	lo := float64(math.Float32frombits(b &^ 0xffff))
	hi := float64(math.Float32frombits((b &^ 0xffff) + 0x10000))
	if math.IsInf(hi, 0) { // beyond the largest: the next step, 2**128, stands for the infinity
		hi = math.Copysign(math.Ldexp(1, 128), hi)
	}
	below, above := math.Abs(float64(x)-lo), math.Abs(hi-float64(x))
	r := hi
	switch {
	case below < above:
		r = lo
	case above < below:
	case (b>>16)&1 == 0:
		r = lo
	}
	if math.Abs(r) == math.Ldexp(1, 128) {
		return math.Copysign(math.Inf(1), r)
	}
	return r
}

// matMulReference is c + a·b in float64 from the operands rounded by the
// definitions, for the shape's strides.
func matMulReference(c, a, b []float32, s kernel.MatMul) []float64 {
	round := func(x float32) float64 {
		switch s.Precision {
		case kernel.PrecisionBFloat16:
			return nearestBFloat16(x)
		case kernel.PrecisionFloat16:
			return halfValue(nearestHalf(float64(x)))
		}
		return float64(x)
	}
	out := make([]float64, len(c))
	for i, v := range c {
		out[i] = float64(v)
	}
	for i := range s.M {
		for j := range s.N {
			var sum float64
			for k := range s.K {
				bv := b[k*s.LDB+j]
				if s.TransposeB {
					bv = b[j*s.LDB+k]
				}
				sum += round(a[i*s.LDA+k]) * round(bv)
			}
			out[i*s.LDC+j] += sum
		}
	}
	return out
}

// TestMatMulAddPlainGo checks a plain Go call of MatMulAdd (the code the CPU
// backend runs for it) against the definition, computed in float64: every
// shape, layout and precision within float32 summation error, and the
// 16-bit precisions really rounding (far from the float32 product).
func TestMatMulAddPlainGo(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	fill := func(s []float32) {
		for i := range s {
			s[i] = float32(r.Float64()*2 - 1)
		}
	}
	tests := []struct {
		name string
		s    kernel.MatMul
	}{
		{"float32 16x16x16", kernel.MatMul{M: 16, N: 16, K: 16}},
		{"float32 padded 32x16x48", kernel.MatMul{M: 32, N: 16, K: 48, LDA: 52, LDB: 20, LDC: 17}},
		{"bfloat16 transposed 16x32x64", kernel.MatMul{M: 16, N: 32, K: 64, TransposeB: true, Precision: kernel.PrecisionBFloat16}},
		{"bfloat16 48x16x32", kernel.MatMul{M: 48, N: 16, K: 32, LDC: 24, Precision: kernel.PrecisionBFloat16}},
		{"float16 transposed padded 16x16x32", kernel.MatMul{M: 16, N: 16, K: 32, LDB: 40, TransposeB: true, Precision: kernel.PrecisionFloat16}},
		{"float16 32x32x16", kernel.MatMul{M: 32, N: 32, K: 16, Precision: kernel.PrecisionFloat16}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := tt.s
			if s.LDA == 0 {
				s.LDA = s.K
			}
			if s.LDB == 0 {
				s.LDB = s.N
				if s.TransposeB {
					s.LDB = s.K
				}
			}
			if s.LDC == 0 {
				s.LDC = s.N
			}
			var c, a, b, c32 [4096]float32
			fill(c[:])
			fill(a[:])
			fill(b[:])
			want := matMulReference(c[:], a[:], b[:], s)
			exact := matMulReference(c[:], a[:], b[:], kernel.MatMul{M: s.M, N: s.N, K: s.K, LDA: s.LDA, LDB: s.LDB, LDC: s.LDC, TransposeB: s.TransposeB})
			c32 = c
			kernel.MatMulAdd(&c, &a, &b, tt.s)
			farthest := 0.0
			for i := range c {
				if i%s.LDC >= s.N || i/s.LDC >= s.M {
					require.Equal(t, c32[i], c[i], "element %d outside the tile is unchanged", i)
					continue
				}
				require.InDelta(t, want[i], float64(c[i]), 1e-5*float64(s.K), "element %d", i)
				farthest = max(farthest, math.Abs(exact[i]-want[i]))
			}
			if s.Precision != kernel.PrecisionFloat32 {
				assert.Greater(t, farthest, 1e-3, "the operands were rounded: the result is not the float32 product")
			}
		})
	}
}

// TestMatMulAddPlainGoMisuse checks that a plain Go call the translator
// would reject panics, as an index out of range does.
func TestMatMulAddPlainGoMisuse(t *testing.T) {
	var c, a, b [256]float32
	var short [255]float32
	var ints [256]int32
	tests := []struct {
		name string
		call func()
	}{
		{"too short", func() { kernel.MatMulAdd(&c, &a, &short, kernel.MatMul{M: 16, N: 16, K: 16}) }},
		{"not float32", func() { kernel.MatMulAdd(&c, &a, &ints, kernel.MatMul{M: 16, N: 16, K: 16}) }},
		{"not a multiple of 16", func() { kernel.MatMulAdd(&c, &a, &b, kernel.MatMul{M: 16, N: 8, K: 16}) }},
		{"stride below the row", func() { kernel.MatMulAdd(&c, &a, &b, kernel.MatMul{M: 16, N: 16, K: 16, LDA: 8}) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { assert.Panics(t, tt.call) })
	}
}

// TestRoundBFloat16MatchesTheDefinition checks MatMulAdd's bfloat16
// rounding on ties, their neighbours, subnormals, the overflow and random
// float32s against the definition.
func TestRoundBFloat16MatchesTheDefinition(t *testing.T) {
	xs := []float32{1 + 1.0/256, 1 + 3.0/256, math.Float32frombits(0x3f808001), math.Float32frombits(0x3f807fff),
		math.Float32frombits(0x7f7fffff), math.Float32frombits(0x7f7f7fff), math.Float32frombits(0x00018000), math.Float32frombits(1)}
	r := rand.New(rand.NewPCG(5, 6))
	for range 1 << 18 {
		xs = append(xs, math.Float32frombits(r.Uint32()))
	}
	for _, x := range xs {
		for _, v := range []float32{x, -x} {
			got := float64(kmath.RoundBFloat16(v))
			if math.IsNaN(float64(v)) {
				require.True(t, math.IsNaN(got), "NaN %#08x", math.Float32bits(v))
				continue
			}
			want := nearestBFloat16(v)
			if math.IsInf(float64(v), 0) {
				want = float64(v)
			}
			require.Equal(t, want, got, "RoundBFloat16(%g = %#08x)", v, math.Float32bits(v))
		}
	}
}
