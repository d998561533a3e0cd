package opt

import (
	"math"

	"github.com/anygpu/gpu/kernel/internal/kmath"

	"github.com/anygpu/gpu/kernel/internal/ir"
)

// foldExpr folds the constant parts of e: an operator, conversion or len()
// whose operands are all constants becomes one Const with the value Go's
// typed arithmetic gives (integers wrap, x/0 == x and x%0 == 0 as ir.Div and
// ir.Rem say). Only integer and boolean values are computed; a float result
// is left alone, except an integer constant converted to float32 or float64
// (exact in Go: one rounding). Children are replaced in place (each folded
// node has the same value, so a node shared between two places stays right);
// the result is e or its folded replacement. A nil e is nil.
func foldExpr(e ir.Expr) ir.Expr {
	switch x := e.(type) {
	case *ir.Index:
		x.X = foldExpr(x.X)
		x.Index = foldExpr(x.Index)
	case *ir.Lane:
		x.X = foldExpr(x.X)
	case *ir.MakeVec:
		for i := range x.Elems {
			x.Elems[i] = foldExpr(x.Elems[i])
		}
	case *ir.Unary:
		x.X = foldExpr(x.X)
		if c, ok := x.X.(*ir.Const); ok {
			if r, ok := foldUnary(x.Op, c); ok {
				r.Pos = x.Pos
				return r
			}
		}
	case *ir.Binary:
		x.X = foldExpr(x.X)
		x.Y = foldExpr(x.Y)
		if r := foldBinary(x); r != nil {
			return r
		}
	case *ir.Convert:
		x.X = foldExpr(x.X)
		if c, ok := x.X.(*ir.Const); ok {
			if r, ok := convertConst(c, x.To); ok {
				r.Pos = x.Pos
				return r
			}
		}
	case *ir.Call:
		for i := range x.Args {
			x.Args[i] = foldExpr(x.Args[i])
		}
	case *ir.CallBuiltin:
		for i := range x.Args {
			x.Args[i] = foldExpr(x.Args[i])
		}
		if r, ok := foldLen(x); ok {
			return r
		}
		if r, ok := foldIntBuiltin(x); ok {
			return r
		}
	case *ir.Atomic:
		if x.Place != nil {
			x.Place.X = foldExpr(x.Place.X)
			x.Place.Index = foldExpr(x.Place.Index)
		}
		for i := range x.Args {
			x.Args[i] = foldExpr(x.Args[i])
		}
	}
	return e
}

// foldLen is len(a) of an array whose expression has no effects: the
// array's length, a constant of the call's type.
func foldLen(x *ir.CallBuiltin) (*ir.Const, bool) {
	if x.Builtin != ir.Len || len(x.Args) != 1 || hasEffects(x.Args[0]) {
		return nil, false
	}
	a, ok := x.Args[0].ExprType().(*ir.Array)
	t, tok := x.Type.(ir.Scalar)
	if !ok || !tok || !t.IsInt() {
		return nil, false
	}
	c := &ir.Const{Type: t, Pos: x.Pos}
	setInt(c, uint64(a.Len))
	return c, true
}

// foldIntBuiltin folds Abs, Min, Max or Clamp of integer constants, as
// package kernel computes them. WGSL must not see them: it evaluates such a
// call as a constant expression, in which an overflow further on (a shift
// of its result past the top bit) is a shader-creation error.
func foldIntBuiltin(x *ir.CallBuiltin) (*ir.Const, bool) {
	t, ok := x.Type.(ir.Scalar)
	if x.Builtin < ir.Abs || x.Builtin > ir.Clamp || !ok || !t.IsInt() {
		return nil, false
	}
	args := make([]uint64, len(x.Args))
	for i, a := range x.Args {
		c, ok := a.(*ir.Const)
		if !ok || c.Type != t {
			return nil, false
		}
		args[i] = intOf(c)
	}
	var v uint64
	switch t {
	case ir.I32:
		v = uint64(numBuiltin(x.Builtin, convertArgs[int32](args)))
	case ir.U32:
		v = uint64(numBuiltin(x.Builtin, convertArgs[uint32](args)))
	case ir.I64:
		v = uint64(numBuiltin(x.Builtin, convertArgs[int64](args)))
	default:
		v = numBuiltin(x.Builtin, args)
	}
	c := &ir.Const{Type: t, Pos: x.Pos}
	setInt(c, v)
	return c, true
}

// convertArgs is the bit patterns args as integers of type T.
func convertArgs[T int32 | uint32 | int64 | uint64](args []uint64) []T {
	out := make([]T, len(args))
	for i, a := range args {
		out[i] = T(a)
	}
	return out
}

// numBuiltin is Abs, Min, Max or Clamp (b) of args, as package kernel has it.
func numBuiltin[T int32 | uint32 | int64 | uint64](b ir.Builtin, args []T) T {
	switch {
	case b == ir.Abs && len(args) == 1:
		return kmath.Abs(args[0])
	case b == ir.Min && len(args) == 2:
		return min(args[0], args[1])
	case b == ir.Max && len(args) == 2:
		return max(args[0], args[1])
	case b == ir.Clamp && len(args) == 3:
		return kmath.Clamp(args[0], args[1], args[2])
	}
	return args[0]
}

// hasEffects reports whether evaluating e may do more than read: a call
// (of a helper) or an atomic.
func hasEffects(e ir.Expr) bool {
	found := false
	ir.WalkExpr(e, func(x ir.Expr) {
		switch x.(type) {
		case *ir.Call, *ir.Atomic:
			found = true
		}
	})
	return found
}

// foldBinary is x folded, or nil when it is not constant. A short-circuit
// operator with a constant left operand folds even when the right one is
// not: false && y is false and true && y is y (y is not evaluated in the
// first case, as in Go).
func foldBinary(x *ir.Binary) ir.Expr {
	cx, okx := x.X.(*ir.Const)
	cy, oky := x.Y.(*ir.Const)
	if (x.Op == ir.LAnd || x.Op == ir.LOr) && okx && cx.Type == ir.Bool {
		if cx.Bool == (x.Op == ir.LOr) {
			return &ir.Const{Type: ir.Bool, Bool: cx.Bool, Pos: x.Pos}
		}
		return x.Y
	}
	if !okx || !oky {
		return nil
	}
	var r *ir.Const
	var ok bool
	switch {
	case cx.Type == ir.Bool && cy.Type == ir.Bool:
		r, ok = boolBinary(x.Op, cx.Bool, cy.Bool)
	case x.Op == ir.Shl || x.Op == ir.Shr:
		r, ok = shiftConst(x.Op, cx, cy)
	case cx.Type != cy.Type || !cx.Type.IsInt():
		return nil
	default:
		r, ok = intBinary(x.Op, cx, cy)
	}
	if !ok {
		return nil
	}
	r.Pos = x.Pos
	return r
}

// boolBinary folds ==, != (and &&, || with both constant) of booleans.
func boolBinary(op ir.Op, a, b bool) (*ir.Const, bool) {
	var v bool
	switch op {
	case ir.Eq:
		v = a == b
	case ir.Ne:
		v = a != b
	case ir.LAnd:
		v = a && b
	case ir.LOr:
		v = a || b
	default:
		return nil, false
	}
	return &ir.Const{Type: ir.Bool, Bool: v}, true
}

// intOf is c's value as the 64-bit pattern of its type (sign-extended for
// signed types).
func intOf(c *ir.Const) uint64 {
	if c.Type.IsSigned() {
		return uint64(c.Int)
	}
	return c.Uint
}

// setInt stores the bit pattern v in c, truncated to c's type (Int for the
// signed types, sign-extended; Uint for the unsigned ones).
func setInt(c *ir.Const, v uint64) {
	switch c.Type {
	case ir.I32:
		c.Int = int64(int32(v))
	case ir.I64:
		c.Int = int64(v)
	case ir.U32:
		c.Uint = uint64(uint32(v))
	case ir.U64:
		c.Uint = v
	}
}

// intBinary folds an arithmetic, bitwise or comparison operator on two
// integer constants of one type with Go's semantics for that type.
func intBinary(op ir.Op, a, b *ir.Const) (*ir.Const, bool) {
	switch a.Type {
	case ir.I32:
		return typedBinary(op, a.Type, int32(a.Int), int32(b.Int))
	case ir.I64:
		return typedBinary(op, a.Type, a.Int, b.Int)
	case ir.U32:
		return typedBinary(op, a.Type, uint32(a.Uint), uint32(b.Uint))
	case ir.U64:
		return typedBinary(op, a.Type, a.Uint, b.Uint)
	}
	return nil, false
}

// integer is the Go types of the IR's integer scalars.
type integer interface {
	int32 | int64 | uint32 | uint64
}

// typedBinary is a op b in T, of IR type t, or false for an operator that
// does not apply. Division by zero gives a and the remainder 0 (ir.Div,
// ir.Rem); Go's own division wraps the most negative value divided by -1.
func typedBinary[T integer](op ir.Op, t ir.Scalar, a, b T) (*ir.Const, bool) {
	var v T
	switch op {
	case ir.Add:
		v = a + b
	case ir.Sub:
		v = a - b
	case ir.Mul:
		v = a * b
	case ir.Div:
		v = a
		if b != 0 {
			v = a / b
		}
	case ir.Rem:
		if b != 0 {
			v = a % b
		}
	case ir.And:
		v = a & b
	case ir.Or:
		v = a | b
	case ir.Xor:
		v = a ^ b
	case ir.AndNot:
		v = a &^ b
	case ir.Eq, ir.Ne, ir.Lt, ir.Le, ir.Gt, ir.Ge:
		return &ir.Const{Type: ir.Bool, Bool: compare(op, a, b)}, true
	default:
		return nil, false
	}
	c := &ir.Const{Type: t}
	setInt(c, uint64(v))
	return c, true
}

// compare is a op b for a comparison op.
func compare[T integer](op ir.Op, a, b T) bool {
	switch op {
	case ir.Eq:
		return a == b
	case ir.Ne:
		return a != b
	case ir.Lt:
		return a < b
	case ir.Le:
		return a <= b
	case ir.Gt:
		return a > b
	}
	return a >= b
}

// shiftConst folds a << n or a >> n (Go's shifts: a count of the width or
// more gives 0, or -1 for a negative signed a shifted right). A negative
// count is the kernel's error and is left alone.
func shiftConst(op ir.Op, a, n *ir.Const) (*ir.Const, bool) {
	if !a.Type.IsInt() || !n.Type.IsInt() || (n.Type.IsSigned() && n.Int < 0) {
		return nil, false
	}
	count := intOf(n)
	switch a.Type {
	case ir.I32:
		return typedShift(op, a.Type, int32(a.Int), count)
	case ir.I64:
		return typedShift(op, a.Type, a.Int, count)
	case ir.U32:
		return typedShift(op, a.Type, uint32(a.Uint), count)
	case ir.U64:
		return typedShift(op, a.Type, a.Uint, count)
	}
	return nil, false
}

// typedShift is a << n or a >> n in T, of IR type t.
func typedShift[T integer](op ir.Op, t ir.Scalar, a T, n uint64) (*ir.Const, bool) {
	c := &ir.Const{Type: t}
	if op == ir.Shl {
		setInt(c, uint64(a<<n))
	} else {
		setInt(c, uint64(a>>n))
	}
	return c, true
}

// foldUnary folds -x, ^x of an integer and !x of a boolean.
func foldUnary(op ir.Op, c *ir.Const) (*ir.Const, bool) {
	if c.Type == ir.Bool {
		if op != ir.Not {
			return nil, false
		}
		return &ir.Const{Type: ir.Bool, Bool: !c.Bool}, true
	}
	if !c.Type.IsInt() || (op != ir.Neg && op != ir.BitNot) {
		return nil, false
	}
	zero := &ir.Const{Type: c.Type}
	if op == ir.Neg {
		return intBinary(ir.Sub, zero, c)
	}
	all := &ir.Const{Type: c.Type}
	setInt(all, math.MaxUint64)
	return intBinary(ir.Xor, c, all)
}

// convertConst converts an integer constant to another integer type (Go's
// conversion: truncation or extension by the source's signedness) or to
// float32 or float64 (rounded once, to nearest even).
func convertConst(c *ir.Const, to ir.Scalar) (*ir.Const, bool) {
	if !c.Type.IsInt() {
		return nil, false
	}
	r := &ir.Const{Type: to}
	switch {
	case to.IsInt():
		setInt(r, intOf(c))
	case to == ir.F32 && c.Type.IsSigned():
		r.Float = float64(float32(c.Int))
	case to == ir.F32:
		r.Float = float64(float32(c.Uint))
	case to == ir.F64 && c.Type.IsSigned():
		r.Float = float64(c.Int)
	case to == ir.F64:
		r.Float = float64(c.Uint)
	default:
		return nil, false
	}
	return r, true
}
