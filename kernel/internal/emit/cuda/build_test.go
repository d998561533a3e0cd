package cuda

import "github.com/anygpu/gpu/kernel/internal/ir"

// Builders of IR by hand, for the tests.

var at = ir.Pos{File: "k.go", Line: 3, Col: 7}

func param(name string, t ir.Type, i int) *ir.Var {
	return &ir.Var{Name: name, Type: t, Class: ir.Param, Index: i, Pos: at}
}

func local(name string, t ir.Type) *ir.Var {
	return &ir.Var{Name: name, Type: t, Class: ir.Local, Pos: at}
}

func shared(name string, t ir.Type) *ir.Var {
	return &ir.Var{Name: name, Type: t, Class: ir.Shared, Pos: at}
}

func ref(v *ir.Var) *ir.Ref { return &ir.Ref{Var: v, Pos: at} }

func i32(v int64) *ir.Const     { return &ir.Const{Type: ir.I32, Int: v, Pos: at} }
func u32(v uint64) *ir.Const    { return &ir.Const{Type: ir.U32, Uint: v, Pos: at} }
func f32(v float64) *ir.Const   { return &ir.Const{Type: ir.F32, Float: v, Pos: at} }
func boolc(v bool) *ir.Const    { return &ir.Const{Type: ir.Bool, Bool: v, Pos: at} }
func slice(s ir.Scalar) ir.Type { return &ir.Slice{Elem: s} }

func index(x ir.Expr, i ir.Expr) *ir.Index {
	var elem ir.Type
	switch t := x.ExprType().(type) {
	case *ir.Slice:
		elem = t.Elem
	case *ir.Array:
		elem = t.Elem
	}
	return &ir.Index{X: x, Index: i, Type: elem, Pos: at}
}

func bin(op ir.Op, x, y ir.Expr) *ir.Binary {
	t := x.ExprType()
	if op.IsCompare() {
		t = ir.Bool
	}
	return &ir.Binary{Op: op, X: x, Y: y, Type: t, Pos: at}
}

func un(op ir.Op, x ir.Expr) *ir.Unary { return &ir.Unary{Op: op, X: x, Pos: at} }

func conv(to ir.Scalar, x ir.Expr) *ir.Convert { return &ir.Convert{To: to, X: x, Pos: at} }

func builtin(b ir.Builtin, t ir.Type, args ...ir.Expr) *ir.CallBuiltin {
	return &ir.CallBuiltin{Builtin: b, Args: args, Type: t, Pos: at}
}

func decl(v *ir.Var, init ir.Expr) *ir.Decl { return &ir.Decl{Var: v, Init: init, Pos: at} }

func assign(place, value ir.Expr) *ir.Assign { return &ir.Assign{Place: place, Value: value, Pos: at} }

func kernel(name string, params []*ir.Var, body ...ir.Stmt) *ir.Func {
	return &ir.Func{Name: name, Kernel: true, Params: params, Body: body, Pos: at}
}

// saxpy is
//
//	func Saxpy(y, x []float32, n uint32, a float32) {
//		i := kernel.GlobalX()
//		if i < n {
//			y[i] = a*x[i] + y[i]
//		}
//	}
func saxpy() *ir.Func {
	y, x := param("y", slice(ir.F32), 0), param("x", slice(ir.F32), 1)
	n, a := param("n", ir.U32, 2), param("a", ir.F32, 3)
	i := local("i", ir.U32)
	return kernel("Saxpy", []*ir.Var{y, x, n, a},
		decl(i, builtin(ir.GlobalX, ir.U32)),
		&ir.If{Cond: bin(ir.Lt, ref(i), ref(n)), Then: []ir.Stmt{
			assign(index(ref(y), ref(i)), bin(ir.Add, bin(ir.Mul, ref(a), index(ref(x), ref(i))), index(ref(y), ref(i)))),
		}, Pos: at})
}
