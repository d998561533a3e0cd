package front

import (
	"go/ast"
	"go/constant"

	"github.com/anygpu/gpu/kernel/internal/ir"
)

// loadMatrices lowers kernel.LoadMatrices4 or LoadMatrices2 (n 4 or 2):
// MMA's rules (a kernel whose //gpu:maxthreads is a multiple of 32, a
// local fragment), a shared uint32 array and a constant trans.
func (f *fnLower) loadMatrices(call *ast.CallExpr, n int) []ir.Stmt {
	name := "kernel.LoadMatrices4"
	if n == 2 {
		name = "kernel.LoadMatrices2"
	}
	if !f.fn.Kernel {
		f.errorf(call, "call it in the kernel, at a point every thread of the group reaches", "%s in a helper is not allowed", name)
		return nil
	}
	if len(call.Args) != 4 {
		f.errorf(call, "write "+name+"(&frag, tile, at, false) with frag a local array and tile a kernel.Shared array of uint32", "%s takes four arguments", name)
		return nil
	}
	if !f.unitThreads(call, name) {
		return nil
	}
	frag := f.fragment(call.Args[0], name, "frag", ir.U32, n)
	src := f.sharedWords(call.Args[1], name, "src")
	at := convert(f.expr(call.Args[2]), ir.U32)
	trans, ok := f.constBool(call.Args[3], name+"'s trans")
	if frag == nil || src == nil || !ok {
		return nil
	}
	f.fn.Barriers = true // the portable rewrite has barriers; checkUniform sees it as one
	return []ir.Stmt{&ir.LoadMatrices{Frag: frag, Src: src, At: at, N: n, Trans: trans, Pos: f.pos(call)}}
}

// sharedWords lowers an argument that must name a shared uint32 array of
// the kernel (one-dimensional).
func (f *fnLower) sharedWords(e ast.Expr, fn, name string) *ir.Ref {
	if id, ok := unparen(e).(*ast.Ident); ok {
		if v := f.varOf(id); v != nil && v.Class == ir.Shared {
			if at, ok := v.Type.(*ir.Array); ok && at.Elem == ir.U32 {
				return &ir.Ref{Var: v, Pos: f.pos(id)}
			}
			f.errorf(e, "declare it as a one-dimensional uint32 array: "+id.Name+" := kernel.Shared[[1024]uint32]()",
				"%s of shared array %s is not allowed: it is not a [N]uint32", fn, id.Name)
			return nil
		}
	}
	f.errorf(e, "pass a kernel.Shared[[N]uint32]() array of the kernel by its name", "%s's %s must be a shared uint32 array", fn, name)
	return nil
}

// constBool reads a constant boolean argument.
func (f *fnLower) constBool(e ast.Expr, what string) (bool, bool) {
	if tv := f.l.info.Types[e]; tv.Value != nil && tv.Value.Kind() == constant.Bool {
		return constant.BoolVal(tv.Value), true
	}
	f.errorf(e, "write true or false (or a boolean constant)", "%s must be a constant", what)
	return false, false
}

// copyAsync lowers kernel.CopyAsync(dst, dv, src, sv).
func (f *fnLower) copyAsync(call *ast.CallExpr) []ir.Stmt {
	if !f.fn.Kernel {
		f.errorf(call, "call it in the kernel", "kernel.CopyAsync in a helper is not allowed")
		return nil
	}
	if len(call.Args) != 4 {
		f.errorf(call, "write kernel.CopyAsync(tile, dv, buf, sv)", "kernel.CopyAsync takes four arguments")
		return nil
	}
	dst := f.sharedWords(call.Args[0], "kernel.CopyAsync", "dst")
	dv := convert(f.expr(call.Args[1]), ir.U32)
	src := f.buffer(call.Args[2], "kernel.CopyAsync")
	sv := convert(f.expr(call.Args[3]), ir.U32)
	if dst == nil || src == nil {
		return nil
	}
	if sl, ok := src.Var.Type.(*ir.Slice); !ok || (sl.Elem != ir.F32 && sl.Elem != ir.U32) {
		f.errorf(call.Args[2], "pass a []float32 or []uint32 parameter of the kernel", "kernel.CopyAsync from a %v buffer is not allowed", src.Var.Type)
		return nil
	}
	return []ir.Stmt{&ir.CopyAsync{Dst: dst, DstIndex: dv, Src: src, SrcIndex: sv, Pos: f.pos(call)}}
}

// copyAsyncSync lowers kernel.CopyAsyncCommit() (wait false) or
// kernel.CopyAsyncWait(n) (wait true, n a constant).
func (f *fnLower) copyAsyncSync(call *ast.CallExpr, wait bool) []ir.Stmt {
	name := "kernel.CopyAsyncCommit"
	if wait {
		name = "kernel.CopyAsyncWait"
	}
	if !f.fn.Kernel {
		f.errorf(call, "call it in the kernel", "%s in a helper is not allowed", name)
		return nil
	}
	if !wait {
		return []ir.Stmt{&ir.CopyAsyncCommit{Pos: f.pos(call)}}
	}
	if len(call.Args) != 1 {
		f.errorf(call, "write kernel.CopyAsyncWait(0)", "kernel.CopyAsyncWait takes one argument")
		return nil
	}
	tv := f.l.info.Types[call.Args[0]]
	if tv.Value != nil {
		if n, exact := constant.Uint64Val(constant.ToInt(tv.Value)); exact && n <= 7 {
			return []ir.Stmt{&ir.CopyAsyncWait{N: int(n), Pos: f.pos(call)}}
		}
		f.errorf(call.Args[0], "wait for at most 7 pending batches", "kernel.CopyAsyncWait's count must be 0 to 7")
		return nil
	}
	f.errorf(call.Args[0], "write a constant: kernel.CopyAsyncWait(1)", "kernel.CopyAsyncWait's count must be a constant")
	return nil
}
