package gosrc

import "github.com/anygpu/gpu/kernel/internal/ir"

// walkStmts calls fs on every statement of body and fx on every expression,
// outer ones first, in source order. Either may be nil.
func walkStmts(body []ir.Stmt, fs func(ir.Stmt), fx func(ir.Expr)) {
	for _, s := range body {
		walkStmt(s, fs, fx)
	}
}

func walkStmt(s ir.Stmt, fs func(ir.Stmt), fx func(ir.Expr)) {
	if s == nil {
		return
	}
	if fs != nil {
		fs(s)
	}
	switch s := s.(type) {
	case *ir.Decl:
		walkExpr(s.Init, fx)
	case *ir.Assign:
		walkExpr(s.Place, fx)
		walkExpr(s.Value, fx)
	case *ir.ExprStmt:
		walkExpr(s.X, fx)
	case *ir.If:
		walkExpr(s.Cond, fx)
		walkStmts(s.Then, fs, fx)
		walkStmts(s.Else, fs, fx)
	case *ir.For:
		walkStmt(s.Init, fs, fx)
		walkExpr(s.Cond, fx)
		walkStmt(s.Post, fs, fx)
		walkStmts(s.Body, fs, fx)
	case *ir.Return:
		walkExpr(s.Value, fx)
	case *ir.Store4:
		walkExpr(s.Buf, fx)
		walkExpr(s.Index, fx)
		walkExpr(s.Value, fx)
	case *ir.Block:
		walkStmts(s.Body, fs, fx)
	}
}

// walkExpr calls fx on x and every expression inside it, outer ones first.
func walkExpr(x ir.Expr, fx func(ir.Expr)) {
	if x == nil || fx == nil {
		return
	}
	if r, ok := x.(*ir.Ref); ok && r == nil {
		return
	}
	if i, ok := x.(*ir.Index); ok && i == nil {
		return
	}
	fx(x)
	switch x := x.(type) {
	case *ir.Index:
		walkExpr(x.X, fx)
		walkExpr(x.Index, fx)
	case *ir.Lane:
		walkExpr(x.X, fx)
	case *ir.MakeVec:
		for _, a := range x.Elems {
			walkExpr(a, fx)
		}
	case *ir.Unary:
		walkExpr(x.X, fx)
	case *ir.Binary:
		walkExpr(x.X, fx)
		walkExpr(x.Y, fx)
	case *ir.Convert:
		walkExpr(x.X, fx)
	case *ir.Call:
		for _, a := range x.Args {
			walkExpr(a, fx)
		}
	case *ir.CallBuiltin:
		for _, a := range x.Args {
			walkExpr(a, fx)
		}
	case *ir.Atomic:
		walkExpr(x.Place, fx)
		for _, a := range x.Args {
			walkExpr(a, fx)
		}
	}
}

// hasBarrier reports whether s is or holds a Barrier.
func hasBarrier(s ir.Stmt) bool {
	found := false
	walkStmt(s, func(s ir.Stmt) {
		if _, ok := s.(*ir.Barrier); ok {
			found = true
		}
	}, nil)
	return found
}
