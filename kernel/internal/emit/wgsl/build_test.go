package wgsl

import (
	"math"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/kernel/internal/ir"
)

// Helpers that build IR by hand, as the front end would.

var pos = ir.Pos{File: "k.go", Line: 1, Col: 1}

func param(name string, t ir.Type, i int) *ir.Var {
	return &ir.Var{Name: name, Type: t, Class: ir.Param, Index: i, Pos: pos}
}

func local(name string, t ir.Type) *ir.Var {
	return &ir.Var{Name: name, Type: t, Class: ir.Local, Pos: pos}
}

func shared(name string, t ir.Type) *ir.Var {
	return &ir.Var{Name: name, Type: t, Class: ir.Shared, Pos: pos}
}

func ref(v *ir.Var) *ir.Ref { return &ir.Ref{Var: v, Pos: pos} }

func u32(x uint32) *ir.Const { return &ir.Const{Type: ir.U32, Uint: uint64(x), Pos: pos} }

func i32(x int32) *ir.Const { return &ir.Const{Type: ir.I32, Int: int64(x), Pos: pos} }

func f32(x float32) *ir.Const { return &ir.Const{Type: ir.F32, Float: float64(x), Pos: pos} }

func bin(op ir.Op, x, y ir.Expr) *ir.Binary {
	t := x.ExprType()
	if op.IsCompare() || op == ir.LAnd || op == ir.LOr {
		t = ir.Bool
	}
	return &ir.Binary{Op: op, X: x, Y: y, Type: t, Pos: pos}
}

func idx(x, i ir.Expr) *ir.Index {
	var t ir.Type
	switch xt := x.ExprType().(type) {
	case *ir.Slice:
		t = xt.Elem
	case *ir.Array:
		t = xt.Elem
	}
	return &ir.Index{X: x, Index: i, Type: t, Pos: pos}
}

func call(b ir.Builtin, t ir.Type, args ...ir.Expr) *ir.CallBuiltin {
	return &ir.CallBuiltin{Builtin: b, Args: args, Type: t, Pos: pos}
}

func id(b ir.Builtin) *ir.CallBuiltin { return call(b, ir.U32) }

func conv(to ir.Scalar, x ir.Expr) *ir.Convert { return &ir.Convert{To: to, X: x, Pos: pos} }

func assign(place, value ir.Expr) *ir.Assign { return &ir.Assign{Place: place, Value: value, Pos: pos} }

func decl(v *ir.Var, init ir.Expr) *ir.Decl { return &ir.Decl{Var: v, Init: init, Pos: pos} }

func ifs(cond ir.Expr, then []ir.Stmt, els ...ir.Stmt) *ir.If {
	return &ir.If{Cond: cond, Then: then, Else: els, Pos: pos}
}

func kernelFunc(name string, params []*ir.Var, sh []*ir.Var, body ...ir.Stmt) *ir.Func {
	f := &ir.Func{Name: name, Kernel: true, Params: params, Shared: sh, Body: body, Pos: pos}
	ir.WalkStmts(body, func(s ir.Stmt) {
		if _, ok := s.(*ir.Barrier); ok {
			f.Barriers = true
		}
	}, func(ir.Expr) {})
	return f
}

var (
	f32s = &ir.Slice{Elem: ir.F32}
	u32s = &ir.Slice{Elem: ir.U32}
	i32s = &ir.Slice{Elem: ir.I32}
)

// saxpyKernel is y[i] = a*x[i] + y[i] for i < n.
func saxpyKernel() *ir.Func {
	y, x, n, a := param("y", f32s, 0), param("x", f32s, 1), param("n", ir.U32, 2), param("a", ir.F32, 3)
	i := local("i", ir.U32)
	return kernelFunc("Saxpy", []*ir.Var{y, x, n, a}, nil,
		decl(i, id(ir.GlobalX)),
		ifs(bin(ir.Lt, ref(i), ref(n)), []ir.Stmt{
			assign(idx(ref(y), ref(i)), bin(ir.Add, bin(ir.Mul, ref(a), idx(ref(x), ref(i))), idx(ref(y), ref(i)))),
		}),
	)
}

// reduceKernel sums each group's elements of in into out[GroupX]: a tree
// through a shared array with a barrier per level.
func reduceKernel() *ir.Func {
	out, in, n := param("out", f32s, 0), param("in", f32s, 1), param("n", ir.U32, 2)
	sh := shared("sh", &ir.Array{Elem: ir.F32, Len: 256})
	t, i, v, s := local("t", ir.U32), local("i", ir.U32), local("v", ir.F32), local("s", ir.U32)
	return kernelFunc("Reduce", []*ir.Var{out, in, n}, []*ir.Var{sh},
		decl(t, id(ir.ThreadX)),
		decl(i, id(ir.GlobalX)),
		decl(v, nil),
		ifs(bin(ir.Lt, ref(i), ref(n)), []ir.Stmt{assign(ref(v), idx(ref(in), ref(i)))}),
		assign(idx(ref(sh), ref(t)), ref(v)),
		&ir.Barrier{Pos: pos},
		&ir.For{
			Init: decl(s, bin(ir.Div, id(ir.GroupSizeX), u32(2))),
			Cond: bin(ir.Gt, ref(s), u32(0)),
			Post: assign(ref(s), bin(ir.Shr, ref(s), u32(1))),
			Body: []ir.Stmt{
				ifs(bin(ir.Lt, ref(t), ref(s)), []ir.Stmt{
					assign(idx(ref(sh), ref(t)), bin(ir.Add, idx(ref(sh), ref(t)), idx(ref(sh), bin(ir.Add, ref(t), ref(s))))),
				}),
				&ir.Barrier{Pos: pos},
			},
			Pos: pos,
		},
		ifs(bin(ir.Eq, ref(t), u32(0)), []ir.Stmt{assign(idx(ref(out), id(ir.GroupX)), idx(ref(sh), u32(0)))}),
	)
}

// histogramKernel counts data[i] % bins into hist, atomically.
func histogramKernel() *ir.Func {
	hist, data, n, bins := param("hist", u32s, 0), param("data", u32s, 1), param("n", ir.U32, 2), param("bins", ir.U32, 3)
	i := local("i", ir.U32)
	return kernelFunc("Histogram", []*ir.Var{hist, data, n, bins}, nil,
		decl(i, id(ir.GlobalX)),
		ifs(bin(ir.Lt, ref(i), ref(n)), []ir.Stmt{
			&ir.ExprStmt{X: &ir.Atomic{Op: ir.AtomicAdd, Place: idx(ref(hist), bin(ir.Rem, idx(ref(data), ref(i)), ref(bins))), Args: []ir.Expr{u32(1)}, Pos: pos}, Pos: pos},
		}),
	)
}

// groupsKernel (no scalars) adds 1 at out[g] for the linear index g of each
// group, from thread 0: every group of the grid once, whatever the fold.
func groupsKernel() *ir.Func {
	out := param("out", u32s, 0)
	g := local("g", ir.U32)
	return kernelFunc("Groups", []*ir.Var{out}, nil,
		ifs(bin(ir.Eq, id(ir.ThreadIndex), u32(0)), []ir.Stmt{
			decl(g, bin(ir.Add, id(ir.GroupX), bin(ir.Mul, id(ir.GridX), bin(ir.Add, id(ir.GroupY), bin(ir.Mul, id(ir.GridY), id(ir.GroupZ)))))),
			assign(idx(ref(out), ref(g)), bin(ir.Add, idx(ref(out), ref(g)), u32(1))),
		}),
	)
}

type irModule = ir.Module

// paramsOf is the kernels' parameter kinds, as Source.Params wants them.
func paramsOf(m *ir.Module) map[string][]gpu.ArgKind {
	out := map[string][]gpu.ArgKind{}
	for _, k := range m.Kernels() {
		kinds := []gpu.ArgKind{}
		for _, p := range k.Params {
			switch p.Type {
			case ir.Scalar(ir.F32):
				kinds = append(kinds, gpu.KindF32)
			case ir.Scalar(ir.U32):
				kinds = append(kinds, gpu.KindU32)
			case ir.Scalar(ir.I32):
				kinds = append(kinds, gpu.KindI32)
			default:
				kinds = append(kinds, gpu.KindBuffer)
			}
		}
		out[k.Name] = kinds
	}
	return out
}

func float32Inf(sign int) float32 { return float32(math.Inf(sign)) }

func negZero() float32 { return float32(math.Copysign(0, -1)) }
