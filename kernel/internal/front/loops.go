package front

import (
	"go/ast"
	"go/token"
	"go/types"

	"github.com/anygpu/gpu/kernel/internal/ir"
)

// loopCtx is a for loop being lowered. A break or continue of an outer loop
// L from inside this one sets L's flag and breaks; after this loop the flag
// is checked (exits), breaking again until L is reached.
type loopCtx struct {
	label     *types.Label
	brk, cont *ir.Var // this loop's flags, declared at its body's start
	exits     []*ir.Var
	targets   map[*ir.Var]*loopCtx // the loop each exit flag belongs to
}

// addExit records that flag (of loop target) is set inside this loop.
func (c *loopCtx) addExit(flag *ir.Var, target *loopCtx) {
	if c.targets[flag] != nil {
		return
	}
	c.targets[flag] = target
	c.exits = append(c.exits, flag)
}

// loop lowers a for or range statement with an optional label.
func (f *fnLower) loop(s ast.Stmt, label *types.Label) []ir.Stmt {
	ctx := &loopCtx{label: label, targets: map[*ir.Var]*loopCtx{}}
	var prefix []ir.Stmt
	var loop *ir.For
	switch s := s.(type) {
	case *ast.ForStmt:
		loop, prefix = f.forStmt(s, ctx)
	case *ast.RangeStmt:
		loop, prefix = f.rangeStmt(s, ctx)
	}
	if loop == nil {
		return nil
	}
	var flags []ir.Stmt
	for _, v := range []*ir.Var{ctx.brk, ctx.cont} {
		if v != nil {
			flags = append(flags, &ir.Decl{Var: v, Init: &ir.Const{Type: ir.Bool, Pos: v.Pos}, Pos: v.Pos})
		}
	}
	loop.Body = append(flags, loop.Body...)
	var out []ir.Stmt
	if len(prefix) > 0 {
		out = []ir.Stmt{&ir.Block{Body: append(prefix, loop), Pos: loop.Pos}}
	} else {
		out = []ir.Stmt{loop}
	}
	// Leave or continue outer loops whose flag was set inside this one.
	var parent *loopCtx
	if n := len(f.loops); n > 0 {
		parent = f.loops[n-1]
	}
	for _, flag := range ctx.exits {
		var jump ir.Stmt = &ir.Break{Pos: flag.Pos}
		if ctx.targets[flag] == parent && flag == parent.cont {
			jump = &ir.Continue{Pos: flag.Pos}
		}
		out = append(out, &ir.If{Cond: &ir.Ref{Var: flag, Pos: flag.Pos}, Then: []ir.Stmt{jump}, Pos: flag.Pos})
	}
	return out
}

// body lowers a loop's body with ctx innermost.
func (f *fnLower) body(b *ast.BlockStmt, ctx *loopCtx) []ir.Stmt {
	f.loops = append(f.loops, ctx)
	out := f.stmts(b.List, false)
	f.loops = f.loops[:len(f.loops)-1]
	return out
}

// forStmt lowers a three-clause, condition-only or infinite loop. Init
// statements beyond one go before the loop (prefix, in a Block).
func (f *fnLower) forStmt(s *ast.ForStmt, ctx *loopCtx) (*ir.For, []ir.Stmt) {
	loop := &ir.For{Pos: f.pos(s)}
	var prefix []ir.Stmt
	if s.Init != nil {
		init := f.stmt(s.Init, false)
		if len(init) == 1 && isDeclOrAssign(init[0]) {
			loop.Init = init[0]
		} else {
			prefix = init
		}
	}
	if s.Cond != nil {
		loop.Cond = f.expr(s.Cond)
	}
	loop.Body = f.body(s.Body, ctx)
	if s.Post != nil {
		post := f.stmt(s.Post, false)
		switch {
		case len(post) == 1 && isAssign(post[0]):
			loop.Post = post[0]
		case len(post) > 0:
			f.errorf(s.Post, "make the post statement one assignment (i++, i += step) and do the rest in the body",
				"this post statement of a for loop is not allowed in a kernel")
		}
	}
	return loop, prefix
}

func isDeclOrAssign(s ir.Stmt) bool {
	switch s.(type) {
	case *ir.Decl, *ir.Assign:
		return true
	}
	return false
}

func isAssign(s ir.Stmt) bool { _, ok := s.(*ir.Assign); return ok }

// rangeStmt lowers for i := range n to a three-clause loop over a hidden
// counter (or i itself when the body never assigns it); n is evaluated once.
func (f *fnLower) rangeStmt(s *ast.RangeStmt, ctx *loopCtx) (*ir.For, []ir.Stmt) {
	p := f.pos(s)
	xt := f.typeOf(s.X)
	b, ok := xt.Underlying().(*types.Basic)
	if !ok || b.Info()&types.IsInteger == 0 {
		what := "a buffer"
		if _, ok := xt.Underlying().(*types.Array); ok {
			what = "an array"
		} else if _, ok := xt.Underlying().(*types.Pointer); ok {
			what = "an array"
		} else if _, ok := xt.Underlying().(*types.Slice); !ok {
			what = xt.String()
		}
		f.errorf(s.X, "range over an integer: for i := range n (a length parameter for a buffer, len(a) for an array)",
			"range over %s is not allowed in a kernel", what)
		return nil, nil
	}
	var key *ast.Ident
	if id, ok := s.Key.(*ast.Ident); ok && id.Name != "_" {
		key = id
	}
	// The counter's type: the key's, else the range expression's.
	var ct ir.Type
	if key != nil {
		ct = f.l.quietType(f.l.info.TypeOf(key))
	}
	if ct == nil {
		ct = f.l.quietType(xt)
	}
	cs, _ := ct.(ir.Scalar)
	if cs == ir.Invalid {
		return nil, nil
	}
	var prefix []ir.Stmt
	n := convert(f.expr(s.X), cs)
	if _, ok := n.(*ir.Const); !ok {
		lim := f.newTemp("n", cs, p)
		prefix = append(prefix, &ir.Decl{Var: lim, Init: n, Pos: p})
		n = &ir.Ref{Var: lim, Pos: p}
	}
	var counter *ir.Var
	var bodyStart []ir.Stmt
	switch {
	case key != nil && s.Tok == token.DEFINE:
		v := f.declare(key)
		if v == nil {
			return nil, nil
		}
		if f.assigns(s.Body, f.l.info.Defs[key]) {
			counter = f.newTemp("i", cs, p)
			bodyStart = append(bodyStart, &ir.Decl{Var: v, Init: &ir.Ref{Var: counter, Pos: p}, Pos: v.Pos})
		} else {
			counter = v
		}
	case key != nil:
		place := f.place(s.Key)
		counter = f.newTemp("i", cs, p)
		if place != nil {
			bodyStart = append(bodyStart, &ir.Assign{Place: place, Value: convert(&ir.Ref{Var: counter, Pos: p}, place.ExprType()), Pos: f.pos(s.Key)})
		}
	default:
		counter = f.newTemp("i", cs, p)
	}
	ref := func() *ir.Ref { return &ir.Ref{Var: counter, Pos: p} }
	loop := &ir.For{
		Init: &ir.Decl{Var: counter, Init: makeConstZero(cs, p), Pos: p},
		Cond: &ir.Binary{Op: ir.Lt, X: ref(), Y: n, Type: ir.Bool, Pos: p},
		Post: &ir.Assign{Place: ref(), Value: &ir.Binary{Op: ir.Add, X: ref(), Y: one(cs, p), Type: cs, Pos: p}, Pos: p},
		Pos:  p,
	}
	loop.Body = append(bodyStart, f.body(s.Body, ctx)...)
	return loop, prefix
}

// makeConstZero is the zero of type s.
func makeConstZero(s ir.Scalar, p ir.Pos) *ir.Const { return &ir.Const{Type: s, Pos: p} }

// assigns reports whether body assigns the variable obj (=, op=, ++, --).
func (f *fnLower) assigns(body ast.Node, obj types.Object) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		var lhs []ast.Expr
		switch s := n.(type) {
		case *ast.AssignStmt:
			lhs = s.Lhs
		case *ast.IncDecStmt:
			lhs = []ast.Expr{s.X}
		case *ast.RangeStmt:
			if s.Tok == token.ASSIGN && s.Key != nil {
				lhs = []ast.Expr{s.Key}
			}
		}
		for _, l := range lhs {
			if id, ok := unparen(l).(*ast.Ident); ok && f.l.info.Uses[id] == obj {
				found = true
			}
		}
		return !found
	})
	return found
}

// branch lowers break, continue (of an outer loop through flags) and reports goto.
func (f *fnLower) branch(s *ast.BranchStmt) []ir.Stmt {
	p := f.pos(s)
	switch s.Tok {
	case token.GOTO:
		f.errorf(s, "use a loop with break or continue", "goto is not allowed in a kernel")
		return nil
	case token.FALLTHROUGH:
		f.errorf(s, "write if / else if / else", "fallthrough is not allowed in a kernel")
		return nil
	}
	plain := func() []ir.Stmt {
		if s.Tok == token.BREAK {
			return []ir.Stmt{&ir.Break{Pos: p}}
		}
		return []ir.Stmt{&ir.Continue{Pos: p}}
	}
	if s.Label == nil || len(f.loops) == 0 {
		return plain()
	}
	lbl, _ := f.l.info.Uses[s.Label].(*types.Label)
	k := -1
	for i, c := range f.loops {
		if c.label == lbl && lbl != nil {
			k = i
		}
	}
	if k < 0 || k == len(f.loops)-1 {
		return plain()
	}
	target := f.loops[k]
	var flag *ir.Var
	if s.Tok == token.BREAK {
		if target.brk == nil {
			target.brk = f.newTemp("break_"+s.Label.Name, ir.Bool, p)
		}
		flag = target.brk
	} else {
		if target.cont == nil {
			target.cont = f.newTemp("continue_"+s.Label.Name, ir.Bool, p)
		}
		flag = target.cont
	}
	for _, c := range f.loops[k+1:] {
		c.addExit(flag, target)
	}
	return []ir.Stmt{
		&ir.Assign{Place: &ir.Ref{Var: flag, Pos: p}, Value: &ir.Const{Type: ir.Bool, Bool: true, Pos: p}, Pos: p},
		&ir.Break{Pos: p},
	}
}
