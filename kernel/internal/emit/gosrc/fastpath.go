package gosrc

import (
	"fmt"
	"strings"

	"github.com/anygpu/gpu/kernel/internal/ir"
)

// The fast path of a barrier-free kernel of the common form
//
//	i := kernel.GlobalX()
//	if i < n { body }          (or: if i >= n { return }; body)
//
// runs, for a 1-D group whose threads' i all index inside the buffers the
// body indexes by i, a loop over exactly the threads that pass the guard,
// with those buffers re-sliced to the group's range and indexed by the loop
// counter: Go then checks the bounds once per group instead of once per
// element, and the guard is one min per group. Other groups (the last,
// partial one past a buffer's end; 2-D or 3-D groups; a wrapping i) take the
// general path, which has the kernel's exact semantics. The statements before
// the guard are declarations whose values are pure (no memory access, no
// call, nothing that can panic), so skipping them for the threads the guard
// stops changes nothing.

// fastPlan is what the fast path of a kernel needs.
type fastPlan struct {
	i      *ir.Var   // the local holding GlobalX, never assigned
	prefix []ir.Stmt // the pure declarations before the guard
	bound  ir.Expr   // the guard's uniform n; nil when there is none
	body   []ir.Stmt // the statements the guard protects
	bufs   []*ir.Var // the buffers the body indexes by i, in parameter order
	isBuf  map[*ir.Var]bool
}

// fastName is the re-sliced view of buffer name in the fast path.
func fastName(name string) string { return "agF_" + name }

// planFast returns the fast plan of a kernel, or nil when it has none.
func (f *fn) planFast(tree []node) *fastPlan {
	if len(tree) != 1 || f.an.phases != 1 {
		return nil
	}
	ph, ok := tree[0].(*phase)
	if !ok {
		return nil
	}
	p := &fastPlan{isBuf: map[*ir.Var]bool{}}
	stmts := ph.stmts
	for len(stmts) > 0 {
		d, ok := stmts[0].(*ir.Decl)
		if !ok || d.Init == nil || !f.pureUniformOrID(d.Init) {
			break
		}
		if b, ok := d.Init.(*ir.CallBuiltin); ok && b.Builtin == ir.GlobalX && p.i == nil && !f.assigned(d.Var) {
			p.i = d.Var
		}
		p.prefix = append(p.prefix, d)
		stmts = stmts[1:]
	}
	if p.i == nil {
		return nil
	}
	p.body = stmts
	if len(stmts) > 0 {
		if s, ok := stmts[0].(*ir.If); ok && len(s.Else) == 0 {
			if c, ok := s.Cond.(*ir.Binary); ok && f.isRef(c.X, p.i) && f.uniformBound(c.Y) {
				switch {
				case c.Op == ir.Lt && len(stmts) == 1:
					p.bound, p.body = c.Y, s.Then
				case c.Op == ir.Ge && len(s.Then) == 1:
					if r, ok := s.Then[0].(*ir.Return); ok && r.Value == nil {
						p.bound, p.body = c.Y, stmts[1:]
					}
				}
			}
		}
	}
	ir.WalkStmts(p.body, nil, func(x ir.Expr) {
		if ix, ok := x.(*ir.Index); ok && f.isRef(ix.Index, p.i) {
			if r, ok := ix.X.(*ir.Ref); ok && r.Var.Class == ir.Param {
				if _, buf := r.Var.Type.(*ir.Slice); buf {
					p.isBuf[r.Var] = true
				}
			}
		}
	})
	for _, v := range f.f.Params {
		if p.isBuf[v] {
			p.bufs = append(p.bufs, v)
		}
	}
	if len(p.bufs) == 0 {
		return nil
	}
	return p
}

// isRef reports whether x reads v.
func (f *fn) isRef(x ir.Expr, v *ir.Var) bool {
	r, ok := x.(*ir.Ref)
	return ok && r.Var == v
}

// assigned reports whether some statement assigns v.
func (f *fn) assigned(v *ir.Var) bool {
	u := f.an.uses[v]
	return u == nil || u.phaseAssign || u.groupRef
}

// uniformBound reports whether x is a guard's bound the group can evaluate
// once: a constant or an unassigned scalar parameter of type uint32.
func (f *fn) uniformBound(x ir.Expr) bool {
	if x.ExprType() != ir.U32 {
		return false
	}
	switch x := x.(type) {
	case *ir.Const:
		return true
	case *ir.Ref:
		return x.Var.Class == ir.Param && !f.assigned(x.Var)
	}
	return false
}

// pureUniformOrID reports whether x reads no memory, calls nothing and
// cannot panic: constants, ids, unassigned scalar parameters and locals, and
// arithmetic on them (no shift: a negative signed count panics in Go).
func (f *fn) pureUniformOrID(x ir.Expr) bool {
	pure := true
	ir.WalkExpr(x, func(x ir.Expr) {
		switch x := x.(type) {
		case *ir.Const, *ir.Convert:
		case *ir.Ref:
			if _, scalar := x.Var.Type.(ir.Scalar); !scalar || x.Var.Class == ir.Shared {
				pure = false
			}
		case *ir.Unary:
		case *ir.Binary:
			if x.Op == ir.Shl || x.Op == ir.Shr {
				pure = false
			}
		case *ir.CallBuiltin:
			if !x.Builtin.IsID() {
				pure = false
			}
		default:
			pure = false
		}
	})
	return pure
}

// fastIndex is the fast path's form of x, when x indexes a re-sliced buffer
// by i.
func (f *fn) fastIndex(x *ir.Index) (string, bool) {
	if f.fast == nil || !f.isRef(x.Index, f.fast.i) {
		return "", false
	}
	r, ok := x.X.(*ir.Ref)
	if !ok || !f.fast.isBuf[r.Var] {
		return "", false
	}
	return fastName(f.names[r.Var]) + "[agTxI]", true
}

// fastPath emits the fast path of plan p: a test of the group, and when it
// passes, the loop and a return.
func (f *fn) fastPath(p *fastPlan) (string, error) {
	f.fast = p
	f.inPhase = true
	f.label = "agFast"
	f.labelUsed, f.tidUsed, f.brkUsed, f.contUsed = false, false, false, false
	f.depth = 0
	body, err := f.sub(func() error {
		for _, s := range p.prefix {
			if err := f.stmt(s); err != nil {
				return err
			}
			f.printf("_ = %s\n", f.names[s.(*ir.Decl).Var])
		}
		return f.stmts(p.body)
	})
	f.fast, f.inPhase = nil, false
	if err != nil {
		return "", err
	}
	f.use("agOx")
	var b strings.Builder
	fmt.Fprintf(&b, "agLo := int64(g.ID.X) * int64(%s.X)\n", nameSize)
	fmt.Fprintf(&b, "agEnd := int64(%s.X)\n", nameSize)
	if p.bound != nil {
		n, err := f.expr(p.bound)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "agEnd = min(agEnd, max(int64(%s)-agLo, 0))\n", n)
	}
	cond := []string{nameSize + ".Y == 1", nameSize + ".Z == 1", "agLo+agEnd <= 1<<32"}
	for _, v := range p.bufs {
		cond = append(cond, fmt.Sprintf("agLo+agEnd <= int64(len(%s))", f.names[v]))
	}
	fmt.Fprintf(&b, "if %s {\n", strings.Join(cond, " && "))
	first := fastName(f.names[p.bufs[0]])
	for i, v := range p.bufs {
		name := f.names[v]
		fmt.Fprintf(&b, "%s := %s[agLo:agLo+agEnd]\n", fastName(name), name)
		if i > 0 {
			fmt.Fprintf(&b, "%s = %s[:len(%s)]\n", fastName(name), fastName(name), first)
		}
	}
	if f.labelUsed {
		fmt.Fprintf(&b, "%s:\n", f.label)
	}
	fmt.Fprintf(&b, "for agTxI := range %s {\n", first)
	b.WriteString("agTx := uint32(agTxI)\n")
	b.WriteString("agTy, agTz := uint32(0), uint32(0)\n")
	b.WriteString("_, _, _ = agTx, agTy, agTz\n")
	if f.tidUsed {
		fmt.Fprintf(&b, "%s := agTx\n", nameTid)
	}
	for _, v := range f.f.Params {
		if f.an.kinds[v] == kindCopied && f.an.uses[v] != nil {
			fmt.Fprintf(&b, "%s := %s\n", f.names[v], copiedName(f.names[v]))
		}
	}
	fmt.Fprintf(&b, "%s}\nreturn\n}\n", body)
	return b.String(), nil
}
