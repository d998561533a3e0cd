package front

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"

	"github.com/anygpu/gpu/kernel/internal/ir"
)

// bad is the placeholder of an expression that had an error.
func bad(p ir.Pos) ir.Expr { return &ir.Const{Type: ir.Invalid, Pos: p} }

// unparen strips parentheses.
func unparen(e ast.Expr) ast.Expr { return ast.Unparen(e) }

// convert makes the conversion of x to t explicit where both are scalars
// that differ.
func convert(x ir.Expr, t ir.Type) ir.Expr {
	to, ok := t.(ir.Scalar)
	if !ok || to == ir.Invalid {
		return x
	}
	from, ok := x.ExprType().(ir.Scalar)
	if !ok || from == ir.Invalid || from == to {
		return x
	}
	if c, ok := x.(*ir.Const); ok {
		return convertConst(c, to)
	}
	return &ir.Convert{To: to, X: x, Pos: x.ExprPos()}
}

// convertConst converts a constant at translation time (an untyped
// constant that go/types left with its default type).
func convertConst(c *ir.Const, to ir.Scalar) *ir.Const {
	var v constant.Value
	switch {
	case c.Type == ir.Bool:
		v = constant.MakeBool(c.Bool)
	case c.Type.IsSigned():
		v = constant.MakeInt64(c.Int)
	case c.Type.IsInt():
		v = constant.MakeUint64(c.Uint)
	default:
		v = constant.MakeFloat64(c.Float)
	}
	return makeConst(to, v, c.Pos)
}

// makeConst is the constant v of type s.
func makeConst(s ir.Scalar, v constant.Value, p ir.Pos) *ir.Const {
	c := &ir.Const{Type: s, Pos: p}
	switch {
	case s == ir.Bool:
		c.Bool = v.Kind() == constant.Bool && constant.BoolVal(v)
	case s.IsSigned():
		i, _ := constant.Int64Val(constant.ToInt(v))
		if s == ir.I32 {
			i = int64(int32(i))
		}
		c.Int = i
	case s.IsInt():
		iv := constant.ToInt(v)
		u, exact := constant.Uint64Val(iv)
		if !exact { // a negative value: wrap
			i, _ := constant.Int64Val(iv)
			u = uint64(i)
		}
		if s == ir.U32 {
			u = uint64(uint32(u))
		}
		c.Uint = u
	case s == ir.F32:
		x, _ := constant.Float64Val(constant.ToFloat(v))
		c.Float = float64(float32(x))
	default:
		x, _ := constant.Float64Val(constant.ToFloat(v))
		c.Float = x
	}
	return c
}

// constant lowers an expression go/types folded to a constant.
func (f *fnLower) constant(e ast.Expr, tv types.TypeAndValue) ir.Expr {
	p := f.pos(e)
	if isFloat16(tv.Type) {
		f.errorf(e, "write kernel.ToFloat16(1.5)", "a constant of type kernel.Float16 is not allowed: it would be the half's bits")
		return bad(p)
	}
	b, ok := tv.Type.Underlying().(*types.Basic)
	if !ok {
		f.errorf(e, "", "constant of type %s is not allowed in a kernel", tv.Type)
		return bad(p)
	}
	s, hint := scalarOf(b)
	if s == ir.Invalid {
		f.errorf(e, hint, "constant of type %s is not allowed in a kernel", tv.Type)
		return bad(p)
	}
	return makeConst(s, tv.Value, p)
}

// expr lowers an expression.
func (f *fnLower) expr(e ast.Expr) ir.Expr {
	if tv, ok := f.l.info.Types[e]; ok && tv.Value != nil {
		return f.constant(e, tv)
	}
	p := f.pos(e)
	switch x := e.(type) {
	case *ast.ParenExpr:
		return f.expr(x.X)
	case *ast.Ident:
		return f.ident(x)
	case *ast.BasicLit:
		f.errorf(x, "", "this literal is not allowed in a kernel")
	case *ast.IndexExpr:
		if f.isFuncValue(x.X) {
			f.errorf(x, "call it", "a function value is not allowed in a kernel")
			return bad(p)
		}
		return f.index(x)
	case *ast.IndexListExpr:
		f.errorf(x, "call it", "a function value is not allowed in a kernel")
	case *ast.SelectorExpr:
		return f.selector(x)
	case *ast.UnaryExpr:
		return f.unary(x)
	case *ast.BinaryExpr:
		return f.binary(x)
	case *ast.CallExpr:
		return f.call(x)
	case *ast.CompositeLit:
		return f.composite(x)
	case *ast.FuncLit:
		f.errorf(x, "write a helper function at package level and call it", "closures (function literals) are not allowed in a kernel")
	case *ast.StarExpr:
		f.errorf(x, "index a buffer, an array or a shared array", "pointer indirection (*p) is not allowed in a kernel")
	case *ast.SliceExpr:
		f.errorf(x, "pass an offset as a parameter and index with it", "slicing is not allowed in a kernel")
	case *ast.TypeAssertExpr:
		f.errorf(x, "use concrete scalar types", "type assertions (interfaces) are not allowed in a kernel")
	default:
		f.errorf(e, "", "this expression is not allowed in a kernel")
	}
	return bad(p)
}

// isFuncValue reports whether e denotes a function.
func (f *fnLower) isFuncValue(e ast.Expr) bool {
	_, ok := f.typeOf(e).(*types.Signature)
	return ok
}

// ident lowers a variable's use as a value.
func (f *fnLower) ident(id *ast.Ident) ir.Expr {
	p := f.pos(id)
	switch obj := f.l.info.Uses[id].(type) {
	case *types.Nil:
		f.errorf(id, "use a concrete value", "nil is not allowed in a kernel")
		return bad(p)
	case *types.Func, *types.Builtin:
		f.errorf(id, "call it", "a function value is not allowed in a kernel")
		return bad(p)
	case *types.Var:
		_ = obj
	default:
		f.errorf(id, "", "%s is not allowed here in a kernel", id.Name)
		return bad(p)
	}
	v := f.varOf(id)
	if v == nil {
		return bad(p)
	}
	switch {
	case v.Class == ir.Shared:
		f.errorf(id, "index it: "+id.Name+"[i]", "shared array %s used as a value is not allowed", id.Name)
		return bad(p)
	case isSlice(v.Type):
		f.errorf(id, "index it ("+id.Name+"[i]); pass lengths and offsets as scalar parameters",
			"buffer %s used as a value is not allowed", id.Name)
		return bad(p)
	}
	return &ir.Ref{Var: v, Pos: p}
}

// index lowers x[i] of a buffer, an array or a shared array.
func (f *fnLower) index(e *ast.IndexExpr) ir.Expr {
	p := f.pos(e)
	switch u := f.typeOf(e.X).Underlying().(type) {
	case *types.Map:
		f.errorf(e, "use an array or a buffer indexed by the key", "maps are not allowed in a kernel")
		return bad(p)
	case *types.Basic:
		if u.Info()&types.IsString != 0 {
			f.errorf(e, "use numbers", "strings are not allowed in a kernel")
			return bad(p)
		}
	}
	var x ir.Expr
	switch b := unparen(e.X).(type) {
	case *ast.Ident:
		v := f.varOf(b)
		if v == nil {
			return bad(p)
		}
		x = &ir.Ref{Var: v, Pos: f.pos(b)}
	case *ast.IndexExpr:
		x = f.index(b)
	default:
		f.errorf(e.X, "store the value in a local variable and index that", "indexing this expression is not allowed in a kernel")
		return bad(p)
	}
	i := f.expr(e.Index)
	t := f.l.quietType(f.typeOf(e))
	if t == nil {
		return bad(p)
	}
	return &ir.Index{X: x, Index: i, Type: t, Pos: p}
}

// selector lowers a Float4 lane or reports another selector.
func (f *fnLower) selector(e *ast.SelectorExpr) ir.Expr {
	p := f.pos(e)
	sel := f.l.info.Selections[e]
	if sel == nil {
		f.errorf(e, "call it", "a function value is not allowed in a kernel")
		return bad(p)
	}
	switch {
	case sel.Kind() == types.FieldVal && f.l.isFloat4(sel.Recv()):
		x := f.expr(e.X)
		if _, ok := x.ExprType().(*ir.Vec); !ok {
			return bad(p) // x's error says why
		}
		return &ir.Lane{X: x, N: sel.Index()[0], Pos: p}
	case sel.Kind() == types.FieldVal:
		f.errorf(e, "use kernel.Float4, separate variables or arrays", "struct fields are not allowed in a kernel")
	default:
		f.errorf(e, "write a helper function that takes the value as a parameter", "methods are not allowed in a kernel")
	}
	return bad(p)
}

// unaryOps maps unary tokens to operators.
var unaryOps = map[token.Token]ir.Op{token.SUB: ir.Neg, token.NOT: ir.Not, token.XOR: ir.BitNot}

// unary lowers -x, !x, ^x and +x.
func (f *fnLower) unary(e *ast.UnaryExpr) ir.Expr {
	p := f.pos(e)
	switch e.Op {
	case token.ADD:
		return f.expr(e.X)
	case token.AND:
		f.errorf(e, "pointers are taken only as an atomic's first argument, kernel.AtomicAdd(&buf[i], v), and as the fragments of kernel.MMA and kernel.LoadMatrices4 and 2, kernel.MMA(&acc[j], &a, &b, p)",
			"taking an address (&) is not allowed in a kernel")
		return bad(p)
	case token.ARROW:
		f.errorf(e, "threads of a group share data through kernel.Shared arrays and kernel.Barrier",
			"receiving from a channel is not allowed in a kernel")
		return bad(p)
	}
	op, ok := unaryOps[e.Op]
	if !ok {
		f.errorf(e, "", "operator %s is not allowed in a kernel", e.Op)
		return bad(p)
	}
	return &ir.Unary{Op: op, X: f.expr(e.X), Pos: p}
}

// binaryOps maps binary tokens to operators.
var binaryOps = map[token.Token]ir.Op{
	token.ADD: ir.Add, token.SUB: ir.Sub, token.MUL: ir.Mul, token.QUO: ir.Div, token.REM: ir.Rem,
	token.AND: ir.And, token.OR: ir.Or, token.XOR: ir.Xor, token.AND_NOT: ir.AndNot,
	token.SHL: ir.Shl, token.SHR: ir.Shr,
	token.EQL: ir.Eq, token.NEQ: ir.Ne, token.LSS: ir.Lt, token.LEQ: ir.Le, token.GTR: ir.Gt, token.GEQ: ir.Ge,
	token.LAND: ir.LAnd, token.LOR: ir.LOr,
}

// binary lowers x op y.
func (f *fnLower) binary(e *ast.BinaryExpr) ir.Expr {
	p := f.pos(e)
	op, ok := binaryOps[e.Op]
	if !ok {
		f.errorf(e, "", "operator %s is not allowed in a kernel", e.Op)
		return bad(p)
	}
	xt := f.typeOf(e.X)
	if f.l.isFloat4(xt) {
		f.errorf(e, "compare the lanes: a.X == b.X && ...", "comparing Float4 values is not allowed in a kernel")
		return bad(p)
	}
	if _, ok := xt.Underlying().(*types.Array); ok {
		f.errorf(e, "compare the elements in a loop", "comparing arrays is not allowed in a kernel")
		return bad(p)
	}
	x, y := f.expr(e.X), f.expr(e.Y)
	var t ir.Type
	switch {
	case op.IsCompare() || op == ir.LAnd || op == ir.LOr:
		t = ir.Bool
	default:
		t = f.l.quietType(f.typeOf(e))
	}
	if t == nil {
		return bad(p)
	}
	if op != ir.Shl && op != ir.Shr {
		if op.IsCompare() {
			// Operands of a comparison have one type; an untyped side takes the other's.
			if xs, ok := x.ExprType().(ir.Scalar); ok {
				if _, isConst := x.(*ir.Const); isConst {
					x = convert(x, y.ExprType())
				} else {
					y = convert(y, xs)
				}
			}
		} else {
			x, y = convert(x, t), convert(y, t)
		}
	}
	return &ir.Binary{Op: op, X: x, Y: y, Type: t, Pos: p}
}

// composite lowers kernel.Float4{...}.
func (f *fnLower) composite(e *ast.CompositeLit) ir.Expr {
	p := f.pos(e)
	t := f.typeOf(e)
	if !f.l.isFloat4(t) {
		if _, ok := t.Underlying().(*types.Array); ok {
			f.errorf(e, "declare it (var a [4]float32) and assign the elements", "array literals are not allowed in a kernel")
		} else {
			f.errorf(e, "use kernel.Float4, separate variables or arrays", "composite literals of %s are not allowed in a kernel", t)
		}
		return bad(p)
	}
	lanes := make([]ir.Expr, 4)
	for i, el := range e.Elts {
		n, v := i, el
		if kv, ok := el.(*ast.KeyValueExpr); ok {
			n = map[string]int{"X": 0, "Y": 1, "Z": 2, "W": 3}[kv.Key.(*ast.Ident).Name]
			v = kv.Value
		}
		lanes[n] = convert(f.expr(v), ir.F32)
	}
	for i := range lanes {
		if lanes[i] == nil {
			lanes[i] = &ir.Const{Type: ir.F32, Pos: p}
		}
	}
	return &ir.MakeVec{Type: f.l.float4, Elems: lanes, Pos: p}
}
