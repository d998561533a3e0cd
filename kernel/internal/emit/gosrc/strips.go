package gosrc

import (
	"fmt"
	"strings"

	"github.com/anygpu/gpu/kernel/internal/ir"
)

// Strips: the control flow of a barrier-free kernel's threads, run once for
// a run of threads instead of once per thread.
//
// A 1-D group's threads split into strips of q consecutive threads, where q
// is the uniform divisor of the kernel's ThreadX()/q (the whole group when
// there is none): in a strip, ThreadX()/q is one value. A statement whose
// conditions and values are the same for every thread of a strip (uniform
// values, ThreadY and ThreadZ, ThreadX()/q, locals computed only from those:
// strip-uniform) runs once per strip; the other statements run in loops over
// the strip's threads, placed where they stand. A strip-uniform For thus
// wraps the loops over the threads of its body: a grid-stride loop whose
// trip count is the same for the strip's threads runs its rounds once, each
// a tight loop over the threads. Threads of a kernel without barriers may
// run in any interleaving, so running thread t's round r before thread t+1's
// round r-1 keeps the kernel's meaning.
//
// The plan is refused, and the kernel keeps one loop over its threads, when
// a thread could leave the strip's control flow on its own: a return, or a
// break or continue of a strip-uniform loop, under a condition that differs
// between threads. A local that is not strip-uniform lives in one run of
// threads only, except pure ones (t := kernel.ThreadX(), lane := t - sub*q),
// which each run that reads them recomputes.

// stripPlan is the strip form of a kernel.
type stripPlan struct {
	stmts    []ir.Stmt
	divisor  *ir.Var          // the uniform q of ThreadX()/q; nil: one strip
	su       map[*ir.Var]bool // the strip-uniform locals
	lanePure map[*ir.Var]*ir.Decl
	order    []*ir.Decl // the lane-pure declarations, in order
	threadX  map[*ir.Var]bool
}

// planStrips returns the strip plan of a single-phase kernel, or nil.
func (f *fn) planStrips(tree []node) *stripPlan {
	if len(tree) != 1 || f.an.phases != 1 {
		return nil
	}
	ph, ok := tree[0].(*phase)
	if !ok {
		return nil
	}
	for _, p := range f.f.Params {
		if f.an.kinds[p] == kindCopied {
			return nil
		}
	}
	p := &stripPlan{stmts: ph.stmts, su: map[*ir.Var]bool{}, lanePure: map[*ir.Var]*ir.Decl{}, threadX: map[*ir.Var]bool{}}
	assigned := assignedVars(f.f.Body)
	// Locals that are ThreadX(), and the divisor.
	ir.WalkStmts(p.stmts, func(s ir.Stmt) {
		if d, ok := s.(*ir.Decl); ok && !assigned[d.Var] {
			if b, ok := d.Init.(*ir.CallBuiltin); ok && b.Builtin == ir.ThreadX {
				p.threadX[d.Var] = true
			}
		}
	}, nil)
	ir.WalkStmts(p.stmts, nil, func(x ir.Expr) {
		if b, ok := x.(*ir.Binary); ok && b.Op == ir.Div && p.divisor == nil && p.isThreadX(b.X) {
			if r, ok := b.Y.(*ir.Ref); ok && f.an.kinds[r.Var] == kindUniform && r.Var.Type == ir.U32 {
				p.divisor = r.Var
			}
		}
	})
	// Candidates: every scalar local not uniform; drop those that break the
	// rules until none does.
	ir.WalkStmts(p.stmts, func(s ir.Stmt) {
		if d, ok := s.(*ir.Decl); ok {
			if valueType(d.Var.Type) && f.an.kinds[d.Var] != kindUniform {
				p.su[d.Var] = true
			}
		}
	}, nil)
	for {
		before := len(p.su)
		p.lanePure = map[*ir.Var]*ir.Decl{}
		p.order = nil
		var c stripCheck
		c.p, c.f, c.assigned = p, f, assigned
		c.list(p.stmts, true)
		if len(p.su) == before {
			if c.refused {
				return nil
			}
			break
		}
	}
	// Lane locals (neither strip-uniform nor lane-pure) live in one run.
	if !p.runsClosed(f) {
		return nil
	}
	useful := false
	for _, s := range p.stmts {
		switch s.(type) {
		case *ir.If, *ir.For:
			if p.isSUStmt(f, s) {
				useful = true
			}
		}
	}
	if !useful {
		return nil
	}
	return p
}

// valueType reports whether t is a scalar or a Float4: a value a strip or a
// run of threads can hold in a Go local.
func valueType(t ir.Type) bool {
	switch t.(type) {
	case ir.Scalar, *ir.Vec:
		return true
	}
	return false
}

// isThreadX reports whether x is kernel.ThreadX() or a local holding it.
func (p *stripPlan) isThreadX(x ir.Expr) bool {
	switch x := x.(type) {
	case *ir.CallBuiltin:
		return x.Builtin == ir.ThreadX
	case *ir.Ref:
		return p.threadX[x.Var]
	}
	return false
}

// isStripDiv reports whether x is ThreadX()/q: the strip's index.
func (p *stripPlan) isStripDiv(x ir.Expr) bool {
	b, ok := x.(*ir.Binary)
	if !ok || b.Op != ir.Div || p.divisor == nil || !p.isThreadX(b.X) {
		return false
	}
	r, ok := b.Y.(*ir.Ref)
	return ok && r.Var == p.divisor
}

// suExpr reports whether x is strip-uniform.
func (p *stripPlan) suExpr(f *fn, x ir.Expr) bool {
	if p.isStripDiv(x) {
		return true
	}
	switch x := x.(type) {
	case *ir.Const:
		return true
	case *ir.Convert:
		return p.suExpr(f, x.X)
	case *ir.Unary:
		return p.suExpr(f, x.X)
	case *ir.Binary:
		return p.suExpr(f, x.X) && p.suExpr(f, x.Y)
	case *ir.Lane:
		return p.suExpr(f, x.X)
	case *ir.MakeVec:
		for _, e := range x.Elems {
			if !p.suExpr(f, e) {
				return false
			}
		}
		return true
	case *ir.Ref:
		if !valueType(x.Var.Type) {
			return false
		}
		switch x.Var.Class {
		case ir.Param:
			return !f.assigned(x.Var)
		case ir.Local:
			return f.an.kinds[x.Var] == kindUniform || p.su[x.Var]
		}
		return false
	case *ir.CallBuiltin:
		b := x.Builtin
		switch {
		case b == ir.ThreadY, b == ir.ThreadZ,
			b >= ir.GroupX && b <= ir.GroupZ, b >= ir.GroupSizeX && b <= ir.GroupSizeZ, b >= ir.GridX && b <= ir.GridZ:
			return true
		case b.IsID(), b == ir.Load4, b == ir.Len:
			return false
		}
		for _, a := range x.Args {
			if !p.suExpr(f, a) {
				return false
			}
		}
		return true
	case *ir.Call:
		for _, a := range x.Args {
			if _, scalar := a.ExprType().(ir.Scalar); !scalar || !p.suExpr(f, a) {
				return false
			}
		}
		return true
	}
	return false
}

// isSUStmt reports whether s, standing where every thread of a strip runs
// it, runs once per strip.
func (p *stripPlan) isSUStmt(f *fn, s ir.Stmt) bool {
	switch s := s.(type) {
	case *ir.Decl:
		return f.an.kinds[s.Var] == kindUniform || p.su[s.Var]
	case *ir.Assign:
		r, ok := s.Place.(*ir.Ref)
		return ok && p.su[r.Var] && p.suExpr(f, s.Value)
	case *ir.If:
		return p.suExpr(f, s.Cond)
	case *ir.For:
		if s.Init != nil && !p.isSUStmt(f, s.Init) {
			return false
		}
		if s.Cond != nil && !p.suExpr(f, s.Cond) {
			return false
		}
		return s.Post == nil || p.isSUStmt(f, s.Post)
	case *ir.Break, *ir.Continue, *ir.Return, *ir.Block:
		return true
	}
	return false
}

// stripCheck walks a kernel's statements as the strip form would run them,
// dropping from the strip-uniform candidates those declared or assigned in
// a run of threads or from values that are not, and finding the lane-pure
// locals.
type stripCheck struct {
	p        *stripPlan
	f        *fn
	assigned map[*ir.Var]bool
	refused  bool
}

// list checks statements at a strip-level position (su) or inside a run of
// threads.
func (c *stripCheck) list(stmts []ir.Stmt, su bool) {
	for _, s := range stmts {
		c.stmt(s, su)
	}
}

func (c *stripCheck) stmt(s ir.Stmt, su bool) {
	p, f := c.p, c.f
	if su && !p.isSUStmt(f, s) {
		if d, ok := s.(*ir.Decl); ok && c.lanePureDecl(d) {
			p.lanePure[d.Var] = d
			p.order = append(p.order, d)
			delete(p.su, d.Var)
			return
		}
		// The start of a run of threads: a thread must not leave the strip's
		// control flow from inside it.
		if escapes(s, 0) {
			c.refused = true
		}
		c.stmt(s, false)
		return
	}
	switch s := s.(type) {
	case *ir.Decl:
		if !su || s.Init != nil && !p.suExpr(f, s.Init) {
			delete(p.su, s.Var)
		}
	case *ir.Assign:
		if r, ok := s.Place.(*ir.Ref); ok && (!su || !p.suExpr(f, s.Value)) {
			delete(p.su, r.Var)
		}
	case *ir.If:
		c.list(s.Then, su)
		c.list(s.Else, su)
	case *ir.For:
		if s.Init != nil {
			c.stmt(s.Init, su)
		}
		if s.Post != nil {
			c.stmt(s.Post, su)
		}
		c.list(s.Body, su)
	case *ir.Block:
		c.list(s.Body, su)
	}
}

// lanePureDecl reports whether d, not strip-uniform, can be recomputed in
// each run of threads that reads it: never assigned, scalar, from ThreadX,
// unassigned parameters, uniform locals, never-assigned strip-uniform locals
// and other lane-pure locals, without reading memory or calling.
func (c *stripCheck) lanePureDecl(d *ir.Decl) bool {
	p, f := c.p, c.f
	if !valueType(d.Var.Type) || d.Var.Class != ir.Local || d.Init == nil || c.assigned[d.Var] {
		return false
	}
	ok := true
	ir.WalkExpr(d.Init, func(x ir.Expr) {
		switch x := x.(type) {
		case *ir.Const, *ir.Convert, *ir.Unary, *ir.Binary, *ir.MakeVec, *ir.Lane:
		case *ir.Ref:
			v := x.Var
			switch {
			case v.Class == ir.Param:
				ok = ok && !f.assigned(v)
			case v.Class != ir.Local:
				ok = false
			case f.an.kinds[v] == kindUniform, p.lanePure[v] != nil:
			case p.su[v] && !c.assigned[v]:
			default:
				ok = false
			}
		case *ir.CallBuiltin:
			b := x.Builtin
			if !(b == ir.ThreadX || b == ir.ThreadY || b == ir.ThreadZ || b >= ir.GroupX && b <= ir.GroupZ ||
				b >= ir.GroupSizeX && b <= ir.GroupSizeZ || b >= ir.GridX && b <= ir.GridZ) {
				ok = false
			}
		default:
			ok = false
		}
	})
	return ok
}

// escapes reports whether s holds a return, or a break or continue that
// leaves s (depth counts the loops of s around it).
func escapes(s ir.Stmt, depth int) bool {
	switch s := s.(type) {
	case *ir.Return:
		return true
	case *ir.Break, *ir.Continue:
		return depth == 0
	case *ir.If:
		for _, t := range s.Then {
			if escapes(t, depth) {
				return true
			}
		}
		for _, t := range s.Else {
			if escapes(t, depth) {
				return true
			}
		}
	case *ir.For:
		for _, t := range s.Body {
			if escapes(t, depth+1) {
				return true
			}
		}
	case *ir.Block:
		for _, t := range s.Body {
			if escapes(t, depth) {
				return true
			}
		}
	}
	return false
}

// runsClosed reports whether every lane local (declared in a run of threads)
// is read only in its run.
func (p *stripPlan) runsClosed(f *fn) bool {
	home := map[*ir.Var]int{} // the run a lane local lives in
	run := 0
	ok := true
	var visitList func(stmts []ir.Stmt)
	visitRun := func(s ir.Stmt) {
		ir.WalkStmt(s, func(s ir.Stmt) {
			if d, ok := s.(*ir.Decl); ok {
				home[d.Var] = run
			}
		}, nil)
	}
	var refsSU func(s ir.Stmt)
	check := func(x ir.Expr, at int) {
		ir.WalkExpr(x, func(x ir.Expr) {
			if r, isRef := x.(*ir.Ref); isRef {
				if h, lane := home[r.Var]; lane && h != at {
					ok = false
				}
			}
		})
	}
	refsSU = func(s ir.Stmt) {
		switch s := s.(type) {
		case *ir.Decl:
			check(s.Init, -1)
		case *ir.Assign:
			check(s.Value, -1)
		case *ir.If:
			check(s.Cond, -1)
		case *ir.For:
			check(s.Cond, -1)
		}
	}
	inRun := false
	visitList = func(stmts []ir.Stmt) {
		for _, s := range stmts {
			if d, isDecl := s.(*ir.Decl); isDecl && p.lanePure[d.Var] != nil {
				continue
			}
			if !p.isSUStmt(f, s) {
				if !inRun {
					run++
					inRun = true
				}
				visitRun(s)
				ir.WalkStmt(s, nil, func(x ir.Expr) { check(x, run) })
				continue
			}
			inRun = false
			refsSU(s)
			switch s := s.(type) {
			case *ir.If:
				visitList(s.Then)
				inRun = false
				visitList(s.Else)
			case *ir.For:
				if s.Init != nil {
					refsSU(s.Init)
				}
				if s.Post != nil {
					refsSU(s.Post)
				}
				visitList(s.Body)
			case *ir.Block:
				visitList(s.Body)
			}
			inRun = false
		}
	}
	visitList(p.stmts)
	return ok
}

// Names of the strip form.
const (
	stripLabel = "agStrips"
	nameSub    = "agSub" // the strip's ThreadX()/q
)

// stripPath emits the strip form of plan p: for a 1-D group (and a divisor
// of at least 1), the strips and a return; other groups take the loop over
// every thread that follows.
func (f *fn) stripPath(p *stripPlan) (string, error) {
	saved := f.strip
	f.strip = p
	f.inPhase = true
	f.label = stripLabel
	f.labelUsed, f.tidUsed, f.brkUsed, f.contUsed = false, false, false, false
	f.depth = 0
	body, err := f.sub(func() error { return f.stripList(p.stmts) })
	f.strip, f.inPhase = saved, false
	if err != nil {
		return "", err
	}
	if f.tidUsed {
		return "", nil // kernel.ThreadIndex: the loop over every thread declares it
	}
	width := "agSx"
	cond := "agSy == 1 && agSz == 1"
	if p.divisor != nil {
		width = f.names[p.divisor]
		cond += " && " + width + " >= 1"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "if %s {\n", cond)
	fmt.Fprintf(&b, "agTy, agTz := uint32(0), uint32(0)\n_, _ = agTy, agTz\n")
	fmt.Fprintf(&b, "%s := uint32(0)\n", nameSub)
	if f.labelUsed {
		fmt.Fprintf(&b, "%s:\n", stripLabel)
	}
	fmt.Fprintf(&b, "for agS0 := uint32(0); agS0 < agSx; agS0, %s = agS0+min(%s, agSx-agS0), %s+1 {\n", nameSub, width, nameSub)
	fmt.Fprintf(&b, "agS1 := agS0 + min(%s, agSx-agS0)\n_ = agS1\n", width)
	fmt.Fprintf(&b, "%s}\nreturn true\n}\n", body)
	return b.String(), nil
}

// stripList emits statements at a strip-level position: strip-uniform ones
// once, runs of the others in loops over the strip's threads.
func (f *fn) stripList(stmts []ir.Stmt) error {
	p := f.strip
	var run []ir.Stmt
	flush := func() error {
		if len(run) == 0 {
			return nil
		}
		err := f.laneRun(run)
		run = nil
		return err
	}
	for _, s := range stmts {
		if d, ok := s.(*ir.Decl); ok && p.lanePure[d.Var] != nil {
			continue // recomputed in each run that reads it
		}
		if !p.isSUStmt(f, s) {
			run = append(run, s)
			continue
		}
		if err := flush(); err != nil {
			return err
		}
		if err := f.stripStmt(s); err != nil {
			return err
		}
	}
	return flush()
}

// stripStmt emits a strip-uniform statement.
func (f *fn) stripStmt(s ir.Stmt) error {
	switch s := s.(type) {
	case *ir.If:
		cond, err := f.expr(s.Cond)
		if err != nil {
			return err
		}
		f.printf("if %s {\n", cond)
		if err := f.stripList(s.Then); err != nil {
			return err
		}
		if len(s.Else) > 0 {
			f.printf("} else {\n")
			if err := f.stripList(s.Else); err != nil {
				return err
			}
		}
		f.printf("}\n")
		return nil
	case *ir.For:
		return f.forLoop(s, f.stripList)
	case *ir.Block:
		f.printf("{\n")
		if err := f.stripList(s.Body); err != nil {
			return err
		}
		f.printf("}\n")
		return nil
	}
	return f.stmt(s)
}

// laneRun emits statements in a loop over the strip's threads, after the
// lane-pure locals they read; in windows (windows.go) where it can.
func (f *fn) laneRun(stmts []ir.Stmt) error {
	plain := func() error {
		f.printf("for agTx := agS0; agTx < agS1; agTx++ {\n")
		if err := f.lanePureDecls(stmts); err != nil {
			return err
		}
		f.depth++
		err := f.stmts(stmts)
		f.depth--
		if err != nil {
			return err
		}
		f.printf("}\n")
		return nil
	}
	if w := f.planWindow(stmts); w != nil {
		return f.windowRun(w, plain)
	}
	return plain()
}

// lanePureDecls declares, in a loop over the strip's threads, the lane-pure
// locals that stmts read.
func (f *fn) lanePureDecls(stmts []ir.Stmt) error {
	p := f.strip
	need := map[*ir.Var]bool{}
	var add func(v *ir.Var)
	add = func(v *ir.Var) {
		d := p.lanePure[v]
		if d == nil || need[v] {
			return
		}
		need[v] = true
		ir.WalkExpr(d.Init, func(x ir.Expr) {
			if r, ok := x.(*ir.Ref); ok {
				add(r.Var)
			}
		})
	}
	ir.WalkStmts(stmts, nil, func(x ir.Expr) {
		if r, ok := x.(*ir.Ref); ok {
			add(r.Var)
		}
	})
	for _, d := range p.order {
		if !need[d.Var] {
			continue
		}
		init, err := f.exprUntyped(d.Init)
		if err != nil {
			return err
		}
		t, err := f.e.goType(d.Var.Type, d.Pos)
		if err != nil {
			return err
		}
		name := f.names[d.Var]
		f.printf("var %s %s = %s\n_ = %s\n", name, t, init, name)
	}
	return nil
}
