package opt

import "github.com/anygpu/gpu/kernel/internal/ir"

// cloner copies statements for one iteration of an unrolled loop: reads of
// the induction variable become its constant value, and every variable the
// copied statements declare becomes a fresh one with a name of its own
// (each iteration's variables are new in Go, and each copy is a scope of
// its own). It reports false for a node it does not know (the copy is then
// not used).
type cloner struct {
	iv      *ir.Var
	value   *ir.Const
	renamed map[*ir.Var]*ir.Var
	fresh   func(*ir.Var) *ir.Var
	ok      bool
}

func (c *cloner) stmts(list []ir.Stmt) []ir.Stmt {
	if list == nil {
		return nil
	}
	out := make([]ir.Stmt, 0, len(list))
	for _, s := range list {
		out = append(out, c.stmt(s))
	}
	return out
}

func (c *cloner) stmt(s ir.Stmt) ir.Stmt {
	switch s := s.(type) {
	case nil:
		return nil
	case *ir.Decl:
		init := c.expr(s.Init)
		v := c.fresh(s.Var)
		c.renamed[s.Var] = v
		return &ir.Decl{Var: v, Init: init, Pos: s.Pos}
	case *ir.Assign:
		return &ir.Assign{Place: c.expr(s.Place), Value: c.expr(s.Value), Pos: s.Pos}
	case *ir.ExprStmt:
		return &ir.ExprStmt{X: c.expr(s.X), Pos: s.Pos}
	case *ir.If:
		return &ir.If{Cond: c.expr(s.Cond), Then: c.stmts(s.Then), Else: c.stmts(s.Else), Pos: s.Pos}
	case *ir.For:
		init := c.stmt(s.Init)
		return &ir.For{Init: init, Cond: c.expr(s.Cond), Post: c.stmt(s.Post), Body: c.stmts(s.Body), Pos: s.Pos, Trips: s.Trips}
	case *ir.Break:
		return &ir.Break{Pos: s.Pos}
	case *ir.Continue:
		return &ir.Continue{Pos: s.Pos}
	case *ir.Return:
		return &ir.Return{Value: c.expr(s.Value), Pos: s.Pos}
	case *ir.Barrier:
		return &ir.Barrier{Pos: s.Pos}
	case *ir.Store4:
		buf, ok := c.expr(s.Buf).(*ir.Ref)
		if !ok {
			c.ok = false
			return s
		}
		return &ir.Store4{Buf: buf, Index: c.expr(s.Index), Value: c.expr(s.Value), Pos: s.Pos}
	case *ir.Block:
		return &ir.Block{Body: c.stmts(s.Body), Pos: s.Pos}
	case *ir.MMA:
		return &ir.MMA{C: c.expr(s.C), A: c.expr(s.A), B: c.expr(s.B), Precision: s.Precision, Pos: s.Pos}
	case *ir.LoadMatrices:
		src, ok := c.expr(s.Src).(*ir.Ref)
		if !ok {
			c.ok = false
			return s
		}
		return &ir.LoadMatrices{Frag: c.expr(s.Frag), Src: src, At: c.expr(s.At), N: s.N, Trans: s.Trans, Pos: s.Pos}
	case *ir.CopyAsync:
		dst, ok1 := c.expr(s.Dst).(*ir.Ref)
		src, ok2 := c.expr(s.Src).(*ir.Ref)
		if !ok1 || !ok2 {
			c.ok = false
			return s
		}
		return &ir.CopyAsync{Dst: dst, DstIndex: c.expr(s.DstIndex), Src: src, SrcIndex: c.expr(s.SrcIndex), Pos: s.Pos}
	case *ir.CopyAsyncCommit:
		return &ir.CopyAsyncCommit{Pos: s.Pos}
	case *ir.CopyAsyncWait:
		return &ir.CopyAsyncWait{N: s.N, Pos: s.Pos}
	case *ir.MatMulAdd:
		m := *s
		refs := []**ir.Ref{&m.C, &m.A, &m.B}
		for _, r := range refs {
			ref, ok := c.expr(*r).(*ir.Ref)
			if !ok {
				c.ok = false
				return s
			}
			*r = ref
		}
		if s.From != nil {
			m.From = &ir.MatMulFrom{AOff: c.expr(s.From.AOff), LDA: c.expr(s.From.LDA), BOff: c.expr(s.From.BOff), LDB: c.expr(s.From.LDB)}
		}
		return &m
	}
	c.ok = false
	return s
}

func (c *cloner) exprs(list []ir.Expr) []ir.Expr {
	if list == nil {
		return nil
	}
	out := make([]ir.Expr, len(list))
	for i, e := range list {
		out[i] = c.expr(e)
	}
	return out
}

func (c *cloner) expr(e ir.Expr) ir.Expr {
	switch x := e.(type) {
	case nil:
		return nil
	case *ir.Const:
		if x == nil {
			return nil
		}
		k := *x
		return &k
	case *ir.Ref:
		if x == nil {
			return nil
		}
		if x.Var == c.iv {
			k := *c.value
			k.Pos = x.Pos
			return &k
		}
		if v, ok := c.renamed[x.Var]; ok {
			return &ir.Ref{Var: v, Pos: x.Pos}
		}
		return &ir.Ref{Var: x.Var, Pos: x.Pos}
	case *ir.Index:
		if x == nil {
			return nil
		}
		return c.index(x)
	case *ir.Lane:
		return &ir.Lane{X: c.expr(x.X), N: x.N, Pos: x.Pos}
	case *ir.MakeVec:
		return &ir.MakeVec{Type: x.Type, Elems: c.exprs(x.Elems), Pos: x.Pos}
	case *ir.Unary:
		return &ir.Unary{Op: x.Op, X: c.expr(x.X), Pos: x.Pos}
	case *ir.Binary:
		return &ir.Binary{Op: x.Op, X: c.expr(x.X), Y: c.expr(x.Y), Type: x.Type, Pos: x.Pos}
	case *ir.Convert:
		return &ir.Convert{To: x.To, X: c.expr(x.X), Pos: x.Pos}
	case *ir.Call:
		return &ir.Call{Func: x.Func, Args: c.exprs(x.Args), Pos: x.Pos}
	case *ir.CallBuiltin:
		return &ir.CallBuiltin{Builtin: x.Builtin, Args: c.exprs(x.Args), Type: x.Type, Pos: x.Pos}
	case *ir.Atomic:
		var place *ir.Index
		if x.Place != nil {
			place = c.index(x.Place)
		}
		return &ir.Atomic{Op: x.Op, Place: place, Args: c.exprs(x.Args), Pos: x.Pos}
	}
	c.ok = false
	return e
}

func (c *cloner) index(x *ir.Index) *ir.Index {
	return &ir.Index{X: c.expr(x.X), Index: c.expr(x.Index), Type: x.Type, Pos: x.Pos}
}
