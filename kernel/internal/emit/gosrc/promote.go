package gosrc

import (
	"fmt"
	"strings"

	"github.com/anygpu/gpu/kernel/internal/ir"
)

// Two ways keep the per-thread state of a kernel with barriers out of memory
// in its inner loops:
//
//   - A local declared at the top level of a phase, never assigned, whose
//     value is pure (ids, constants, unassigned parameters, other such
//     locals: kernel.ThreadX(), GroupY()*16+ty) is recomputed at the top of
//     each later phase that reads it (rematerialised) instead of living in a
//     per-thread slice.
//   - In a phase no thread leaves early, each per-thread slice the phase uses
//     is read into a Go local when the thread starts the phase and written
//     back when it ends, so loops inside the phase work on a register.

// rematDecls are the declarations of the rematerialised locals, by variable.
type rematDecls map[*ir.Var]*ir.Decl

// markRemat turns the spilled locals that can be recomputed into kindRemat,
// and returns their declarations.
func (f *fn) markRemat(tree []node) rematDecls {
	decls := rematDecls{}
	var order []*ir.Decl
	var visit func(nodes []node)
	visit = func(nodes []node) {
		for _, n := range nodes {
			switch n := n.(type) {
			case *phase:
				for _, s := range n.stmts {
					if d, ok := s.(*ir.Decl); ok && d.Init != nil {
						order = append(order, d)
					}
				}
			case *groupIf:
				visit(n.then)
				visit(n.els_)
			case *groupFor:
				visit(n.body)
			}
		}
	}
	visit(tree)
	for _, d := range order {
		v := d.Var
		u := f.an.uses[v]
		if v.Class != ir.Local || f.an.kinds[v] != kindSpill || u == nil || u.phaseAssign || u.groupRef {
			continue
		}
		if _, scalar := v.Type.(ir.Scalar); !scalar || !f.rematerialisable(d.Init, decls) {
			continue
		}
		decls[v] = d
		f.an.kinds[v] = kindRemat
		f.rematOrder = append(f.rematOrder, d)
	}
	return decls
}

// rematerialisable reports whether x can be recomputed anywhere after its
// declaration with the same value: pure, reading only unassigned parameters
// and locals already rematerialised.
func (f *fn) rematerialisable(x ir.Expr, decls rematDecls) bool {
	if !f.pureUniformOrID(x) {
		return false
	}
	ok := true
	ir.WalkExpr(x, func(x ir.Expr) {
		switch x := x.(type) {
		case *ir.Ref:
			if x.Var.Class == ir.Param {
				ok = ok && !f.assigned(x.Var)
			} else if decls[x.Var] == nil && f.an.kinds[x.Var] != kindUniform {
				ok = false
			}
		}
	})
	return ok
}

// phaseVars returns the variables the statements refer to, in first-use
// order, and those they declare.
func phaseVars(stmts []ir.Stmt) (refs []*ir.Var, declared map[*ir.Var]bool) {
	seen := map[*ir.Var]bool{}
	declared = map[*ir.Var]bool{}
	add := func(v *ir.Var) {
		if !seen[v] {
			seen[v] = true
			refs = append(refs, v)
		}
	}
	ir.WalkStmts(stmts, func(s ir.Stmt) {
		if d, ok := s.(*ir.Decl); ok {
			declared[d.Var] = true
			add(d.Var)
		}
	}, func(x ir.Expr) {
		if r, ok := x.(*ir.Ref); ok {
			add(r.Var)
		}
	})
	return refs, declared
}

// rematPrologue declares, at the top of a thread's share of phase p, the
// rematerialised locals p reads but does not declare, with what they need,
// in declaration order.
func (f *fn) rematPrologue(p *phase) (string, error) {
	refs, declared := phaseVars(p.stmts)
	need := map[*ir.Var]bool{}
	var add func(v *ir.Var)
	add = func(v *ir.Var) {
		d := f.remat[v]
		if d == nil || need[v] || declared[v] {
			return
		}
		need[v] = true
		ir.WalkExpr(d.Init, func(x ir.Expr) {
			if r, ok := x.(*ir.Ref); ok {
				add(r.Var)
			}
		})
	}
	for _, v := range refs {
		add(v)
	}
	var b strings.Builder
	for _, d := range f.rematOrder {
		if !need[d.Var] {
			continue
		}
		init, err := f.exprUntyped(d.Init)
		if err != nil {
			return "", err
		}
		t, err := f.e.goType(d.Var.Type, d.Pos)
		if err != nil {
			return "", err
		}
		name := f.names[d.Var]
		fmt.Fprintf(&b, "var %s %s = %s\n_ = %s\n", name, t, init, name)
	}
	return b.String(), nil
}

// promotedName is the register copy of a per-thread slice in a phase.
func promotedName(name string) string { return "agR_" + name }

// promotable returns the names of the per-thread slices phase p uses, in
// first-use order, and those it writes (declares or assigns).
func (f *fn) promotable(p *phase) (names []string, written map[string]bool) {
	refs, declared := phaseVars(p.stmts)
	assigned := writtenVars(p.stmts)
	written = map[string]bool{}
	for _, v := range refs {
		if f.an.kinds[v] == kindSpill {
			names = append(names, f.names[v])
			if declared[v] || assigned[v] {
				written[f.names[v]] = true
			}
		}
	}
	return names, written
}

// writtenVars returns the variables the statements write: assigned whole, or
// an element or lane of them, or through an atomic.
func writtenVars(stmts []ir.Stmt) map[*ir.Var]bool {
	out := map[*ir.Var]bool{}
	root := func(x ir.Expr) {
		for {
			switch y := x.(type) {
			case *ir.Ref:
				out[y.Var] = true
				return
			case *ir.Index:
				x = y.X
			case *ir.Lane:
				x = y.X
			default:
				return
			}
		}
	}
	ir.WalkStmts(stmts, func(s ir.Stmt) {
		if a, ok := s.(*ir.Assign); ok {
			root(a.Place)
		}
	}, func(x ir.Expr) {
		if a, ok := x.(*ir.Atomic); ok {
			root(a.Place)
		}
	})
	return out
}
