package tensor

import (
	"fmt"

	"github.com/anygpu/gpu/tensor/internal/fp"
)

// DType is a tensor's element type.
type DType int

// The element types. Float16 is IEEE 754 binary16; BFloat16 is float32's
// top half; Float8E4M3 is OCP's E4M3 FN (no infinities: ±448 is the largest
// value and 0x7f/0xff are NaN); Float8E5M2 is OCP's E5M2 (IEEE-like, with
// infinities). This release computes in Float32 (and Int32 for ArgMax):
// the narrower types are storage, converted by Cast or on the host.
// (The values are the device kernels' dtype codes.)
const (
	Float32 DType = iota
	Float16
	BFloat16
	Int8
	Int32
	Uint8
	Float8E4M3
	Float8E5M2
)

var dtypeNames = [...]string{
	Float32: "float32", Float16: "float16", BFloat16: "bfloat16", Int8: "int8",
	Int32: "int32", Uint8: "uint8", Float8E4M3: "float8_e4m3fn", Float8E5M2: "float8_e5m2",
}

// DTypes lists every element type.
func DTypes() []DType {
	return []DType{Float32, Float16, BFloat16, Int8, Int32, Uint8, Float8E4M3, Float8E5M2}
}

// Valid reports whether d is one of the element types.
func (d DType) Valid() bool { return d >= 0 && int(d) < len(dtypeNames) }

// Size is an element's size in bytes (0 for an invalid DType).
func (d DType) Size() int {
	switch d {
	case Float32, Int32:
		return 4
	case Float16, BFloat16:
		return 2
	case Int8, Uint8, Float8E4M3, Float8E5M2:
		return 1
	}
	return 0
}

// String is the type's name as PyTorch spells it ("float32", "bfloat16",
// "float8_e4m3fn").
func (d DType) String() string {
	if !d.Valid() {
		return fmt.Sprintf("DType(%d)", int(d))
	}
	return dtypeNames[d]
}

// IsFloat reports whether d is a floating-point type.
func (d DType) IsFloat() bool {
	switch d {
	case Float32, Float16, BFloat16, Float8E4M3, Float8E5M2:
		return true
	}
	return false
}

// Float16FromFloat32 rounds x to the nearest float16 (ties to even, through
// subnormals; beyond 65504 after rounding: ±Inf) and returns its bits. A NaN
// stays a NaN of the same sign.
func Float16FromFloat32(x float32) uint16 { return uint16(fp.Half.Encode(x)) }

// Float16ToFloat32 is the value of float16 bits h (exact).
func Float16ToFloat32(h uint16) float32 { return fp.Half.Decode(uint32(h)) }

// BFloat16FromFloat32 rounds x to the nearest bfloat16 (ties to even) and
// returns its bits. A NaN stays a NaN of the same sign.
func BFloat16FromFloat32(x float32) uint16 { return uint16(fp.BFloat.Encode(x)) }

// BFloat16ToFloat32 is the value of bfloat16 bits h (exact).
func BFloat16ToFloat32(h uint16) float32 { return fp.BFloat.Decode(uint32(h)) }

// Float8E4M3FromFloat32 rounds x to the nearest E4M3 FN value (ties to even)
// and returns its bits. The format has no infinities: ±Inf, NaN and values
// that round beyond ±448 (|x| > 464) become NaN (0x7f, 0xff with the sign),
// as PyTorch's float8_e4m3fn conversion does; clamp first to saturate.
func Float8E4M3FromFloat32(x float32) uint8 { return uint8(fp.E4M3FN.Encode(x)) }

// Float8E4M3ToFloat32 is the value of E4M3 FN bits b (exact).
func Float8E4M3ToFloat32(b uint8) float32 { return fp.E4M3FN.Decode(uint32(b)) }

// Float8E5M2FromFloat32 rounds x to the nearest E5M2 value (ties to even;
// beyond 57344 after rounding: ±Inf) and returns its bits.
func Float8E5M2FromFloat32(x float32) uint8 { return uint8(fp.E5M2.Encode(x)) }

// Float8E5M2ToFloat32 is the value of E5M2 bits b (exact).
func Float8E5M2ToFloat32(b uint8) float32 { return fp.E5M2.Decode(uint32(b)) }
