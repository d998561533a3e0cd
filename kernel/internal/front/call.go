package front

import (
	"go/ast"
	"go/types"

	"github.com/anygpu/gpu/kernel/internal/ir"
)

// kernelFuncOf is the name of the package kernel function e denotes (with
// its instantiation stripped), or "".
func (f *fnLower) kernelFuncOf(e ast.Expr) string {
	e = unparen(e)
	switch x := e.(type) {
	case *ast.IndexExpr:
		e = x.X
	case *ast.IndexListExpr:
		e = x.X
	}
	sel, ok := unparen(e).(*ast.SelectorExpr)
	if !ok {
		return ""
	}
	obj, ok := f.l.info.Uses[sel.Sel].(*types.Func)
	if !ok || obj.Pkg() == nil || obj.Pkg().Path() != kernelPath {
		return ""
	}
	return obj.Name()
}

// isKernelFunc reports whether e denotes kernel.<name>.
func (f *fnLower) isKernelFunc(e ast.Expr, name string) bool { return f.kernelFuncOf(e) == name }

// idBuiltins are the thread and group indices and sizes.
var idBuiltins = map[string]ir.Builtin{
	"ThreadX": ir.ThreadX, "ThreadY": ir.ThreadY, "ThreadZ": ir.ThreadZ, "ThreadIndex": ir.ThreadIndex,
	"GroupX": ir.GroupX, "GroupY": ir.GroupY, "GroupZ": ir.GroupZ,
	"GroupSizeX": ir.GroupSizeX, "GroupSizeY": ir.GroupSizeY, "GroupSizeZ": ir.GroupSizeZ,
	"GridX": ir.GridX, "GridY": ir.GridY, "GridZ": ir.GridZ,
	"GlobalX": ir.GlobalX, "GlobalY": ir.GlobalY, "GlobalZ": ir.GlobalZ,
}

// mathBuiltins are the math functions and bit casts.
var mathBuiltins = map[string]ir.Builtin{
	"Sqrt": ir.Sqrt, "Rsqrt": ir.Rsqrt, "Exp": ir.Exp, "Exp2": ir.Exp2, "Log": ir.Log, "Log2": ir.Log2,
	"Sin": ir.Sin, "Cos": ir.Cos, "Tanh": ir.Tanh, "Pow": ir.Pow, "Floor": ir.Floor, "Ceil": ir.Ceil,
	"Trunc": ir.Trunc, "Fma": ir.Fma, "Abs": ir.Abs, "Clamp": ir.Clamp,
	"Float32bits": ir.Float32Bits, "Float32frombits": ir.Float32FromBits,
}

// atomicOps are the atomics.
var atomicOps = map[string]ir.AtomicOp{
	"AtomicAdd": ir.AtomicAdd, "AtomicMin": ir.AtomicMin, "AtomicMax": ir.AtomicMax, "AtomicAnd": ir.AtomicAnd,
	"AtomicOr": ir.AtomicOr, "AtomicXor": ir.AtomicXor, "AtomicExchange": ir.AtomicExchange,
	"AtomicCompareExchange": ir.AtomicCompareExchange,
}

// call lowers a call expression: a conversion, a built-in, a function of
// package kernel or a helper.
func (f *fnLower) call(e *ast.CallExpr) ir.Expr {
	p := f.pos(e)
	if tv := f.l.info.Types[e.Fun]; tv.IsType() {
		return f.conversion(e, tv.Type)
	}
	if name := f.kernelFuncOf(e.Fun); name != "" {
		return f.kernelCall(e, name)
	}
	fun := unparen(e.Fun)
	if ix, ok := fun.(*ast.IndexExpr); ok {
		fun = ix.X
	} else if ix, ok := fun.(*ast.IndexListExpr); ok {
		fun = ix.X
	}
	var id *ast.Ident
	switch x := fun.(type) {
	case *ast.Ident:
		id = x
	case *ast.SelectorExpr:
		if sel := f.l.info.Selections[x]; sel != nil {
			f.errorf(e, "write a helper function that takes the value as a parameter", "method calls are not allowed in a kernel")
			return bad(p)
		}
		id = x.Sel
	case *ast.FuncLit:
		f.errorf(x, "write a helper function at package level and call it", "closures (function literals) are not allowed in a kernel")
		return bad(p)
	default:
		f.errorf(e, "call a helper function by name", "calling a function value is not allowed in a kernel")
		return bad(p)
	}
	switch obj := f.l.info.Uses[id].(type) {
	case *types.Builtin:
		return f.builtin(e, obj.Name())
	case *types.Func:
		if sig := obj.Type().(*types.Signature); sig.Recv() != nil {
			f.errorf(e, "write a helper function that takes the value as a parameter", "method calls are not allowed in a kernel")
			return bad(p)
		}
		callee := f.l.helper(obj, e.Pos())
		args := make([]ir.Expr, len(e.Args))
		for i, a := range e.Args {
			args[i] = f.expr(a)
		}
		if callee == nil {
			return bad(p)
		}
		for i := range args {
			if i < len(callee.Params) {
				args[i] = convert(args[i], callee.Params[i].Type)
			}
		}
		return &ir.Call{Func: callee, Args: args, Pos: p}
	}
	f.errorf(e, "call a helper function by name", "calling a function value is not allowed in a kernel")
	return bad(p)
}

// conversion lowers T(x).
func (f *fnLower) conversion(e *ast.CallExpr, t types.Type) ir.Expr {
	p := f.pos(e)
	if isFloat16(t) {
		f.errorf(e, "round a float32 with kernel.ToFloat16(x)",
			"a conversion to kernel.Float16 is not allowed: it would take the number as the half's bits")
		return bad(p)
	}
	if len(e.Args) == 1 && isFloat16(f.typeOf(e.Args[0])) {
		f.errorf(e, "convert with kernel.ToFloat32(h)",
			"a conversion of a kernel.Float16 is not allowed: it would read the half's bits as an integer")
		return bad(p)
	}
	to := f.l.irType(t, e.Fun.Pos(), "conversion to")
	if len(e.Args) != 1 || to == nil {
		return bad(p)
	}
	x := f.expr(e.Args[0])
	if s, ok := to.(ir.Scalar); ok {
		from, ok := x.ExprType().(ir.Scalar)
		if !ok || from == ir.Invalid || from == s {
			return x
		}
		return &ir.Convert{To: s, X: x, Pos: p}
	}
	return x
}

// builtin lowers a call of a Go built-in.
func (f *fnLower) builtin(e *ast.CallExpr, name string) ir.Expr {
	p := f.pos(e)
	switch name {
	case "len", "cap":
		switch u := f.typeOf(e.Args[0]).Underlying().(type) {
		case *types.Slice:
			f.errorf(e, "pass the length as a uint32 parameter", "%s of a buffer is not allowed in a kernel", name)
		case *types.Array:
			return &ir.Const{Type: ir.I32, Int: u.Len(), Pos: p}
		case *types.Pointer:
			if a, ok := u.Elem().Underlying().(*types.Array); ok {
				return &ir.Const{Type: ir.I32, Int: a.Len(), Pos: p}
			}
			f.errorf(e, "", "%s of this is not allowed in a kernel", name)
		default:
			f.errorf(e, "use numbers", "%s of this is not allowed in a kernel", name)
		}
		return bad(p)
	case "min", "max":
		t := f.l.quietType(f.typeOf(e))
		b := ir.Min
		if name == "max" {
			b = ir.Max
		}
		var acc ir.Expr
		for _, a := range e.Args {
			x := convert(f.expr(a), t)
			if acc == nil {
				acc = x
				continue
			}
			acc = &ir.CallBuiltin{Builtin: b, Args: []ir.Expr{acc, x}, Type: t, Pos: p}
		}
		return acc
	case "make", "new", "append":
		f.errorf(e, "declare a fixed-size array (var a [256]float32) or a shared one (kernel.Shared)",
			"allocation (%s) is not allowed in a kernel", name)
	case "copy":
		f.errorf(e, "copy the elements in a loop", "copy is not allowed in a kernel")
	case "delete", "clear":
		f.errorf(e, "assign the elements in a loop", "%s is not allowed in a kernel", name)
	case "close":
		f.errorf(e, "threads of a group share data through kernel.Shared arrays and kernel.Barrier", "channels are not allowed in a kernel")
	case "panic", "recover":
		f.errorf(e, "write an error code to a buffer and return", "%s is not allowed in a kernel", name)
	case "print", "println":
		f.errorf(e, "write the value to a buffer", "%s is not allowed in a kernel", name)
	case "complex", "real", "imag":
		f.errorf(e, "use two floats for the real and imaginary parts", "complex numbers are not allowed in a kernel")
	default:
		f.errorf(e, "", "built-in %s is not allowed in a kernel", name)
	}
	return bad(p)
}

// kernelCall lowers a call of a function of package kernel (Barrier and
// Store4 are statements: exprStmt lowers them).
func (f *fnLower) kernelCall(e *ast.CallExpr, name string) ir.Expr {
	p := f.pos(e)
	if b, ok := idBuiltins[name]; ok {
		return &ir.CallBuiltin{Builtin: b, Type: ir.U32, Pos: p}
	}
	if b, ok := mathBuiltins[name]; ok {
		t := f.l.quietType(f.typeOf(e))
		args := make([]ir.Expr, len(e.Args))
		for i, a := range e.Args {
			args[i] = f.expr(a)
			if b != ir.Float32Bits && b != ir.Float32FromBits {
				args[i] = convert(args[i], t)
			}
		}
		if t == nil {
			return bad(p)
		}
		return &ir.CallBuiltin{Builtin: b, Args: args, Type: t, Pos: p}
	}
	if op, ok := atomicOps[name]; ok {
		return f.atomic(e, name, op)
	}
	if b, ok := subgroupBuiltins[name]; ok {
		return f.subgroup(e, name, b)
	}
	switch name {
	case "ToFloat16":
		return &ir.Convert{To: ir.F16, X: convert(f.expr(e.Args[0]), ir.F32), Pos: p}
	case "ToFloat32":
		x := f.expr(e.Args[0])
		if x.ExprType() != ir.F16 {
			return bad(p) // an error already reported (a float16 local, say)
		}
		return &ir.Convert{To: ir.F32, X: x, Pos: p}
	case "PackHalves":
		return f.packHalves(e)
	case "Load4":
		buf := f.buffer(e.Args[0], "kernel.Load4")
		idx := f.expr(e.Args[1])
		if buf == nil {
			return bad(p)
		}
		return &ir.CallBuiltin{Builtin: ir.Load4, Args: []ir.Expr{buf, idx}, Type: f.l.float4, Pos: p}
	case "Shared":
		f.errorf(e, "declare it among the kernel body's top-level statements: sh := kernel.Shared[[256]float32]()",
			"kernel.Shared in an expression is not allowed")
	default:
		f.errorf(e, "call it as a statement", "kernel.%s in an expression is not allowed", name)
	}
	return bad(p)
}

// buffer lowers an argument that must name a buffer parameter.
func (f *fnLower) buffer(e ast.Expr, what string) *ir.Ref {
	if id, ok := unparen(e).(*ast.Ident); ok {
		if v := f.varOf(id); v != nil && isSlice(v.Type) {
			return &ir.Ref{Var: v, Pos: f.pos(id)}
		}
	}
	f.errorf(e, "pass a []float32 parameter of the kernel", "%s of this is not allowed", what)
	return nil
}

// atomic lowers kernel.AtomicXxx(&place, args...).
func (f *fnLower) atomic(e *ast.CallExpr, name string, op ir.AtomicOp) ir.Expr {
	p := f.pos(e)
	if !f.fn.Kernel {
		f.errorf(e, "do it in the kernel", "kernel.%s in a helper is not allowed", name)
		return bad(p)
	}
	hint := "take the address of an element: kernel." + name + "(&buf[i], v)"
	addr, ok := unparen(e.Args[0]).(*ast.UnaryExpr)
	if !ok {
		f.errorf(e.Args[0], hint, "kernel.%s of this is not allowed: it works on an element of a buffer or a shared array", name)
		return bad(p)
	}
	ix, ok := unparen(addr.X).(*ast.IndexExpr)
	if !ok {
		f.errorf(e.Args[0], hint, "kernel.%s of this is not allowed: it works on an element of a buffer or a shared array", name)
		return bad(p)
	}
	place, ok := f.index(ix).(*ir.Index)
	if !ok {
		return bad(p)
	}
	root := place.X
	for {
		in, ok := root.(*ir.Index)
		if !ok {
			break
		}
		root = in.X
	}
	ref, ok := root.(*ir.Ref)
	if !ok || !(ref.Var.Class == ir.Shared || isSlice(ref.Var.Type)) {
		f.errorf(e.Args[0], hint, "kernel.%s of an element of a local array is not allowed: it works on an element of a buffer or a shared array", name)
		return bad(p)
	}
	args := make([]ir.Expr, 0, 2)
	for _, a := range e.Args[1:] {
		args = append(args, convert(f.expr(a), place.Type))
	}
	if place.Type == ir.F32 {
		f.fn.Features |= ir.AtomicFloat
	}
	return &ir.Atomic{Op: op, Place: place, Args: args, Pos: p}
}
