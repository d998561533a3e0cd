package interp

import (
	"math"
	"unsafe"

	"github.com/anygpu/gpu/kernel/internal/ir"
	"github.com/anygpu/gpu/kernel/internal/kmath"
)

// builtin compiles a call of a built-in function.
func (c *compiler) builtin(e *ir.CallBuiltin) (any, error) {
	b := e.Builtin
	switch {
	case b.IsID():
		if len(e.Args) != 0 {
			return nil, errorf(e.Pos, "%s takes no arguments", b)
		}
		if perThreadIDs&(1<<b) != 0 {
			return slotVal[uint32](c.laneID(b)), nil
		}
		return uniVal[uint32](c.uniID(b)), nil
	case b == ir.Len:
		if len(e.Args) != 1 {
			return nil, errorf(e.Pos, "len takes one argument")
		}
		at, ok := arrayType(e.Args[0].ExprType())
		if !ok {
			return nil, errorf(e.Pos, "len of %v: only arrays have a length in a kernel", e.Args[0].ExprType())
		}
		k, err := kindOf(e.Type)
		if err != nil || !isIntKind(k) {
			return nil, errorf(e.Pos, "len of type %v", e.Type)
		}
		n := &ir.Const{Type: e.Type.(ir.Scalar), Int: int64(at.Len), Uint: uint64(at.Len), Pos: e.Pos}
		return c.constant(n)
	case b == ir.Load4:
		return c.load4(e)
	}
	args := make([]any, len(e.Args))
	var k kind
	for i, a := range e.Args {
		v, ak, err := c.exprKind(a)
		if err != nil {
			return nil, err
		}
		if i == 0 {
			k = ak
		} else if ak != k {
			return nil, errorf(e.Pos, "arguments of %s of different types", b)
		}
		args[i] = v
	}
	want := 1
	switch b {
	case ir.Pow, ir.Min, ir.Max:
		want = 2
	case ir.Fma, ir.Clamp:
		want = 3
	}
	if len(args) != want {
		return nil, errorf(e.Pos, "%s takes %d arguments, not %d", b, want, len(args))
	}
	var f any
	switch {
	case b == ir.Float32Bits && k == kF32:
		x := args[0].(val[float32]).get()
		f = fnVal(func(t *thread) uint32 { return math.Float32bits(x(t)) })
	case b == ir.Float32FromBits && k == kU32:
		x := args[0].(val[uint32]).get()
		f = fnVal(func(t *thread) float32 { return math.Float32frombits(x(t)) })
	case b >= ir.Sqrt && b <= ir.Fma:
		switch k {
		case kF32:
			f = mathFn[float32](b, args)
		case kF64:
			f = mathFn[float64](b, args)
		}
	case b >= ir.Abs && b <= ir.Clamp:
		switch k {
		case kI32:
			f = numFn[int32](b, args)
		case kU32:
			f = numFn[uint32](b, args)
		case kI64:
			f = numFn[int64](b, args)
		case kU64:
			f = numFn[uint64](b, args)
		case kF32:
			f = numFn[float32](b, args)
		case kF64:
			f = numFn[float64](b, args)
		}
	}
	if f == nil {
		return nil, errorf(e.Pos, "%s of %v is not supported by the CPU interpreter", b, e.Type)
	}
	return f, nil
}

// mathFn is a math built-in on floats, through package kernel's functions
// so that the interpreter agrees with a kernel compiled as Go.
func mathFn[T float](b ir.Builtin, args []any) any {
	x := args[0].(val[T]).get()
	var un func(T) T
	switch b {
	case ir.Sqrt:
		un = kmath.Sqrt[T]
	case ir.Rsqrt:
		un = kmath.Rsqrt[T]
	case ir.Exp:
		un = kmath.Exp[T]
	case ir.Exp2:
		un = kmath.Exp2[T]
	case ir.Log:
		un = kmath.Log[T]
	case ir.Log2:
		un = kmath.Log2[T]
	case ir.Sin:
		un = kmath.Sin[T]
	case ir.Cos:
		un = kmath.Cos[T]
	case ir.Tanh:
		un = kmath.Tanh[T]
	case ir.Floor:
		un = kmath.Floor[T]
	case ir.Ceil:
		un = kmath.Ceil[T]
	case ir.Trunc:
		un = kmath.Trunc[T]
	case ir.Pow:
		y := args[1].(val[T]).get()
		return fnVal(func(t *thread) T { return kmath.Pow(x(t), y(t)) })
	case ir.Fma:
		y, z := args[1].(val[T]).get(), args[2].(val[T]).get()
		return fnVal(func(t *thread) T { return kmath.Fma(x(t), y(t), z(t)) })
	default:
		return nil
	}
	if b == ir.Sqrt { // the common one, without the indirect call
		return fnVal(func(t *thread) T { return kmath.Sqrt(x(t)) })
	}
	return fnVal(func(t *thread) T { return un(x(t)) })
}

// numFn is Abs, Min, Max or Clamp.
func numFn[T number](b ir.Builtin, args []any) any {
	x := args[0].(val[T])
	switch b {
	case ir.Abs:
		xf := x.get()
		return fnVal(func(t *thread) T { return kmath.Abs(xf(t)) })
	case ir.Min, ir.Max:
		y := args[1].(val[T])
		if b == ir.Min {
			return fnVal(opMin(x, y))
		}
		return fnVal(opMax(x, y))
	case ir.Clamp:
		xf, lo, hi := x.get(), args[1].(val[T]).get(), args[2].(val[T]).get()
		return fnVal(func(t *thread) T { return kmath.Clamp(xf(t), lo(t), hi(t)) })
	}
	return nil
}

func opMin[T number](x, y val[T]) func(*thread) T {
	xf := x.get()
	if y.slot {
		yo := y.off
		return func(t *thread) T { return min(xf(t), ld[T](t, yo)) }
	}
	yf := y.fn
	return func(t *thread) T { return min(xf(t), yf(t)) }
}

func opMax[T number](x, y val[T]) func(*thread) T {
	xf := x.get()
	if y.slot {
		yo := y.off
		return func(t *thread) T { return max(xf(t), ld[T](t, yo)) }
	}
	yf := y.fn
	return func(t *thread) T { return max(xf(t), yf(t)) }
}

// load4 is kernel.Load4(buf, i): four float32s at 4i.
func (c *compiler) load4(e *ir.CallBuiltin) (any, error) {
	p, err := c.buf4(e.Pos, e.Args)
	if err != nil {
		return nil, err
	}
	ptr := p
	return fnVal(func(t *thread) vec4 { return *(*vec4)(ptr(t)) }), nil
}

// buf4 returns the address of the Float4 at index args[1] of the float32
// buffer args[0], checked against the buffer's length.
func (c *compiler) buf4(pos ir.Pos, args []ir.Expr) (func(*thread) unsafe.Pointer, error) {
	if len(args) != 2 {
		return nil, errorf(pos, "Load4/Store4 take a buffer and an index")
	}
	r, ok := args[0].(*ir.Ref)
	k, isBuf := -1, false
	if ok {
		k, isBuf = c.bufs[r.Var]
	}
	if !isBuf || c.bufKinds[k] != kF32 {
		return nil, errorf(pos, "Load4/Store4 need a []float32 parameter")
	}
	idx, ik, err := c.exprKind(args[1])
	if err != nil {
		return nil, err
	}
	p := &place{reg: inBuffer, buf: k, idx: idx, idxKind: ik, pos: pos, name: r.Var.Name}
	switch ik {
	case kI32:
		return vecPtr(p, idx.(val[int32])), nil
	case kU32:
		return vecPtr(p, idx.(val[uint32])), nil
	case kI64:
		return vecPtr(p, idx.(val[int64])), nil
	case kU64:
		return vecPtr(p, idx.(val[uint64])), nil
	}
	return nil, errorf(pos, "index of Load4/Store4 is not an integer")
}

func vecPtr[I integer](p *place, idx val[I]) func(*thread) unsafe.Pointer {
	k, pos, name, x := p.buf, p.pos, p.name, idx.get()
	return func(t *thread) unsafe.Pointer {
		i := uint64(x(t))
		b := &t.bufs[k]
		if i >= uint64(b.n/4) {
			outOfRange(pos, name+" (in Float4s)", i, b.n/4)
		}
		return unsafe.Add(b.p, uintptr(i)*16)
	}
}
