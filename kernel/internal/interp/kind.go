package interp

import (
	"fmt"

	"github.com/anygpu/gpu/kernel/internal/ir"
)

// kind is the Go type that holds a value of an IR type in the interpreter.
type kind uint8

const (
	kInvalid kind = iota
	kBool
	kI32
	kU32
	kF32
	kI64
	kU64
	kF64
	kVec4
)

// kindOf maps an IR scalar or Vec type to its kind.
func kindOf(t ir.Type) (kind, error) {
	switch t := t.(type) {
	case ir.Scalar:
		switch t {
		case ir.Bool:
			return kBool, nil
		case ir.I32:
			return kI32, nil
		case ir.U32:
			return kU32, nil
		case ir.F32:
			return kF32, nil
		case ir.I64:
			return kI64, nil
		case ir.U64:
			return kU64, nil
		case ir.F64:
			return kF64, nil
		}
		return kInvalid, fmt.Errorf("type %s is not supported by the CPU interpreter", t)
	case *ir.Vec:
		if t.Elem == ir.F32 && t.N >= 1 && t.N <= 4 {
			return kVec4, nil
		}
		return kInvalid, fmt.Errorf("vector of %d %s is not supported by the CPU interpreter; use kernel.Float4", t.N, t.Elem)
	}
	return kInvalid, fmt.Errorf("type %T is not a scalar or vector", t)
}

// sizeOfType is the bytes a value of t takes in a frame or shared memory:
// arrays are packed.
func sizeOfType(t ir.Type) (uintptr, error) {
	if a, ok := t.(*ir.Array); ok {
		es, err := sizeOfType(a.Elem)
		if err != nil {
			return 0, err
		}
		if a.Len < 0 {
			return 0, fmt.Errorf("array of negative length %d", a.Len)
		}
		return es * uintptr(a.Len), nil
	}
	k, err := kindOf(t)
	if err != nil {
		return 0, err
	}
	return k.size(), nil
}

// size is the bytes of a value of kind k.
func (k kind) size() uintptr {
	switch k {
	case kBool:
		return 1
	case kI64, kU64, kF64:
		return 8
	case kVec4:
		return 16
	}
	return 4
}

func (k kind) isFloat() bool { return k == kF32 || k == kF64 }

// number is the arithmetic types.
type number interface {
	~int32 | ~uint32 | ~int64 | ~uint64 | ~float32 | ~float64
}

// integer is the integer types.
type integer interface {
	~int32 | ~uint32 | ~int64 | ~uint64
}

// float is the floating-point types.
type float interface{ ~float32 | ~float64 }

// val is a compiled expression of Go type T: either a frame slot (a local,
// parameter, constant or id, read without a call) or a closure.
type val[T any] struct {
	fn   func(*thread) T
	off  uintptr
	slot bool
}

// get returns v as a closure.
func (v val[T]) get() func(*thread) T {
	if v.slot {
		off := v.off
		return func(t *thread) T { return ld[T](t, off) }
	}
	return v.fn
}

func fnVal[T any](f func(*thread) T) val[T] { return val[T]{fn: f} }
func slotVal[T any](off uintptr) val[T]     { return val[T]{off: off, slot: true} }

// slotOf is the slot at off holding a value of kind k, as a val.
func slotOf(k kind, off uintptr) any {
	switch k {
	case kBool:
		return slotVal[bool](off)
	case kI32:
		return slotVal[int32](off)
	case kU32:
		return slotVal[uint32](off)
	case kF32:
		return slotVal[float32](off)
	case kI64:
		return slotVal[int64](off)
	case kU64:
		return slotVal[uint64](off)
	case kF64:
		return slotVal[float64](off)
	case kVec4:
		return slotVal[vec4](off)
	}
	return nil
}

// storeSlot returns the statement that stores v (a val of kind k) at off.
func storeSlot(k kind, off uintptr, v any) stmt {
	switch k {
	case kBool:
		return storeSlotT(off, v.(val[bool]))
	case kI32:
		return storeSlotT(off, v.(val[int32]))
	case kU32:
		return storeSlotT(off, v.(val[uint32]))
	case kF32:
		return storeSlotT(off, v.(val[float32]))
	case kI64:
		return storeSlotT(off, v.(val[int64]))
	case kU64:
		return storeSlotT(off, v.(val[uint64]))
	case kF64:
		return storeSlotT(off, v.(val[float64]))
	case kVec4:
		return storeSlotT(off, v.(val[vec4]))
	}
	return nil
}

func storeSlotT[T any](off uintptr, v val[T]) stmt {
	if v.slot {
		src := v.off
		return func(t *thread) ctl { st(t, off, ld[T](t, src)); return ctlNone }
	}
	f := v.fn
	return func(t *thread) ctl { st(t, off, f(t)); return ctlNone }
}

// slotOffset returns the frame offset of v (a val of any kind) if it is a slot.
func slotOffset(v any) (uintptr, bool) {
	switch v := v.(type) {
	case val[bool]:
		return v.off, v.slot
	case val[int32]:
		return v.off, v.slot
	case val[uint32]:
		return v.off, v.slot
	case val[float32]:
		return v.off, v.slot
	case val[int64]:
		return v.off, v.slot
	case val[uint64]:
		return v.off, v.slot
	case val[float64]:
		return v.off, v.slot
	case val[vec4]:
		return v.off, v.slot
	}
	return 0, false
}
