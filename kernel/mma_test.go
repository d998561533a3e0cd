package kernel_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu/kernel"
)

// packEdges are float32s where rounding to bfloat16 or float16 decides:
// ties either way, just off ties, overflow, subnormals of both formats,
// infinities, zeros and NaNs (quiet, signalling, negative, with payloads).
var packEdges = []float32{
	0, float32(math.Copysign(0, -1)), 1, -2, 3.14159, -0.1,
	// bfloat16: ties to even down (1 + 2**-8) and up (1 + 3·2**-8), off ties, overflow.
	1 + 1.0/256, 1 + 3.0/256, -(1 + 5.0/256), math.Float32frombits(0x3f808001), math.Float32frombits(0x3f807fff),
	math.MaxFloat32, math.Float32frombits(0x7f7f8000), math.Float32frombits(0x7f7f7fff), math.Float32frombits(0x7f7e8000),
	// float32 subnormals (bfloat16 keeps them).
	math.Float32frombits(1), math.Float32frombits(0x8000), math.Float32frombits(0x18000), math.Float32frombits(0x807fffff),
	// float16: ties, the largest half, overflow, subnormal halves and their ties, the smallest normal.
	1 + 1.0/2048, 1 + 3.0/2048, 65504, 65519.99, 65520, -65520, 1e6,
	0x1p-24, 0x1p-25, 1.5 * 0x1p-24, 2.5 * 0x1p-24, -3.5 * 0x1p-24, math.Float32frombits(0x33000001), 0x1p-14, 0x1p-14 - 0x1p-25,
	float32(math.Inf(1)), float32(math.Inf(-1)),
	float32(math.NaN()), math.Float32frombits(0x7f800001), math.Float32frombits(0xffc00001), math.Float32frombits(0x7fbfffff),
}

// isNaN32 reports whether x is a NaN.
func isNaN32(x float32) bool { return x != x }

// TestPackHalves checks kernel.PackHalves as plain Go (the CPU's code)
// against the formats' definitions: each value rounded to the nearest,
// ties to even, lo in the low half; a NaN stays a quiet NaN of its sign.
func TestPackHalves(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	xs := append([]float32{}, packEdges...)
	for range 4000 {
		xs = append(xs, math.Float32frombits(r.Uint32()))
	}
	tests := []struct {
		name string
		p    kernel.Precision
		want func(x float32) uint16
		nan  func(h uint16) bool // a quiet NaN
	}{
		{"bfloat16", kernel.PrecisionBFloat16, func(x float32) uint16 {
			v := nearestBFloat16(x)
			return uint16(math.Float32bits(float32(v)) >> 16)
		}, func(h uint16) bool { return h&0x7f80 == 0x7f80 && h&0x40 != 0 }},
		{"float16", kernel.PrecisionFloat16, func(x float32) uint16 { return nearestHalf(float64(x)) },
			func(h uint16) bool { return h&0x7c00 == 0x7c00 && h&0x200 != 0 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for i, lo := range xs {
				hi := xs[(i*7+3)%len(xs)]
				w := kernel.PackHalves(lo, hi, tt.p)
				for _, h := range []struct {
					x    float32
					bits uint16
				}{{lo, uint16(w)}, {hi, uint16(w >> 16)}} {
					if isNaN32(h.x) {
						require.True(t, tt.nan(h.bits), "PackHalves of NaN %#x gave %#x", math.Float32bits(h.x), h.bits)
						require.Equal(t, uint16(math.Float32bits(h.x)>>16)&0x8000, h.bits&0x8000, "NaN %#x keeps its sign", math.Float32bits(h.x))
						continue
					}
					require.Equal(t, tt.want(h.x), h.bits, "PackHalves of %g (%#x)", h.x, math.Float32bits(h.x))
				}
			}
		})
	}
}

// TestPackHalvesOrder checks that lo goes to the low half.
func TestPackHalvesOrder(t *testing.T) {
	assert.Equal(t, uint32(0x40003f80), kernel.PackHalves(1, 2, kernel.PrecisionBFloat16))
	assert.Equal(t, uint32(0x40003c00), kernel.PackHalves(1, 2, kernel.PrecisionFloat16))
}

// TestMMAAndPackHalvesPlainGoPanic checks the plain Go calls that cannot
// run: MMA, which needs its unit's other threads, and PackHalves of a
// precision that is not 16-bit.
func TestMMAAndPackHalvesPlainGoPanic(t *testing.T) {
	var c [4]float32
	var a [4]uint32
	var b [2]uint32
	assert.PanicsWithValue(t, "kernel.MMA: a matrix unit's operation needs the 32 threads of its unit; it runs only in a translated kernel",
		func() { kernel.MMA(&c, &a, &b, kernel.PrecisionBFloat16) })
	assert.PanicsWithValue(t, "kernel.PackHalves: the precision must be PrecisionBFloat16 or PrecisionFloat16",
		func() { kernel.PackHalves(1, 2, kernel.PrecisionFloat32) })
}
