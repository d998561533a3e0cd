package gosrc

import "github.com/anygpu/gpu/kernel/internal/ir"

// Builders of IR for the tests: the front end's output, written by hand.

func i32(v int64) *ir.Const   { return &ir.Const{Type: ir.I32, Int: v} }
func u32(v uint64) *ir.Const  { return &ir.Const{Type: ir.U32, Uint: v} }
func f32(v float64) *ir.Const { return &ir.Const{Type: ir.F32, Float: float64(float32(v))} }

func ref(v *ir.Var) *ir.Ref { return &ir.Ref{Var: v} }

func local(name string, t ir.Type) *ir.Var { return &ir.Var{Name: name, Type: t, Class: ir.Local} }

func shared(name string, t ir.Type) *ir.Var { return &ir.Var{Name: name, Type: t, Class: ir.Shared} }

func params(vs ...*ir.Var) []*ir.Var {
	for i, v := range vs {
		v.Class, v.Index = ir.Param, i
	}
	return vs
}

func buf(name string, elem ir.Scalar) *ir.Var {
	return &ir.Var{Name: name, Type: &ir.Slice{Elem: elem}}
}

func scalar(name string, t ir.Scalar) *ir.Var { return &ir.Var{Name: name, Type: t} }

func bin(op ir.Op, x, y ir.Expr) *ir.Binary {
	t := x.ExprType()
	if op.IsCompare() || op == ir.LAnd || op == ir.LOr {
		t = ir.Bool
	}
	return &ir.Binary{Op: op, X: x, Y: y, Type: t}
}

func index(x, i ir.Expr) *ir.Index {
	var elem ir.Type
	switch t := x.ExprType().(type) {
	case *ir.Slice:
		elem = t.Elem
	case *ir.Array:
		elem = t.Elem
	}
	return &ir.Index{X: x, Index: i, Type: elem}
}

func builtin(b ir.Builtin, args ...ir.Expr) *ir.CallBuiltin {
	var t ir.Type = ir.U32
	if len(args) > 0 && !b.IsID() {
		t = args[0].ExprType()
	}
	if b == ir.Len {
		t = ir.I32
	}
	return &ir.CallBuiltin{Builtin: b, Args: args, Type: t}
}

func decl(v *ir.Var, init ir.Expr) *ir.Decl { return &ir.Decl{Var: v, Init: init} }

func assign(place, value ir.Expr) *ir.Assign { return &ir.Assign{Place: place, Value: value} }

func ifThen(cond ir.Expr, then ...ir.Stmt) *ir.If { return &ir.If{Cond: cond, Then: then} }

func convert(to ir.Scalar, x ir.Expr) *ir.Convert { return &ir.Convert{To: to, X: x} }

func array(elem ir.Type, n int) *ir.Array { return &ir.Array{Elem: elem, Len: n} }
