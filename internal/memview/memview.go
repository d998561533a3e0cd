// Package memview reinterprets byte slices as slices of fixed-size scalars and
// back, without copying. It holds the project's unsafe slice conversions in one
// place.
package memview

import "unsafe"

// Scalar is every element type a typed view supports.
type Scalar interface {
	~int8 | ~uint8 | ~int16 | ~uint16 | ~int32 | ~uint32 | ~int64 | ~uint64 | ~float32 | ~float64
}

// As views b as a []T of len(b)/sizeof(T) elements (a trailing partial element
// is dropped). b must be suitably aligned for T; buffers allocated by anygpu are
// 64-byte aligned.
func As[T Scalar](b []byte) []T {
	var zero T
	size := int(unsafe.Sizeof(zero))
	n := len(b) / size
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), n)
}

// Bytes views s as its underlying bytes.
func Bytes[T Scalar](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	var zero T
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*int(unsafe.Sizeof(zero)))
}

// SizeOf returns the size of T in bytes.
func SizeOf[T Scalar]() int {
	var zero T
	return int(unsafe.Sizeof(zero))
}

// Addr returns the address of the first byte of b (0 for an empty slice).
func Addr(b []byte) uintptr {
	if len(b) == 0 {
		return 0
	}
	return uintptr(unsafe.Pointer(unsafe.SliceData(b)))
}

// Aligned returns a zeroed slice of n bytes whose first byte is aligned to
// align (a power of two), carved from a slightly larger allocation.
func Aligned(n, align int) []byte {
	if n == 0 {
		return []byte{}
	}
	raw := make([]byte, n+align-1)
	off := 0
	if r := int(Addr(raw) & uintptr(align-1)); r != 0 {
		off = align - r
	}
	return raw[off : off+n : off+n]
}
