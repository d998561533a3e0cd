package front

import "github.com/anygpu/gpu/kernel/internal/ir"

// computeFeatures sets fn.Features from the types it uses and the helpers
// it calls (which come before it in the module, so theirs are known).
func computeFeatures(fn *ir.Func) {
	add := func(t ir.Type) {
		switch ir.ElemScalar(t) {
		case ir.F64:
			fn.Features |= ir.Float64
		case ir.I64, ir.U64:
			fn.Features |= ir.Int64
		case ir.F16:
			fn.Features |= ir.Float16
		}
	}
	for _, v := range fn.Params {
		add(v.Type)
	}
	for _, v := range fn.Shared {
		add(v.Type)
	}
	if fn.Result != nil {
		add(fn.Result)
	}
	ir.WalkStmts(fn.Body, func(s ir.Stmt) {
		if d, ok := s.(*ir.Decl); ok {
			add(d.Var.Type)
		}
	}, func(e ir.Expr) {
		if t := e.ExprType(); t != nil {
			add(t)
		}
		switch x := e.(type) {
		case *ir.Call:
			fn.Features |= x.Func.Features
		case *ir.Convert:
			add(x.X.ExprType())
		case *ir.CallBuiltin:
			if x.Builtin.IsSubgroup() {
				fn.Features |= ir.Subgroup
			}
		case *ir.Atomic:
			if x.Place.Type == ir.F32 && x.Op == ir.AtomicAdd {
				fn.Features |= ir.AtomicFloat
			}
		}
	})
}
