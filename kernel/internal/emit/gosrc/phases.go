package gosrc

import "github.com/anygpu/gpu/kernel/internal/ir"

// A kernel's body becomes a tree of group-level nodes: phases (statements
// without a barrier, run once per thread) and the Ifs and Fors around
// barriers (run once per group, their bodies split in turn).
type node interface{ isNode() }

// phase is a run of barrier-free statements, run by every thread of the group
// before the next phase starts.
type phase struct {
	id    int
	stmts []ir.Stmt
}

// groupIf is an If around a Barrier: its condition is uniform.
type groupIf struct {
	s          *ir.If
	then, els_ []node
}

// groupFor is a For around a Barrier: its condition is uniform.
type groupFor struct {
	s    *ir.For
	id   int
	body []node
}

// groupMatMul is a MatMulAdd: the group runs it once, between the phases
// before and after it.
type groupMatMul struct{ s *ir.MatMulAdd }

func (*groupMatMul) isNode() {}
func (*phase) isNode()       {}
func (*groupIf) isNode()     {}
func (*groupFor) isNode()    {}

// splitter numbers phases and group loops as it builds the tree.
type splitter struct{ phases, loops int }

// split builds the tree of body: barriers end phases, blocks that hold
// barriers are flattened (the front end made names unique, so scopes do not
// matter), and Ifs and Fors that hold barriers become group-level nodes.
func (sp *splitter) split(body []ir.Stmt) []node {
	var (
		nodes []node
		run   []ir.Stmt
	)
	flush := func() {
		if len(run) > 0 {
			nodes = append(nodes, &phase{id: sp.phases, stmts: run})
			sp.phases++
			run = nil
		}
	}
	var add func(stmts []ir.Stmt)
	add = func(stmts []ir.Stmt) {
		for _, s := range stmts {
			if !hasBarrier(s) {
				run = append(run, s)
				continue
			}
			switch s := s.(type) {
			case *ir.Barrier:
				flush()
			case *ir.MatMulAdd:
				flush()
				nodes = append(nodes, &groupMatMul{s: s})
			case *ir.Block:
				add(s.Body)
			case *ir.If:
				flush()
				nodes = append(nodes, &groupIf{s: s, then: sp.split(s.Then), els_: sp.split(s.Else)})
			case *ir.For:
				flush()
				id := sp.loops
				sp.loops++
				nodes = append(nodes, &groupFor{s: s, id: id, body: sp.split(s.Body)})
			default:
				run = append(run, s)
			}
		}
	}
	add(body)
	flush()
	return nodes
}

// varUse is what the analysis learns about one variable.
type varUse struct {
	declPhase   int          // the phase of its Decl; -1 at group level or for a parameter
	phases      map[int]bool // the phases that refer to it
	groupRef    bool         // referred to by group-level code (a condition, a loop's init or post)
	phaseAssign bool         // assigned in a phase
	read        bool         // read somewhere (not only assigned)
}

// varKind is where the emitted code keeps a variable.
type varKind uint8

const (
	kindPlain   varKind = iota // a Go local (of a thread, or of the group when uniform)
	kindSpill                  // a per-thread slice, indexed by the thread's linear index
	kindCopied                 // a scalar parameter the kernel assigns: each thread copies it
	kindRemat                  // a pure local recomputed in each phase that reads it (promote.go)
	kindUniform                // a pure uniform local, declared once per group (uniform.go)
)

// analysis is the result of analyse.
type analysis struct {
	uses      map[*ir.Var]*varUse
	kinds     map[*ir.Var]varKind
	hasReturn bool // a Return in some phase
	phases    int
}

// analyse finds where each variable of kernel f lives, given its tree.
func analyse(f *ir.Func, tree []node, phases int) *analysis {
	a := &analysis{uses: map[*ir.Var]*varUse{}, kinds: map[*ir.Var]varKind{}, phases: phases}
	use := func(v *ir.Var) *varUse {
		u := a.uses[v]
		if u == nil {
			u = &varUse{declPhase: -1, phases: map[int]bool{}}
			a.uses[v] = u
		}
		return u
	}
	// refs records the variables of the expressions of s (or x) as used in
	// phase id (-1: at group level).
	exprRefs := func(x ir.Expr, id int) {
		ir.WalkExpr(x, func(x ir.Expr) {
			if r, ok := x.(*ir.Ref); ok {
				u := use(r.Var)
				u.read = true
				if id < 0 {
					u.groupRef = true
				} else {
					u.phases[id] = true
				}
			}
		})
	}
	var stmtRefs func(s ir.Stmt, id int)
	stmtRefs = func(s ir.Stmt, id int) {
		ir.WalkStmt(s, func(s ir.Stmt) {
			switch s := s.(type) {
			case *ir.Decl:
				u := use(s.Var)
				u.declPhase = id
				if id >= 0 {
					u.phases[id] = true
				}
			case *ir.Assign:
				if r, ok := s.Place.(*ir.Ref); ok {
					u := use(r.Var)
					if id < 0 {
						u.groupRef = true
					} else {
						u.phases[id] = true
						u.phaseAssign = true
					}
				}
			case *ir.Return:
				if id >= 0 {
					a.hasReturn = true
				}
			}
		}, nil)
		// Expressions, without counting a plain assigned Ref as a read.
		ir.WalkStmt(s, func(s ir.Stmt) {
			switch s := s.(type) {
			case *ir.Decl:
				exprRefs(s.Init, id)
			case *ir.Assign:
				if _, ok := s.Place.(*ir.Ref); !ok {
					exprRefs(s.Place, id)
				}
				exprRefs(s.Value, id)
			case *ir.ExprStmt:
				exprRefs(s.X, id)
			case *ir.If:
				exprRefs(s.Cond, id)
			case *ir.For:
				exprRefs(s.Cond, id)
			case *ir.Return:
				exprRefs(s.Value, id)
			case *ir.Store4:
				exprRefs(s.Buf, id)
				exprRefs(s.Index, id)
				exprRefs(s.Value, id)
			}
		}, nil)
	}
	var walk func(nodes []node)
	walk = func(nodes []node) {
		for _, n := range nodes {
			switch n := n.(type) {
			case *phase:
				for _, s := range n.stmts {
					stmtRefs(s, n.id)
				}
			case *groupIf:
				exprRefs(n.s.Cond, -1)
				walk(n.then)
				walk(n.els_)
			case *groupMatMul:
				if n.s.From != nil {
					exprRefs(n.s.A, -1)
					exprRefs(n.s.B, -1)
					for _, x := range n.s.From.Exprs() {
						exprRefs(x, -1)
					}
				}
			case *groupFor:
				if n.s.Init != nil {
					stmtRefs(n.s.Init, -1)
				}
				exprRefs(n.s.Cond, -1)
				if n.s.Post != nil {
					stmtRefs(n.s.Post, -1)
				}
				walk(n.body)
			}
		}
	}
	walk(tree)
	for v, u := range a.uses {
		switch {
		case v.Class == ir.Shared:
			a.kinds[v] = kindPlain
		case v.Class == ir.Param:
			if _, buf := v.Type.(*ir.Slice); buf || !u.phaseAssign {
				a.kinds[v] = kindPlain
			} else if phases <= 1 && !u.groupRef {
				a.kinds[v] = kindCopied
			} else {
				a.kinds[v] = kindSpill
			}
		case u.declPhase < 0:
			if u.phaseAssign {
				a.kinds[v] = kindSpill
			} else {
				a.kinds[v] = kindPlain
			}
		default:
			spill := u.groupRef
			for p := range u.phases {
				if p != u.declPhase {
					spill = true
				}
			}
			if spill {
				a.kinds[v] = kindSpill
			} else {
				a.kinds[v] = kindPlain
			}
		}
	}
	return a
}
