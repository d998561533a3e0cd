package tensor

import (
	"math"
	"testing"

	"github.com/anygpu/gpu/tensor/internal/ops"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDTypes(t *testing.T) {
	tests := []struct {
		d     DType
		code  int // the kernels' code for it
		size  int
		name  string
		float bool
	}{
		{Float32, ops.DTFloat32, 4, "float32", true},
		{Float16, ops.DTFloat16, 2, "float16", true},
		{BFloat16, ops.DTBFloat16, 2, "bfloat16", true},
		{Int8, ops.DTInt8, 1, "int8", false},
		{Int32, ops.DTInt32, 4, "int32", false},
		{Uint8, ops.DTUint8, 1, "uint8", false},
		{Float8E4M3, ops.DTFloat8E4M3, 1, "float8_e4m3fn", true},
		{Float8E5M2, ops.DTFloat8E5M2, 1, "float8_e5m2", true},
	}
	require.Len(t, DTypes(), len(tests))
	for i, tc := range tests {
		assert.Equal(t, tc.d, DTypes()[i])
		assert.True(t, tc.d.Valid())
		assert.Equal(t, tc.code, int(tc.d), "%s is the kernels' code", tc.name)
		assert.Equal(t, tc.size, tc.d.Size(), tc.name)
		assert.Equal(t, tc.name, tc.d.String())
		assert.Equal(t, tc.float, tc.d.IsFloat(), tc.name)
	}
	assert.False(t, DType(-1).Valid())
	assert.Equal(t, 0, DType(8).Size())
	assert.Equal(t, "DType(8)", DType(8).String())
}

// The exported conversions are package fp's (tested exhaustively there);
// these pin the bit patterns of the formats' defining values.
func TestConversions(t *testing.T) {
	assert.Equal(t, uint16(0x3c00), Float16FromFloat32(1))
	assert.Equal(t, uint16(0x7c00), Float16FromFloat32(65520))
	assert.Equal(t, float32(65504), Float16ToFloat32(0x7bff))
	assert.Equal(t, float32(math.Ldexp(1, -24)), Float16ToFloat32(0x0001))
	assert.Equal(t, uint16(0x3f80), BFloat16FromFloat32(1))
	assert.Equal(t, uint16(0x3f80), BFloat16FromFloat32(1+1.0/256), "a tie rounds to even")
	assert.Equal(t, uint16(0x3f82), BFloat16FromFloat32(1+3.0/256))
	assert.Equal(t, float32(-2), BFloat16ToFloat32(0xc000))
	assert.Equal(t, uint8(0x7e), Float8E4M3FromFloat32(448))
	assert.Equal(t, uint8(0x7f), Float8E4M3FromFloat32(float32(math.Inf(1))))
	assert.True(t, math.IsNaN(float64(Float8E4M3ToFloat32(0xff))))
	assert.Equal(t, float32(-448), Float8E4M3ToFloat32(0xfe))
	assert.Equal(t, uint8(0x7b), Float8E5M2FromFloat32(57344))
	assert.Equal(t, float32(math.Inf(-1)), Float8E5M2ToFloat32(0xfc))
}

// TestHostConversions: every dtype's host encoding decodes back to the
// value the dtype holds.
func TestHostConversions(t *testing.T) {
	in := []float32{0, 1, -1, 2.5, -3.75, 100, 0.125}
	want := map[DType][]float32{
		Float32:    in,
		Float16:    in,
		BFloat16:   in,
		Float8E4M3: {0, 1, -1, 2.5, -3.75, 96, 0.125}, // 100: a tie of 96 and 104, to even
		Float8E5M2: {0, 1, -1, 2.5, -4, 96, 0.125},    // -3.75: a tie of -3.5 and -4, to even
		Int8:       {0, 1, -1, 2, -3, 100, 0},
		Int32:      {0, 1, -1, 2, -3, 100, 0},
		Uint8:      {0, 1, 0, 2, 0, 100, 0},
	}
	for _, d := range DTypes() {
		raw := make([]byte, len(in)*d.Size())
		encodeFloat32s(raw, d, in)
		got := make([]float32, len(in))
		decodeFloat32s(got, d, raw)
		assert.Equal(t, want[d], got, d.String())
	}
}
