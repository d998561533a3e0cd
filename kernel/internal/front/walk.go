package front

import "github.com/anygpu/gpu/kernel/internal/ir"

// walkExpr calls fn for e and every expression inside it, parents first.
func walkExpr(e ir.Expr, fn func(ir.Expr)) {
	if e == nil {
		return
	}
	fn(e)
	switch x := e.(type) {
	case *ir.Index:
		walkExpr(x.X, fn)
		walkExpr(x.Index, fn)
	case *ir.Lane:
		walkExpr(x.X, fn)
	case *ir.MakeVec:
		for _, a := range x.Elems {
			walkExpr(a, fn)
		}
	case *ir.Unary:
		walkExpr(x.X, fn)
	case *ir.Binary:
		walkExpr(x.X, fn)
		walkExpr(x.Y, fn)
	case *ir.Convert:
		walkExpr(x.X, fn)
	case *ir.Call:
		for _, a := range x.Args {
			walkExpr(a, fn)
		}
	case *ir.CallBuiltin:
		for _, a := range x.Args {
			walkExpr(a, fn)
		}
	case *ir.Atomic:
		walkExpr(x.Place, fn)
		for _, a := range x.Args {
			walkExpr(a, fn)
		}
	}
}

// walkStmts calls stmt for every statement (nested ones included, parents
// first) and expr for every expression of them.
func walkStmts(list []ir.Stmt, stmt func(ir.Stmt), expr func(ir.Expr)) {
	for _, s := range list {
		walkStmt(s, stmt, expr)
	}
}

func walkStmt(s ir.Stmt, stmt func(ir.Stmt), expr func(ir.Expr)) {
	if s == nil {
		return
	}
	if stmt != nil {
		stmt(s)
	}
	e := func(x ir.Expr) {
		if expr != nil && x != nil {
			walkExpr(x, expr)
		}
	}
	switch s := s.(type) {
	case *ir.Decl:
		e(s.Init)
	case *ir.Assign:
		e(s.Place)
		e(s.Value)
	case *ir.ExprStmt:
		e(s.X)
	case *ir.If:
		e(s.Cond)
		walkStmts(s.Then, stmt, expr)
		walkStmts(s.Else, stmt, expr)
	case *ir.For:
		walkStmt(s.Init, stmt, expr)
		e(s.Cond)
		walkStmt(s.Post, stmt, expr)
		walkStmts(s.Body, stmt, expr)
	case *ir.Return:
		e(s.Value)
	case *ir.Store4:
		e(s.Buf)
		e(s.Index)
		e(s.Value)
	case *ir.Block:
		walkStmts(s.Body, stmt, expr)
	}
}

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
	walkStmts(fn.Body, func(s ir.Stmt) {
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
		case *ir.Atomic:
			if x.Place.Type == ir.F32 && x.Op == ir.AtomicAdd {
				fn.Features |= ir.AtomicFloat
			}
		}
	})
}
