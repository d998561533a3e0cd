package ops

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/anygpu/gpu/tensor/internal/fp"
	"github.com/stretchr/testify/require"
)

// The kernel-language conversions, run as plain Go, agree bit for bit with
// package fp (tested against the formats' definitions) on every encoding
// and on float32s of every exponent; the device test of Cast runs the
// translated text.
func TestSmallConversionsMatchFP(t *testing.T) {
	formats := []struct {
		name   string
		f      fp.Format
		eb, mb uint32
	}{
		{"float16", fp.Half, 5, 10},
		{"bfloat16", fp.BFloat, 8, 7},
		{"e4m3fn", fp.E4M3FN, 4, 3},
		{"e5m2", fp.E5M2, 5, 2},
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for _, tc := range formats {
		t.Run(tc.name, func(t *testing.T) {
			n := uint32(1) << (1 + tc.eb + tc.mb)
			for v := uint32(0); v < n; v++ {
				want := tc.f.Decode(v)
				if tc.eb < 8 {
					got := smallDecode(v, tc.eb, tc.mb, tc.f.Inf)
					require.Equal(t, math.Float32bits(want), math.Float32bits(got), "decode %#x", v)
				}
				// Values, and the float32s next to them, encode alike.
				for _, x := range []float32{want, math.Nextafter32(want, 0), math.Nextafter32(want, float32(math.Inf(1)))} {
					require.Equal(t, tc.f.Encode(x), smallEncode(x, tc.eb, tc.mb, tc.f.Inf), "encode %g (%#x)", x, math.Float32bits(x))
				}
			}
			for range 300000 {
				x := math.Float32frombits(rng.Uint32())
				require.Equal(t, tc.f.Encode(x), smallEncode(x, tc.eb, tc.mb, tc.f.Inf), "encode %g (%#x)", x, math.Float32bits(x))
			}
		})
	}
}

func TestEncodeElemIntegers(t *testing.T) {
	tests := []struct {
		x    float32
		dt   uint32
		want uint32
	}{
		{3.9, DTInt8, 3},
		{-3.9, DTInt8, 0xfd},
		{1000, DTInt8, 0x7f},
		{-1000, DTInt8, 0x80},
		{float32(math.NaN()), DTInt8, 0},
		{300, DTUint8, 255},
		{-5, DTUint8, 0},
		{-7.5, DTInt32, uint32(0xfffffff9)},
		{3e9, DTInt32, 0x7fffffff},
	}
	for _, tc := range tests {
		require.Equal(t, tc.want, encodeElem(tc.x, tc.dt), "encode %g as %d", tc.x, tc.dt)
	}
	require.Equal(t, float32(-3), decodeElem(0xfd, DTInt8))
	require.Equal(t, float32(253), decodeElem(0xfd, DTUint8))
	require.Equal(t, float32(-7), decodeElem(0xfffffff9, DTInt32))
}

func TestErfAccuracy(t *testing.T) {
	worst := 0.0
	for x := -6.0; x <= 6; x += 1.0 / 1024 {
		worst = max(worst, math.Abs(float64(erf(float32(x)))-math.Erf(x)))
	}
	require.Less(t, worst, 4e-7, "erf's largest absolute error on [-6, 6]")
}
