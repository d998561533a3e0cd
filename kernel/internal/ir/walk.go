package ir

// WalkStmts calls stmt on every statement of list and of the statements
// inside them, and expr on every expression of those statements and every
// expression inside those, outer ones first, in source order (a For: Init,
// Cond, Post, then Body). Either function may be nil.
func WalkStmts(list []Stmt, stmt func(Stmt), expr func(Expr)) {
	for _, s := range list {
		WalkStmt(s, stmt, expr)
	}
}

// WalkStmt is WalkStmts of one statement.
func WalkStmt(s Stmt, stmt func(Stmt), expr func(Expr)) {
	if isNilStmt(s) {
		return
	}
	if stmt != nil {
		stmt(s)
	}
	switch s := s.(type) {
	case *Decl:
		WalkExpr(s.Init, expr)
	case *Assign:
		WalkExpr(s.Place, expr)
		WalkExpr(s.Value, expr)
	case *ExprStmt:
		WalkExpr(s.X, expr)
	case *If:
		WalkExpr(s.Cond, expr)
		WalkStmts(s.Then, stmt, expr)
		WalkStmts(s.Else, stmt, expr)
	case *For:
		WalkStmt(s.Init, stmt, expr)
		WalkExpr(s.Cond, expr)
		WalkStmt(s.Post, stmt, expr)
		WalkStmts(s.Body, stmt, expr)
	case *Return:
		WalkExpr(s.Value, expr)
	case *Store4:
		if s.Buf != nil {
			WalkExpr(s.Buf, expr)
		}
		WalkExpr(s.Index, expr)
		WalkExpr(s.Value, expr)
	case *Block:
		WalkStmts(s.Body, stmt, expr)
	case *MMA:
		WalkExpr(s.C, expr)
		WalkExpr(s.A, expr)
		WalkExpr(s.B, expr)
	case *LoadMatrices:
		WalkExpr(s.Frag, expr)
		if s.Src != nil {
			WalkExpr(s.Src, expr)
		}
		WalkExpr(s.At, expr)
	case *CopyAsync:
		if s.Dst != nil {
			WalkExpr(s.Dst, expr)
		}
		WalkExpr(s.DstIndex, expr)
		if s.Src != nil {
			WalkExpr(s.Src, expr)
		}
		WalkExpr(s.SrcIndex, expr)
	case *MatMulAdd:
		WalkExpr(s.C, expr)
		WalkExpr(s.A, expr)
		WalkExpr(s.B, expr)
		if s.From != nil {
			for _, x := range s.From.Exprs() {
				WalkExpr(x, expr)
			}
		}
	}
}

// WalkExpr calls fn on e and every expression inside it, outer ones first.
// A nil e (or fn) does nothing.
func WalkExpr(e Expr, fn func(Expr)) {
	if fn == nil || isNilExpr(e) {
		return
	}
	fn(e)
	switch x := e.(type) {
	case *Index:
		WalkExpr(x.X, fn)
		WalkExpr(x.Index, fn)
	case *Lane:
		WalkExpr(x.X, fn)
	case *MakeVec:
		for _, a := range x.Elems {
			WalkExpr(a, fn)
		}
	case *Unary:
		WalkExpr(x.X, fn)
	case *Binary:
		WalkExpr(x.X, fn)
		WalkExpr(x.Y, fn)
	case *Convert:
		WalkExpr(x.X, fn)
	case *Call:
		for _, a := range x.Args {
			WalkExpr(a, fn)
		}
	case *CallBuiltin:
		for _, a := range x.Args {
			WalkExpr(a, fn)
		}
	case *Atomic:
		if x.Place != nil {
			WalkExpr(x.Place, fn)
		}
		for _, a := range x.Args {
			WalkExpr(a, fn)
		}
	}
}

// isNilExpr reports whether e is nil or a nil pointer of an Expr type.
func isNilExpr(e Expr) bool {
	switch x := e.(type) {
	case nil:
		return true
	case *Ref:
		return x == nil
	case *Index:
		return x == nil
	case *Const:
		return x == nil
	}
	return false
}

// isNilStmt reports whether s is nil or a nil pointer of a Stmt type.
func isNilStmt(s Stmt) bool {
	switch x := s.(type) {
	case nil:
		return true
	case *Decl:
		return x == nil
	case *Assign:
		return x == nil
	}
	return false
}
