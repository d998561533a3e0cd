package opt

import (
	"strconv"
	"strings"

	"github.com/anygpu/gpu/kernel/internal/ir"
)

// unrollBudget is the most IR nodes (statements and expressions, about one
// GPU instruction each) a fully unrolled loop may hold. It is sized for
// register tiles: sgemm's 4×4 micro-tile update (acc[i][j] += av[i]*bv[j]
// over i and j) is about 220 nodes and an 8×8 one about 900, so both
// unroll, with the loops that load av and bv: every index into the tile is
// then a constant, which is what keeps it in registers. The 16-deep loop
// around them (some 6,300 nodes for 4×4) stays a loop: a counter per 16
// multiply-adds, and code that stays small. Unrolling it too (a budget of
// 8192) made the generated sgemm 20-50% slower on llvmpipe and lavapipe;
// GPU compilers unroll such a loop themselves where its form lets them.
const unrollBudget = 1024

// unroller unrolls the loops of one function.
type unroller struct {
	names  map[string]bool // every variable name in the function
	next   map[string]int  // the next number to try after a base name
	budget int
}

// stmts is list with its loops unrolled where they can be (inner loops
// first) and its expressions folded; an If whose condition folds to a
// constant is replaced by the branch taken.
func (u *unroller) stmts(list []ir.Stmt) []ir.Stmt {
	if list == nil {
		return nil
	}
	out := make([]ir.Stmt, 0, len(list))
	for _, s := range list {
		out = append(out, u.stmt(s)...)
	}
	return out
}

func (u *unroller) stmt(s ir.Stmt) []ir.Stmt {
	switch s := s.(type) {
	case *ir.Decl:
		if s != nil {
			s.Init = foldExpr(s.Init)
		}
	case *ir.Assign:
		if s != nil {
			s.Place = foldExpr(s.Place)
			s.Value = foldExpr(s.Value)
		}
	case *ir.ExprStmt:
		s.X = foldExpr(s.X)
	case *ir.Return:
		s.Value = foldExpr(s.Value)
	case *ir.Store4:
		s.Index = foldExpr(s.Index)
		s.Value = foldExpr(s.Value)
	case *ir.MatMulAdd:
		if f := s.From; f != nil {
			f.AOff, f.LDA, f.BOff, f.LDB = foldExpr(f.AOff), foldExpr(f.LDA), foldExpr(f.BOff), foldExpr(f.LDB)
		}
	case *ir.MMA:
		s.C, s.A, s.B = foldExpr(s.C), foldExpr(s.A), foldExpr(s.B)
	case *ir.LoadMatrices:
		s.Frag, s.At = foldExpr(s.Frag), foldExpr(s.At)
	case *ir.CopyAsync:
		s.DstIndex, s.SrcIndex = foldExpr(s.DstIndex), foldExpr(s.SrcIndex)
	case *ir.Block:
		s.Body = u.stmts(s.Body)
	case *ir.If:
		s.Cond = foldExpr(s.Cond)
		s.Then = u.stmts(s.Then)
		s.Else = u.stmts(s.Else)
		if c, ok := s.Cond.(*ir.Const); ok && c.Type == ir.Bool {
			taken := s.Else
			if c.Bool {
				taken = s.Then
			}
			// A branch that leaves (break, continue, return) stays in its
			// If: spliced in, it would leave the code after it unreachable.
			if !leaves(taken) {
				if len(taken) == 0 {
					return nil
				}
				return []ir.Stmt{&ir.Block{Body: taken, Pos: s.Pos}}
			}
		}
	case *ir.For:
		u.stmt(s.Init)
		s.Cond = foldExpr(s.Cond)
		u.stmt(s.Post)
		s.Body = u.stmts(s.Body)
		if out, ok := u.unroll(s); ok {
			return out
		}
	}
	return []ir.Stmt{s}
}

// leaves reports whether list has a Break, Continue or Return anywhere.
func leaves(list []ir.Stmt) bool {
	found := false
	ir.WalkStmts(list, func(s ir.Stmt) {
		switch s.(type) {
		case *ir.Break, *ir.Continue, *ir.Return:
			found = true
		}
	}, nil)
	return found
}

// unroll is loop's body once per iteration, or false when the loop is not
// one this pass unrolls: Init declares an integer variable with a constant
// (or zero) value, Cond and Post (an assignment of that variable) fold to
// constants for each value, the body neither assigns the variable nor
// breaks this loop (a continue is written as structure: withoutContinue),
// there are at most budget iterations and
// the copies hold at most budget nodes. The values the variable takes are
// computed as Go would (in its type: wrap-around included).
func (u *unroller) unroll(loop *ir.For) ([]ir.Stmt, bool) {
	values, ok := u.iterations(loop)
	if !ok {
		return nil, false
	}
	iv := loop.Init.(*ir.Decl).Var
	if assigns(loop.Body, iv) {
		return nil, false
	}
	body := loop.Body
	if jumps(body) {
		if body, ok = withoutContinue(body); !ok {
			return nil, false
		}
	}
	// From here on the loop runs exactly len(values) times (no break): a
	// loop left rolled keeps that count for the emitters.
	loop.Trips = len(values)
	per := max(size(body), 1)
	if len(values)*per > u.budget {
		return nil, false
	}
	var out []ir.Stmt
	for _, v := range values {
		c := &cloner{iv: iv, value: v, renamed: map[*ir.Var]*ir.Var{}, fresh: u.fresh, ok: true}
		copied := c.stmts(body)
		if !c.ok {
			return nil, false
		}
		// The constant may make inner loops unrollable (for j := 0; j < i;
		// j++) and conditions constant.
		out = append(out, u.stmts(copied)...)
		if size(out) > u.budget {
			return nil, false
		}
	}
	return out, true
}

// iterations is the values loop's variable takes, in order, when the loop
// has the form unroll wants and runs at most budget times.
func (u *unroller) iterations(loop *ir.For) ([]*ir.Const, bool) {
	d, ok := loop.Init.(*ir.Decl)
	if !ok || d == nil || d.Var == nil || d.Var.Class != ir.Local || loop.Cond == nil {
		return nil, false
	}
	iv := d.Var
	t, ok := iv.Type.(ir.Scalar)
	if !ok || !t.IsInt() {
		return nil, false
	}
	post, ok := loop.Post.(*ir.Assign)
	if !ok || post == nil {
		return nil, false
	}
	if ref, ok := post.Place.(*ir.Ref); !ok || ref == nil || ref.Var != iv {
		return nil, false
	}
	value := &ir.Const{Type: t}
	if d.Init != nil {
		c, ok := d.Init.(*ir.Const)
		if !ok || c.Type != t {
			return nil, false
		}
		value = c
	}
	var values []*ir.Const
	for {
		cond, ok := substitute(loop.Cond, iv, value)
		if !ok || cond.Type != ir.Bool {
			return nil, false
		}
		if !cond.Bool {
			return values, true
		}
		if len(values) >= u.budget {
			return nil, false
		}
		values = append(values, value)
		if value, ok = substitute(post.Value, iv, value); !ok || value.Type != t {
			return nil, false
		}
	}
}

// substitute is e with iv's reads replaced by value, folded: a constant,
// or false when it is not one.
func substitute(e ir.Expr, iv *ir.Var, value *ir.Const) (*ir.Const, bool) {
	c := &cloner{iv: iv, value: value, renamed: map[*ir.Var]*ir.Var{}, ok: true}
	x := c.expr(e)
	if !c.ok {
		return nil, false
	}
	r, ok := foldExpr(x).(*ir.Const)
	return r, ok
}

// assigns reports whether list assigns v (as a whole: v is a scalar).
func assigns(list []ir.Stmt, v *ir.Var) bool {
	found := false
	ir.WalkStmts(list, func(s ir.Stmt) {
		if a, ok := s.(*ir.Assign); ok && a != nil {
			if r, ok := a.Place.(*ir.Ref); ok && r != nil && r.Var == v {
				found = true
			}
		}
	}, nil)
	return found
}

// jumps reports whether list has a Break or Continue of the loop around it
// (one not inside a loop of its own).
func jumps(list []ir.Stmt) bool {
	for _, s := range list {
		switch s := s.(type) {
		case *ir.Break, *ir.Continue:
			return true
		case *ir.If:
			if jumps(s.Then) || jumps(s.Else) {
				return true
			}
		case *ir.Block:
			if jumps(s.Body) {
				return true
			}
		}
	}
	return false
}

// size is the number of statements and expressions in list.
func size(list []ir.Stmt) int {
	n := 0
	ir.WalkStmts(list, func(ir.Stmt) { n++ }, func(ir.Expr) { n++ })
	return n
}

// fresh is a new variable like v, with a name no other variable of the
// function has (v's, without trailing underscores, then _u and a number:
// no "__", which GLSL reserves).
func (u *unroller) fresh(v *ir.Var) *ir.Var {
	base := strings.TrimRight(v.Name, "_") + "_u"
	for k := u.next[base] + 1; ; k++ {
		name := base + strconv.Itoa(k)
		if !u.names[name] {
			u.names[name] = true
			u.next[base] = k
			nv := *v
			nv.Name = name
			return &nv
		}
	}
}
