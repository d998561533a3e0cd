package interp

import (
	"unsafe"

	"github.com/anygpu/gpu/kernel/internal/ir"
	"github.com/anygpu/gpu/kernel/internal/kmath"
)

// atomic compiles an atomic read-modify-write of a buffer or shared array
// element, through package kernel's atomics (sync/atomic): the groups of a
// launch run in parallel.
func (c *compiler) atomic(e *ir.Atomic) (any, error) {
	if e.Place == nil {
		return nil, errorf(e.Pos, "atomic without a place")
	}
	p, err := c.place(e.Place)
	if err != nil {
		return nil, err
	}
	want := 1
	if e.Op == ir.AtomicCompareExchange {
		want = 2
	}
	if len(e.Args) != want {
		return nil, errorf(e.Pos, "atomic operation takes %d operands, not %d", want, len(e.Args))
	}
	args := make([]any, len(e.Args))
	for i, a := range e.Args {
		v, k, err := c.exprKind(a)
		if err != nil {
			return nil, err
		}
		if k != p.elem {
			return nil, errorf(a.ExprPos(), "atomic operand of type %v on an element of another type", a.ExprType())
		}
		args[i] = v
	}
	var f any
	switch p.elem {
	case kI32:
		f = atomicInt[int32](e.Op, pointer(p, 4), args)
	case kU32:
		f = atomicInt[uint32](e.Op, pointer(p, 4), args)
	case kF32:
		if e.Op == ir.AtomicAdd {
			ptr, v := pointer(p, 4), args[0].(val[float32]).get()
			f = fnVal(func(t *thread) float32 { return kmath.AtomicAdd((*float32)(ptr(t)), v(t)) })
		}
	}
	if f == nil {
		return nil, errorf(e.Pos, "this atomic operation on %v is not supported; atomics take int32 or uint32 elements (or float32 for AtomicAdd)", e.Place.Type)
	}
	return f, nil
}

func atomicInt[T int32 | uint32](op ir.AtomicOp, ptr func(*thread) unsafe.Pointer, args []any) any {
	v := args[0].(val[T]).get()
	var f func(*T, T) T
	switch op {
	case ir.AtomicAdd:
		return fnVal(func(t *thread) T { return kmath.AtomicAdd((*T)(ptr(t)), v(t)) })
	case ir.AtomicMin:
		f = kmath.AtomicMin[T]
	case ir.AtomicMax:
		f = kmath.AtomicMax[T]
	case ir.AtomicAnd:
		f = kmath.AtomicAnd[T]
	case ir.AtomicOr:
		f = kmath.AtomicOr[T]
	case ir.AtomicXor:
		f = kmath.AtomicXor[T]
	case ir.AtomicExchange:
		f = kmath.AtomicExchange[T]
	case ir.AtomicCompareExchange:
		nv := args[1].(val[T]).get()
		return fnVal(func(t *thread) T {
			p := (*T)(ptr(t))
			old := v(t)
			return kmath.AtomicCompareExchange(p, old, nv(t))
		})
	default:
		return nil
	}
	return fnVal(func(t *thread) T { return f((*T)(ptr(t)), v(t)) })
}
