package front

import (
	"go/ast"
	"go/constant"
	"go/token"
	"strconv"

	"github.com/anygpu/gpu/kernel/internal/ir"
)

// mmaHint is how an MMA call is written.
const mmaHint = "write kernel.MMA(&acc[j], &a[k], &b[j], kernel.PrecisionBFloat16) with var acc [N][4]float32, var a [K][4]uint32 and var b [N][2]uint32 local arrays of the kernel"

// mma lowers kernel.MMA(c, a, b, p), a group-wide statement that, like
// Barrier, only a kernel may call: its kernel must promise a group size
// (//gpu:maxthreads) that is a multiple of 32, which sizes the shared
// scratch of the portable rewrite (opt.Portable).
func (f *fnLower) mma(call *ast.CallExpr) []ir.Stmt {
	if !f.fn.Kernel {
		f.errorf(call, "call it in the kernel, at a point every thread of the group reaches", "kernel.MMA in a helper is not allowed")
		return nil
	}
	if len(call.Args) != 4 {
		f.errorf(call, mmaHint, "kernel.MMA takes four arguments")
		return nil
	}
	if !f.unitThreads(call, "kernel.MMA") {
		return nil
	}
	c := f.fragment(call.Args[0], "kernel.MMA", "c", ir.F32, 4)
	a := f.fragment(call.Args[1], "kernel.MMA", "a", ir.U32, 4)
	b := f.fragment(call.Args[2], "kernel.MMA", "b", ir.U32, 2)
	p, ok := f.halfPrecision(call.Args[3], "kernel.MMA")
	if c == nil || a == nil || b == nil || !ok {
		return nil
	}
	f.fn.Barriers = true // the portable rewrite has barriers; checkUniform sees it as one
	return []ir.Stmt{&ir.MMA{C: c, A: a, B: b, Precision: p, Pos: f.pos(call)}}
}

// fragment lowers an operand name of fn (kernel.MMA, kernel.LoadMatrices4,
// ...), which must be the address of a local array of n elem (&x) or of
// such an array in a local array of arrays (&x[i], &x[i][j]), with indices
// without effects.
func (f *fnLower) fragment(e ast.Expr, fn, name string, elem ir.Scalar, n int) ir.Expr {
	want := "[" + strconv.Itoa(n) + "]" + elem.String()
	hint := "pass the address of a local " + want + " array, or of one in a local array of them: &" + name + " or &" + name + "s[i]"
	addr, ok := unparen(e).(*ast.UnaryExpr)
	if !ok || addr.Op != token.AND {
		f.errorf(e, hint, "%s's %s must be the address of a local %s array", fn, name, want)
		return nil
	}
	var place ir.Expr
	switch x := unparen(addr.X).(type) {
	case *ast.Ident:
		v := f.varOf(x)
		if v == nil {
			return nil
		}
		place = &ir.Ref{Var: v, Pos: f.pos(x)}
	case *ast.IndexExpr:
		place = f.index(x)
	default:
		f.errorf(e, hint, "%s's %s must be the address of a local %s array", fn, name, want)
		return nil
	}
	if c, ok := place.(*ir.Const); ok && c.Type == ir.Invalid {
		return nil // reported
	}
	root := place
	for {
		ix, ok := root.(*ir.Index)
		if !ok {
			break
		}
		effects := false
		ir.WalkExpr(ix.Index, func(x ir.Expr) {
			switch x.(type) {
			case *ir.Call, *ir.Atomic:
				effects = true
			}
		})
		if effects {
			f.errorf(e, "compute the index in a statement before and index with the local", "a call or an atomic in the index of %s's %s is not allowed", fn, name)
			return nil
		}
		root = ix.X
	}
	ref, ok := root.(*ir.Ref)
	if !ok || ref.Var.Class != ir.Local {
		f.errorf(e, hint, "%s's %s must be a local array of the kernel (not a buffer, shared array or parameter)", fn, name)
		return nil
	}
	at, ok := place.ExprType().(*ir.Array)
	if !ok || at.Len != n || at.Elem != elem {
		f.errorf(e, hint, "%s's %s must be a %s array", fn, name, want)
		return nil
	}
	return place
}

// halfPrecision reads the constant precision argument of fn, which must be
// PrecisionBFloat16 or PrecisionFloat16.
func (f *fnLower) halfPrecision(e ast.Expr, fn string) (ir.Precision, bool) {
	tv := f.l.info.Types[e]
	if tv.Value != nil {
		if p, exact := constant.Uint64Val(constant.ToInt(tv.Value)); exact {
			if p == uint64(ir.PrecisionBFloat16) || p == uint64(ir.PrecisionFloat16) {
				return ir.Precision(p), true
			}
		}
		f.errorf(e, "use kernel.PrecisionBFloat16 or kernel.PrecisionFloat16", "%s's precision must be a 16-bit one", fn)
		return 0, false
	}
	f.errorf(e, "use the constant kernel.PrecisionBFloat16 or kernel.PrecisionFloat16", "%s's precision must be a constant", fn)
	return 0, false
}

// packHalves lowers kernel.PackHalves(lo, hi, p) to its built-in for p.
func (f *fnLower) packHalves(e *ast.CallExpr) ir.Expr {
	p := f.pos(e)
	if len(e.Args) != 3 {
		f.errorf(e, "write kernel.PackHalves(lo, hi, kernel.PrecisionBFloat16)", "kernel.PackHalves takes three arguments")
		return bad(p)
	}
	lo, hi := convert(f.expr(e.Args[0]), ir.F32), convert(f.expr(e.Args[1]), ir.F32)
	prec, ok := f.halfPrecision(e.Args[2], "kernel.PackHalves")
	if !ok {
		return bad(p)
	}
	b := ir.PackHalvesBFloat16
	if prec == ir.PrecisionFloat16 {
		b = ir.PackHalvesFloat16
	}
	return &ir.CallBuiltin{Builtin: b, Args: []ir.Expr{lo, hi}, Type: ir.U32, Pos: p}
}

// unitThreads reports whether the kernel's //gpu:maxthreads is a multiple
// of 32, as the operations of 32-thread matrix units (name: kernel.MMA,
// kernel.LoadMatrices4...) need, and reports the error at call where not.
func (f *fnLower) unitThreads(call *ast.CallExpr, name string) bool {
	n := f.fn.MaxThreads
	if n > 0 && n%32 == 0 {
		return true
	}
	what := "a kernel without //gpu:maxthreads"
	if n > 0 {
		what = "a kernel whose //gpu:maxthreads is not a multiple of 32"
	}
	f.errorf(call, "declare //gpu:maxthreads N above the kernel, N a multiple of 32 (256, say), and launch it with groups of a multiple of 32 threads, at most N",
		"%s in %s is not allowed", name, what)
	return false
}
