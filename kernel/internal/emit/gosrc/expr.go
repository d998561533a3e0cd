package gosrc

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/anygpu/gpu/kernel/internal/ir"
)

// Go's operator precedences, and two more levels: unary expressions and
// primary ones (operands, calls, conversions, index expressions).
const (
	precUnary   = 6
	precPrimary = 7
)

func binaryPrec(op ir.Op) int {
	switch op {
	case ir.Mul, ir.Div, ir.Rem, ir.Shl, ir.Shr, ir.And, ir.AndNot:
		return 5
	case ir.Add, ir.Sub, ir.Or, ir.Xor:
		return 4
	case ir.Eq, ir.Ne, ir.Lt, ir.Le, ir.Gt, ir.Ge:
		return 3
	case ir.LAnd:
		return 2
	}
	return 1 // LOr
}

// expr is x as a Go expression of x's own type.
func (f *fn) expr(x ir.Expr) (string, error) {
	s, _, err := f.exprP(x, false)
	return s, err
}

// exprUntyped is x as a Go expression, where a constant may be an untyped
// literal (the context gives it x's type: an assignment, an index, an
// operand next to a typed one).
func (f *fn) exprUntyped(x ir.Expr) (string, error) {
	s, _, err := f.exprP(x, true)
	return s, err
}

// operand is x with parentheses when its precedence is below min.
func (f *fn) operand(x ir.Expr, min int, untyped bool) (string, error) {
	s, p, err := f.exprP(x, untyped)
	if err != nil {
		return "", err
	}
	if p < min {
		return "(" + s + ")", nil
	}
	return s, nil
}

// u32 is x converted to uint32 (kernel.Load4 and Store4 take one).
func (f *fn) u32(x ir.Expr) (string, error) {
	if x.ExprType() == ir.U32 {
		return f.exprUntyped(x)
	}
	s, err := f.expr(x)
	if err != nil {
		return "", err
	}
	if isGoConst(x) {
		s = f.e.rtHelper() + "(" + s + ")"
	}
	return "uint32(" + s + ")", nil
}

// isGoConst reports whether x's Go form is a constant expression, which Go
// evaluates exactly at compile time, rejecting overflow, where the kernel
// language wraps: the emitter then routes one operand through an identity
// function.
func isGoConst(x ir.Expr) bool {
	switch x := x.(type) {
	case *ir.Const:
		if x.Type.IsFloat() {
			return constFloatLiteral(x) != ""
		}
		return true
	case *ir.Unary:
		_, vec := x.X.ExprType().(*ir.Vec)
		return !vec && isGoConst(x.X)
	case *ir.Binary:
		if s, ok := x.X.ExprType().(ir.Scalar); ok && s.IsInt() && (x.Op == ir.Div || x.Op == ir.Rem) && !nonzeroConst(x.Y) {
			return false
		}
		if _, vec := x.X.ExprType().(*ir.Vec); vec {
			return false
		}
		return isGoConst(x.X) && isGoConst(x.Y)
	case *ir.Convert:
		if x.To.IsInt() && ir.ElemScalar(x.X.ExprType()).IsFloat() {
			return false
		}
		return isGoConst(x.X)
	case *ir.CallBuiltin:
		switch x.Builtin {
		case ir.Len:
			return true
		case ir.Min, ir.Max:
			for _, a := range x.Args {
				if !isGoConst(a) {
					return false
				}
			}
			return true
		}
	}
	return false
}

// nonzeroConst reports whether x is an integer constant other than 0.
func nonzeroConst(x ir.Expr) bool {
	c, ok := x.(*ir.Const)
	if !ok {
		return false
	}
	if c.Type.IsSigned() {
		return c.Int != 0
	}
	return c.Type.IsInt() && c.Uint != 0
}

// constFloatLiteral is a float constant as a Go literal, or "" when Go
// constants cannot hold it (infinities, NaN, negative zero).
func constFloatLiteral(c *ir.Const) string {
	v := c.Float
	if math.IsInf(v, 0) || math.IsNaN(v) || (v == 0 && math.Signbit(v)) {
		return ""
	}
	bits := 64
	if c.Type == ir.F32 {
		bits = 32
	}
	return strconv.FormatFloat(v, 'g', -1, bits)
}

func (f *fn) constant(c *ir.Const, untyped bool) (string, int, error) {
	var lit string
	switch {
	case c.Type == ir.Bool:
		return strconv.FormatBool(c.Bool), precPrimary, nil
	case c.Type == ir.I32 || c.Type == ir.I64:
		lit = strconv.FormatInt(c.Int, 10)
	case c.Type == ir.U32 || c.Type == ir.U64:
		lit = strconv.FormatUint(c.Uint, 10)
	case c.Type == ir.F32 || c.Type == ir.F64:
		lit = constFloatLiteral(c)
		if lit == "" {
			if c.Type == ir.F32 {
				return fmt.Sprintf("%sFloat32frombits(0x%08x)", f.e.kernelPkg(), math.Float32bits(float32(c.Float))), precPrimary, nil
			}
			f.e.imports[importMath] = true
			return fmt.Sprintf("math.Float64frombits(0x%016x)", math.Float64bits(c.Float)), precPrimary, nil
		}
	default:
		_, err := f.e.goType(c.Type, c.Pos)
		if err == nil {
			err = fmt.Errorf("%s: gosrc: a constant of type %s", c.Pos, c.Type)
		}
		return "", 0, err
	}
	if untyped {
		if lit[0] == '-' {
			return lit, precUnary, nil
		}
		return lit, precPrimary, nil
	}
	return c.Type.String() + "(" + lit + ")", precPrimary, nil
}

// exprP is x as Go and its precedence.
func (f *fn) exprP(x ir.Expr, untyped bool) (string, int, error) {
	switch x := x.(type) {
	case *ir.Const:
		return f.constant(x, untyped)
	case *ir.Ref:
		return f.ref(x.Var), precPrimary, nil
	case *ir.Index:
		if s, ok := f.fastIndex(x); ok {
			return s, precPrimary, nil
		}
		arr, err := f.operand(x.X, precPrimary, false)
		if err != nil {
			return "", 0, err
		}
		idx, err := f.exprUntyped(x.Index)
		if err != nil {
			return "", 0, err
		}
		return arr + "[" + idx + "]", precPrimary, nil
	case *ir.Lane:
		if in, ok := f.forwardedLane(x.X, x.N); ok {
			return in, precPrimary, nil
		}
		v, err := f.operand(x.X, precPrimary, false)
		if err != nil {
			return "", 0, err
		}
		if x.N < 0 || x.N > 3 {
			return "", 0, fmt.Errorf("%s: gosrc: lane %d of a Float4", x.Pos, x.N)
		}
		return v + "." + "XYZW"[x.N:x.N+1], precPrimary, nil
	case *ir.MakeVec:
		t, err := f.e.goType(x.Type, x.Pos)
		if err != nil {
			return "", 0, err
		}
		s := t + "{"
		for i, el := range x.Elems {
			v, err := f.exprUntyped(el)
			if err != nil {
				return "", 0, err
			}
			if i > 0 {
				s += ", "
			}
			if i < 4 {
				s += "XYZW"[i:i+1] + ": "
			}
			s += v
		}
		return s + "}", precPrimary, nil
	case *ir.Unary:
		return f.unary(x)
	case *ir.Binary:
		return f.binary(x)
	case *ir.Convert:
		return f.convert(x)
	case *ir.Call:
		s := f.e.funcNames[x.Func] + "("
		for i, a := range x.Args {
			v, err := f.exprUntyped(a)
			if err != nil {
				return "", 0, err
			}
			if i > 0 {
				s += ", "
			}
			s += v
		}
		return s + ")", precPrimary, nil
	case *ir.CallBuiltin:
		return f.builtin(x, untyped)
	case *ir.Atomic:
		return f.atomic(x)
	}
	return "", 0, fmt.Errorf("%s: gosrc: unknown expression %T", x.ExprPos(), x)
}

// ref reads a variable where it lives.
func (f *fn) ref(v *ir.Var) string {
	name := f.names[v]
	if f.kind(v) == kindSpill {
		return f.spillRef(name)
	}
	return name
}

func (f *fn) unary(x *ir.Unary) (string, int, error) {
	if _, vec := x.X.ExprType().(*ir.Vec); vec {
		if x.Op != ir.Neg {
			return "", 0, fmt.Errorf("%s: gosrc: operator %s on a Float4", x.Pos, x.Op)
		}
		v, err := f.expr(x.X)
		if err != nil {
			return "", 0, err
		}
		return f.e.vecHelper(ir.Neg) + "(" + v + ")", precPrimary, nil
	}
	v, err := f.operand(x.X, precPrimary, false)
	if err != nil {
		return "", 0, err
	}
	if isGoConst(x.X) {
		v = f.e.rtHelper() + "(" + v + ")"
	}
	var op string
	switch x.Op {
	case ir.Neg:
		op = "-"
	case ir.Not:
		op = "!"
	case ir.BitNot:
		op = "^"
	default:
		return "", 0, fmt.Errorf("%s: gosrc: unary operator %s", x.Pos, x.Op)
	}
	return op + v, precUnary, nil
}

func (f *fn) binary(x *ir.Binary) (string, int, error) {
	if f.strip != nil && f.strip.isStripDiv(x) {
		return nameSub, precPrimary, nil
	}
	xt := x.X.ExprType()
	if _, vec := xt.(*ir.Vec); vec {
		return f.vecBinary(x)
	}
	st, _ := xt.(ir.Scalar)
	switch {
	case st.IsInt() && (x.Op == ir.Div || x.Op == ir.Rem) && !nonzeroConst(x.Y):
		if s, ok, err := f.uniformDivision(x); ok || err != nil {
			return s, precPrimary, err
		}
		a, err := f.expr(x.X)
		if err != nil {
			return "", 0, err
		}
		b, err := f.expr(x.Y)
		if err != nil {
			return "", 0, err
		}
		return f.e.divHelper(x.Op, st) + "(" + a + ", " + b + ")", precPrimary, nil
	case st.IsFloat() && x.Op == ir.Rem:
		return "", 0, fmt.Errorf("%s: %% on floats is not allowed; use x - kernel.Trunc(x/y)*y", x.Pos)
	}
	prec := binaryPrec(x.Op)
	shift := x.Op == ir.Shl || x.Op == ir.Shr
	xConst, yConst := isGoConst(x.X), isGoConst(x.Y)
	a, err := f.operand(x.X, prec, !shift && !yConst)
	if err != nil {
		return "", 0, err
	}
	if xConst && yConst {
		a = f.e.rtHelper() + "(" + a + ")"
		xConst = false
	}
	b, err := f.operand(x.Y, prec+1, shift || !xConst)
	if err != nil {
		return "", 0, err
	}
	if st.IsFloat() && x.Op == ir.Div && yConst {
		if c, ok := x.Y.(*ir.Const); ok && c.Float == 0 {
			b = f.e.rtHelper() + "(" + st.String() + "(0))"
		}
	}
	s := a + " " + x.Op.String() + " " + b
	if st.IsFloat() && x.Op == ir.Mul {
		// An explicit conversion rounds the product: Go may not fuse it
		// into an addition then.
		return st.String() + "(" + s + ")", precPrimary, nil
	}
	return s, prec, nil
}

func (f *fn) vecBinary(x *ir.Binary) (string, int, error) {
	a, err := f.expr(x.X)
	if err != nil {
		return "", 0, err
	}
	b, err := f.expr(x.Y)
	if err != nil {
		return "", 0, err
	}
	switch x.Op {
	case ir.Add, ir.Sub, ir.Mul, ir.Div:
		return f.e.vecHelper(x.Op) + "(" + a + ", " + b + ")", precPrimary, nil
	case ir.Eq, ir.Ne:
		return a + " " + x.Op.String() + " " + b, binaryPrec(x.Op), nil
	}
	return "", 0, fmt.Errorf("%s: operator %s on a Float4 is not allowed; apply it to the lanes", x.Pos, x.Op)
}

func (f *fn) convert(x *ir.Convert) (string, int, error) {
	from := ir.ElemScalar(x.X.ExprType())
	if _, err := f.e.goType(x.To, x.Pos); err != nil {
		return "", 0, err
	}
	v, err := f.expr(x.X)
	if err != nil {
		return "", 0, err
	}
	if from.IsFloat() && x.To.IsInt() {
		if from != ir.F64 {
			v = "float64(" + v + ")"
		}
		return f.e.floatToIntHelper(x.To) + "(" + v + ")", precPrimary, nil
	}
	if isGoConst(x.X) && from.IsInt() {
		v = f.e.rtHelper() + "(" + v + ")"
	}
	return x.To.String() + "(" + v + ")", precPrimary, nil
}

// builtinIDs maps the id built-ins to the loop variables and hoisted values.
var builtinIDs = map[ir.Builtin]string{
	ir.ThreadX: "agTx", ir.ThreadY: "agTy", ir.ThreadZ: "agTz",
	ir.GroupX: "agGx", ir.GroupY: "agGy", ir.GroupZ: "agGz",
	ir.GroupSizeX: "agSx", ir.GroupSizeY: "agSy", ir.GroupSizeZ: "agSz",
	ir.GridX: "agNx", ir.GridY: "agNy", ir.GridZ: "agNz",
	ir.GlobalX: "agOx", ir.GlobalY: "agOy", ir.GlobalZ: "agOz",
}

func (f *fn) builtin(x *ir.CallBuiltin, untyped bool) (string, int, error) {
	b := x.Builtin
	if b.IsID() {
		if !f.f.Kernel {
			return "", 0, fmt.Errorf("%s: kernel.%s in a helper function is not supported; pass it from the kernel as an argument", x.Pos, b)
		}
		perThread := b == ir.ThreadIndex || (b >= ir.ThreadX && b <= ir.ThreadZ) || (b >= ir.GlobalX && b <= ir.GlobalZ)
		if perThread && !f.inPhase {
			return "", 0, fmt.Errorf("%s: kernel.%s in a condition around a Barrier; the condition must be the same in every thread of the group", x.Pos, b)
		}
		switch {
		case b == ir.ThreadIndex:
			f.tidUsed = true
			return nameTid, precPrimary, nil
		case b >= ir.GlobalX && b <= ir.GlobalZ:
			axis := "xyz"[b-ir.GlobalX : b-ir.GlobalX+1]
			return f.use(builtinIDs[b]) + " + agT" + axis, 4, nil
		case b >= ir.GroupX && b <= ir.GroupZ, b >= ir.GridX && b <= ir.GridZ:
			return f.use(builtinIDs[b]), precPrimary, nil
		}
		return builtinIDs[b], precPrimary, nil
	}
	args := make([]string, len(x.Args))
	for i, a := range x.Args {
		v, err := f.expr(a)
		if err != nil {
			return "", 0, err
		}
		args[i] = v
	}
	call := func(name string) string {
		s := name + "("
		for i, a := range args {
			if i > 0 {
				s += ", "
			}
			s += a
		}
		return s + ")"
	}
	switch b {
	case ir.Sqrt, ir.Rsqrt, ir.Exp, ir.Exp2, ir.Log, ir.Log2, ir.Sin, ir.Cos, ir.Tanh, ir.Pow,
		ir.Floor, ir.Ceil, ir.Trunc, ir.Fma, ir.Abs, ir.Clamp, ir.Float32Bits, ir.Float32FromBits:
		return call(f.e.kernelPkg() + b.String()), precPrimary, nil
	case ir.Min, ir.Max:
		if isGoConst(x) && len(args) > 0 {
			args[0] = f.e.rtHelper() + "(" + args[0] + ")"
		}
		return call(strings.ToLower(b.String())), precPrimary, nil
	case ir.Len:
		if len(x.Args) != 1 {
			return "", 0, fmt.Errorf("%s: gosrc: len takes one argument", x.Pos)
		}
		arr, ok := x.Args[0].ExprType().(*ir.Array)
		if !ok {
			return "", 0, fmt.Errorf("%s: len of a buffer is not allowed; pass its length as a parameter", x.Pos)
		}
		return f.constant(&ir.Const{Type: ir.ElemScalar(x.Type), Int: int64(arr.Len), Uint: uint64(arr.Len), Pos: x.Pos}, untyped)
	case ir.Load4:
		if len(x.Args) != 2 {
			return "", 0, fmt.Errorf("%s: gosrc: Load4 takes two arguments", x.Pos)
		}
		if s, ok := f.windowLoad4(x); ok {
			return s, precPrimary, nil
		}
		idx, err := f.u32(x.Args[1])
		if err != nil {
			return "", 0, err
		}
		return f.e.load4Helper() + "(" + args[0] + ", " + idx + ")", precPrimary, nil
	}
	return "", 0, fmt.Errorf("%s: gosrc: unknown built-in %s", x.Pos, b)
}

var atomicNames = map[ir.AtomicOp]string{
	ir.AtomicAdd: "AtomicAdd", ir.AtomicMin: "AtomicMin", ir.AtomicMax: "AtomicMax",
	ir.AtomicAnd: "AtomicAnd", ir.AtomicOr: "AtomicOr", ir.AtomicXor: "AtomicXor",
	ir.AtomicExchange: "AtomicExchange", ir.AtomicCompareExchange: "AtomicCompareExchange",
}

func (f *fn) atomic(x *ir.Atomic) (string, int, error) {
	name, ok := atomicNames[x.Op]
	if !ok {
		return "", 0, fmt.Errorf("%s: gosrc: unknown atomic operation %d", x.Pos, x.Op)
	}
	place, err := f.expr(x.Place)
	if err != nil {
		return "", 0, err
	}
	s := f.e.kernelPkg() + name + "(&" + place
	for _, a := range x.Args {
		v, err := f.expr(a)
		if err != nil {
			return "", 0, err
		}
		s += ", " + v
	}
	return s + ")", precPrimary, nil
}
