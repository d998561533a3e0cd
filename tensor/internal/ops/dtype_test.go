package ops

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/anygpu/gpu/tensor/internal/fp"
	"github.com/stretchr/testify/require"
)

// TestFloatElementAccess: the ops' loads and stores, run as plain Go, agree
// bit for bit with package fp: bf16Bits with fp.BFloat's rounding on every
// bfloat16 value and its float32 neighbours (ties, subnormals, overflow,
// NaN) and on random float32s; bitsOf decodes either half of a word of
// every float16 and bfloat16 encoding; halfBits puts an encoding in its
// element's half and otherHalf keeps the other.
func TestFloatElementAccess(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for v := range uint32(1 << 16) {
		want := fp.BFloat.Decode(v)
		for _, x := range []float32{want, math.Nextafter32(want, 0), math.Nextafter32(want, float32(math.Inf(1)))} {
			require.Equal(t, fp.BFloat.Encode(x), bf16Bits(x), "bfloat16 of %g (%#x)", x, math.Float32bits(x))
		}
		// A tie: halfway between want and the next bfloat16 up.
		if b := math.Float32bits(want); b&0x7fffffff < 0x7f7f0000 {
			tie := math.Float32frombits(b + 0x8000)
			require.Equal(t, fp.BFloat.Encode(tie), bf16Bits(tie), "tie %g (%#x)", tie, b+0x8000)
		}
		for _, d := range []struct {
			dt uint32
			f  fp.Format
		}{{DTFloat16, fp.Half}, {DTBFloat16, fp.BFloat}} {
			wantBits := math.Float32bits(d.f.Decode(v))
			lo, hi := bitsOf(v, d.dt, 0), bitsOf(v<<16|0x1234, d.dt, 1)
			if math.IsNaN(float64(d.f.Decode(v))) { // a NaN (signalling ones need not be quieted)
				require.True(t, math.IsNaN(float64(math.Float32frombits(lo))), "low half %#x, dtype %d: %#x", v, d.dt, lo)
				require.True(t, math.IsNaN(float64(math.Float32frombits(hi))), "high half %#x, dtype %d: %#x", v, d.dt, hi)
				continue
			}
			require.Equal(t, wantBits, lo, "low half %#x, dtype %d", v, d.dt)
			require.Equal(t, wantBits, hi, "high half %#x, dtype %d", v, d.dt)
			enc := uint32(d.f.Encode(d.f.Decode(v)))
			require.Equal(t, enc, halfBits(d.f.Decode(v), d.dt, 0), "store %#x, dtype %d, low half", v, d.dt)
			require.Equal(t, enc<<16, halfBits(d.f.Decode(v), d.dt, 1), "store %#x, dtype %d, high half", v, d.dt)
		}
	}
	for range 300000 {
		x := math.Float32frombits(rng.Uint32())
		require.Equal(t, fp.BFloat.Encode(x), bf16Bits(x), "bfloat16 of %g (%#x)", x, math.Float32bits(x))
	}
	require.Equal(t, uint32(0xabcd1234), bitsOf(0xabcd1234, DTFloat32, 7), "float32 words are their own bits")
	require.Equal(t, uint32(0xffff0000), otherHalf(0))
	require.Equal(t, uint32(0x0000ffff), otherHalf(1))
	require.Equal(t, uint32(1), perWord(DTFloat32))
	require.Equal(t, uint32(2), perWord(DTBFloat16))
	require.Equal(t, uint32(5), wordOf(11, DTFloat16))
	require.Equal(t, uint32(11), wordOf(11, DTFloat32))
}
