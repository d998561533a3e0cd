package tensor

import (
	"encoding/binary"
	"math"

	"github.com/anygpu/gpu/tensor/internal/fp"
)

// floatToInt truncates x toward zero and saturates to [lo, hi], NaN giving 0:
// the conversion Cast does on the device.
func floatToInt(x float32, lo, hi int64) int64 {
	if x != x {
		return 0
	}
	v := float64(x)
	if v <= float64(lo) {
		return lo
	}
	if v >= float64(hi) {
		return hi
	}
	return int64(v)
}

// encodeFloat32s writes data as elements of d, little-endian, into dst
// (len(data)·d.Size() bytes).
func encodeFloat32s(dst []byte, d DType, data []float32) {
	for i, x := range data {
		switch d {
		case Float32:
			binary.LittleEndian.PutUint32(dst[4*i:], math.Float32bits(x))
		case Int32:
			binary.LittleEndian.PutUint32(dst[4*i:], uint32(int32(floatToInt(x, math.MinInt32, math.MaxInt32))))
		case Float16:
			binary.LittleEndian.PutUint16(dst[2*i:], uint16(fp.Half.Encode(x)))
		case BFloat16:
			binary.LittleEndian.PutUint16(dst[2*i:], uint16(fp.BFloat.Encode(x)))
		case Int8:
			dst[i] = byte(int8(floatToInt(x, math.MinInt8, math.MaxInt8)))
		case Uint8:
			dst[i] = byte(floatToInt(x, 0, math.MaxUint8))
		case Float8E4M3:
			dst[i] = byte(fp.E4M3FN.Encode(x))
		case Float8E5M2:
			dst[i] = byte(fp.E5M2.Encode(x))
		}
	}
}

// decodeFloat32s reads len(dst) elements of d from src into dst as float32s
// (exact for the float types; int32 beyond 2²⁴ rounds).
func decodeFloat32s(dst []float32, d DType, src []byte) {
	for i := range dst {
		switch d {
		case Float32:
			dst[i] = math.Float32frombits(binary.LittleEndian.Uint32(src[4*i:]))
		case Int32:
			dst[i] = float32(int32(binary.LittleEndian.Uint32(src[4*i:])))
		case Float16:
			dst[i] = fp.Half.Decode(uint32(binary.LittleEndian.Uint16(src[2*i:])))
		case BFloat16:
			dst[i] = fp.BFloat.Decode(uint32(binary.LittleEndian.Uint16(src[2*i:])))
		case Int8:
			dst[i] = float32(int8(src[i]))
		case Uint8:
			dst[i] = float32(src[i])
		case Float8E4M3:
			dst[i] = fp.E4M3FN.Decode(uint32(src[i]))
		case Float8E5M2:
			dst[i] = fp.E5M2.Decode(uint32(src[i]))
		}
	}
}
