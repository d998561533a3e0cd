package interp

import (
	"github.com/anygpu/gpu/kernel/internal/ir"
)

// divInt is x / y with x/0 == x.
func divInt[T integer](x, y T) T {
	if y == 0 {
		return x
	}
	return x / y
}

// remInt is x % y with x%0 == 0.
func remInt[T integer](x, y T) T {
	if y == 0 {
		return 0
	}
	return x % y
}

// binary compiles X Op Y.
func (c *compiler) binary(e *ir.Binary) (any, error) {
	switch e.Op {
	case ir.LAnd, ir.LOr:
		x, err := exprAs[bool](c, e.X)
		if err != nil {
			return nil, err
		}
		y, err := exprAs[bool](c, e.Y)
		if err != nil {
			return nil, err
		}
		xf, yf := x.get(), y.get()
		if e.Op == ir.LAnd {
			return fnVal(func(t *thread) bool { return xf(t) && yf(t) }), nil
		}
		return fnVal(func(t *thread) bool { return xf(t) || yf(t) }), nil
	case ir.Shl, ir.Shr:
		return c.shift(e)
	}
	x, k, err := c.exprKind(e.X)
	if err != nil {
		return nil, err
	}
	y, err := c.expr(e.Y)
	if err != nil {
		return nil, err
	}
	var f any
	switch k {
	case kBool:
		f = binaryEq(e.Op, x.(val[bool]), y.(val[bool]))
	case kVec4:
		f = binaryVec(e.Op, x.(val[vec4]), y.(val[vec4]))
	case kI32:
		f = binaryInt(e.Op, x.(val[int32]), y.(val[int32]))
	case kU32:
		f = binaryInt(e.Op, x.(val[uint32]), y.(val[uint32]))
	case kI64:
		f = binaryInt(e.Op, x.(val[int64]), y.(val[int64]))
	case kU64:
		f = binaryInt(e.Op, x.(val[uint64]), y.(val[uint64]))
	case kF32:
		f = binaryFloat(e.Op, x.(val[float32]), y.(val[float32]))
	case kF64:
		f = binaryFloat(e.Op, x.(val[float64]), y.(val[float64]))
	}
	if f == nil {
		return nil, errorf(e.Pos, "operator %s on %v is not supported by the CPU interpreter", e.Op, e.X.ExprType())
	}
	return f, nil
}

// binaryNum is the operators common to integers and floats, or nil.
func binaryNum[T number](op ir.Op, x, y val[T]) any {
	switch op {
	case ir.Add:
		return fnVal(opAdd(x, y))
	case ir.Sub:
		return fnVal(opSub(x, y))
	case ir.Mul:
		return fnVal(opMul(x, y))
	case ir.Eq:
		return fnVal(opEq(x, y))
	case ir.Ne:
		return fnVal(opNe(x, y))
	case ir.Lt:
		return fnVal(opLt(x, y))
	case ir.Le:
		return fnVal(opLe(x, y))
	case ir.Gt:
		return fnVal(opGt(x, y))
	case ir.Ge:
		return fnVal(opGe(x, y))
	}
	return nil
}

func binaryInt[T integer](op ir.Op, x, y val[T]) any {
	switch op {
	case ir.Div:
		return fnVal(opDivInt(x, y))
	case ir.Rem:
		return fnVal(opRemInt(x, y))
	case ir.And:
		return fnVal(opAnd(x, y))
	case ir.Or:
		return fnVal(opOr(x, y))
	case ir.Xor:
		return fnVal(opXor(x, y))
	case ir.AndNot:
		return fnVal(opAndNot(x, y))
	}
	return binaryNum(op, x, y)
}

func binaryFloat[T float](op ir.Op, x, y val[T]) any {
	if op == ir.Div {
		return fnVal(opDivFloat(x, y))
	}
	return binaryNum(op, x, y)
}

// binaryEq is == and != of bools, or nil.
func binaryEq[T comparable](op ir.Op, x, y val[T]) any {
	xf, yf := x.get(), y.get()
	switch op {
	case ir.Eq:
		return fnVal(func(t *thread) bool { return xf(t) == yf(t) })
	case ir.Ne:
		return fnVal(func(t *thread) bool { return xf(t) != yf(t) })
	}
	return nil
}

// binaryVec is lane-wise arithmetic and == / != of Float4s, or nil.
func binaryVec(op ir.Op, x, y val[vec4]) any {
	xf, yf := x.get(), y.get()
	var f func(a, b float32) float32
	switch op {
	case ir.Add:
		f = func(a, b float32) float32 { return a + b }
	case ir.Sub:
		f = func(a, b float32) float32 { return a - b }
	case ir.Mul:
		f = func(a, b float32) float32 { return a * b }
	case ir.Div:
		f = func(a, b float32) float32 { return a / b }
	default:
		return binaryEq(op, x, y)
	}
	return fnVal(func(t *thread) vec4 {
		a, b := xf(t), yf(t)
		return vec4{f(a[0], b[0]), f(a[1], b[1]), f(a[2], b[2]), f(a[3], b[3])}
	})
}

// shift compiles X << Y and X >> Y: the count is any integer type; a count
// of the width or more gives 0 (or -1 for a negative signed X shifted
// right), as in Go; a negative count counts as huge.
func (c *compiler) shift(e *ir.Binary) (any, error) {
	x, k, err := c.exprKind(e.X)
	if err != nil {
		return nil, err
	}
	y, yk, err := c.exprKind(e.Y)
	if err != nil {
		return nil, err
	}
	if !isIntKind(k) || !isIntKind(yk) {
		return nil, errorf(e.Pos, "shift of %v by %v", e.X.ExprType(), e.Y.ExprType())
	}
	left := e.Op == ir.Shl
	switch k {
	case kI32:
		return shiftBy(left, x.(val[int32]), y, yk), nil
	case kU32:
		return shiftBy(left, x.(val[uint32]), y, yk), nil
	case kI64:
		return shiftBy(left, x.(val[int64]), y, yk), nil
	default:
		return shiftBy(left, x.(val[uint64]), y, yk), nil
	}
}

func shiftBy[T integer](left bool, x val[T], y any, yk kind) any {
	switch yk {
	case kI32:
		return fnVal(shiftOp(left, x, y.(val[int32])))
	case kU32:
		return fnVal(shiftOp(left, x, y.(val[uint32])))
	case kI64:
		return fnVal(shiftOp(left, x, y.(val[int64])))
	default:
		return fnVal(shiftOp(left, x, y.(val[uint64])))
	}
}

func shiftOp[T, C integer](left bool, x val[T], y val[C]) func(*thread) T {
	xf := x.get()
	if y.slot {
		yo := y.off
		if left {
			return func(t *thread) T { return xf(t) << uint64(ld[C](t, yo)) }
		}
		return func(t *thread) T { return xf(t) >> uint64(ld[C](t, yo)) }
	}
	yf := y.fn
	if left {
		return func(t *thread) T { return xf(t) << uint64(yf(t)) }
	}
	return func(t *thread) T { return xf(t) >> uint64(yf(t)) }
}

// unary compiles Op X.
func (c *compiler) unary(e *ir.Unary) (any, error) {
	x, k, err := c.exprKind(e.X)
	if err != nil {
		return nil, err
	}
	var f any
	switch {
	case e.Op == ir.Not && k == kBool:
		xf := x.(val[bool]).get()
		f = fnVal(func(t *thread) bool { return !xf(t) })
	case e.Op == ir.Neg:
		switch k {
		case kI32:
			f = neg(x.(val[int32]))
		case kU32:
			f = neg(x.(val[uint32]))
		case kI64:
			f = neg(x.(val[int64]))
		case kU64:
			f = neg(x.(val[uint64]))
		case kF32:
			f = neg(x.(val[float32]))
		case kF64:
			f = neg(x.(val[float64]))
		}
	case e.Op == ir.BitNot:
		switch k {
		case kI32:
			f = bitNot(x.(val[int32]))
		case kU32:
			f = bitNot(x.(val[uint32]))
		case kI64:
			f = bitNot(x.(val[int64]))
		case kU64:
			f = bitNot(x.(val[uint64]))
		}
	}
	if f == nil {
		return nil, errorf(e.Pos, "operator %s on %v is not supported by the CPU interpreter", e.Op, e.X.ExprType())
	}
	return f, nil
}

func neg[T number](x val[T]) any {
	xf := x.get()
	return fnVal(func(t *thread) T { return -xf(t) })
}

func bitNot[T integer](x val[T]) any {
	xf := x.get()
	return fnVal(func(t *thread) T { return ^xf(t) })
}
