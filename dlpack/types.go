package dlpack

import "fmt"

// DeviceType is DLPack's DLDeviceType.
type DeviceType int32

// Device types this package reads and writes.
const (
	CPU         DeviceType = 1  // kDLCPU
	CUDA        DeviceType = 2  // kDLCUDA
	CUDAHost    DeviceType = 3  // kDLCUDAHost (pinned host memory)
	CUDAManaged DeviceType = 13 // kDLCUDAManaged
)

// TypeCode is DLPack's DLDataTypeCode.
type TypeCode uint8

// Type codes.
const (
	Int      TypeCode = 0 // kDLInt
	UInt     TypeCode = 1 // kDLUInt
	Float    TypeCode = 2 // kDLFloat
	BFloat   TypeCode = 4 // kDLBfloat
	Complex  TypeCode = 5 // kDLComplex
	Bool     TypeCode = 6 // kDLBool
	OpaqueTy TypeCode = 3 // kDLOpaqueHandle
)

// DataType is DLPack's DLDataType: the element type.
type DataType struct {
	Code  TypeCode
	Bits  uint8
	Lanes uint16
}

// Common element types.
var (
	Float32  = DataType{Float, 32, 1}
	Float64  = DataType{Float, 64, 1}
	Float16  = DataType{Float, 16, 1}
	BFloat16 = DataType{BFloat, 16, 1}
	Int32    = DataType{Int, 32, 1}
	Int64    = DataType{Int, 64, 1}
	Uint8    = DataType{UInt, 8, 1}
	Uint32   = DataType{UInt, 32, 1}
)

// Bytes is the size of one element (all lanes), in bytes; 0 when Bits is
// not a whole number of bytes.
func (t DataType) Bytes() int64 {
	if t.Bits%8 != 0 || t.Lanes == 0 {
		return 0
	}
	return int64(t.Bits/8) * int64(t.Lanes)
}

// String writes the type the way NumPy names it ("float32", "bfloat16",
// "int8x4" for 4 lanes).
func (t DataType) String() string {
	names := map[TypeCode]string{Int: "int", UInt: "uint", Float: "float", BFloat: "bfloat", Complex: "complex", Bool: "bool", OpaqueTy: "opaque"}
	n, ok := names[t.Code]
	if !ok {
		n = fmt.Sprintf("code%d_", t.Code)
	}
	s := fmt.Sprintf("%s%d", n, t.Bits)
	if t.Lanes != 1 {
		s += fmt.Sprintf("x%d", t.Lanes)
	}
	return s
}

// elements is the product of shape, or an error for a negative dimension
// or an overflow.
func elements(shape []int64) (int64, error) {
	n := int64(1)
	for i, d := range shape {
		if d < 0 {
			return 0, fmt.Errorf("dimension %d is negative (%d)", i, d)
		}
		if d != 0 && n > (1<<62)/d {
			return 0, fmt.Errorf("shape %v has too many elements", shape)
		}
		n *= d
	}
	return n, nil
}

// compact reports whether strides (in elements) are those of a row-major
// tensor of shape; nil strides are.
func compact(shape, strides []int64) bool {
	if strides == nil {
		return true
	}
	if len(strides) != len(shape) {
		return false
	}
	want := int64(1)
	for i := len(shape) - 1; i >= 0; i-- {
		if shape[i] != 1 && strides[i] != want {
			return false
		}
		want *= shape[i]
	}
	return true
}
