package gosrc

import (
	"fmt"

	"github.com/anygpu/gpu/kernel/internal/ir"
)

// Forwarded loads: in a windowed run (windows.go) of the element-wise form
//
//	v := kernel.Load4(x, i)
//	w := kernel.Load4(y, i)
//	kernel.Store4(y, i, kernel.Float4{X: f(v.X, w.X), Y: f(v.Y, w.Y), ...})
//
// the locals v and w are not copied out of their windows: each lane of the
// store reads its lane of the thread's views in place and is stored at once,
// as a hand-written Go loop does (y[k] = a*x[k] + y[k], lane after lane). Go
// then keeps one lane's values in flight instead of eight, which runs the
// loop faster. The meaning is the kernel's where the run writes memory only
// by that one Store4, lane k of the stored value reads lane k of the loaded
// locals alone (no other lane, no whole Float4), and every window starts at
// the same float4 index: a window then is the stored one, element for
// element (the same buffer), or lies in another buffer, so storing lane k
// changes no lane that a later lane reads.

// forwardPlan is the forwarded form of a windowed run.
type forwardPlan struct {
	vars  map[*ir.Var]*window // the loaded locals read in place
	store *ir.Store4          // the store that runs lane by lane
}

// planForward returns the forwarded form of windowed run w, or nil.
func (w *windowPlan) planForward() *forwardPlan {
	if len(w.wins) == 0 {
		return nil
	}
	for _, win := range w.wins {
		if win.first != w.wins[0].first {
			return nil
		}
	}
	// The run's one memory write, outside any loop of the run.
	var store *ir.Store4
	ok := true
	var visit func(stmts []ir.Stmt, inLoop bool)
	visit = func(stmts []ir.Stmt, inLoop bool) {
		for _, s := range stmts {
			switch s := s.(type) {
			case *ir.Store4:
				if store != nil || inLoop || w.views[s] == nil {
					ok = false
				}
				store = s
			case *ir.Assign:
				if rootLocal(s.Place) == nil {
					ok = false // an element of a buffer or an array
				}
			case *ir.If:
				visit(s.Then, inLoop)
				visit(s.Else, inLoop)
			case *ir.For:
				if s.Init != nil {
					visit([]ir.Stmt{s.Init}, true)
				}
				if s.Post != nil {
					visit([]ir.Stmt{s.Post}, true)
				}
				visit(s.Body, true)
			case *ir.Block:
				visit(s.Body, inLoop)
			case *ir.Decl, *ir.ExprStmt, *ir.Break, *ir.Continue:
			default:
				ok = false
			}
		}
	}
	visit(w.body, false)
	ir.WalkStmts(w.body, nil, func(x ir.Expr) {
		switch x.(type) {
		case *ir.Call, *ir.Atomic:
			ok = false // may write memory
		}
	})
	if !ok || store == nil {
		return nil
	}
	value, isVec := store.Value.(*ir.MakeVec)
	if !isVec || len(value.Elems) != 4 {
		return nil
	}
	// The loaded locals, never assigned, read only lane k in lane k.
	assigned := map[*ir.Var]bool{}
	loaded := map[*ir.Var]*window{}
	ir.WalkStmts(w.body, func(s ir.Stmt) {
		switch s := s.(type) {
		case *ir.Assign:
			assigned[rootLocal(s.Place)] = true
		case *ir.Decl:
			if b, isLoad := s.Init.(*ir.CallBuiltin); isLoad && w.views[b] != nil {
				loaded[s.Var] = w.views[b]
			}
		}
	}, nil)
	refs := map[*ir.Var]int{}
	ir.WalkStmts(w.body, nil, func(x ir.Expr) {
		if r, isRef := x.(*ir.Ref); isRef {
			refs[r.Var]++
		}
	})
	inLane := map[*ir.Var]int{}
	for k, e := range value.Elems {
		ir.WalkExpr(e, func(x ir.Expr) {
			if l, isLane := x.(*ir.Lane); isLane && l.N == k {
				if r, isRef := l.X.(*ir.Ref); isRef {
					inLane[r.Var]++
				}
			}
		})
	}
	p := &forwardPlan{vars: map[*ir.Var]*window{}, store: store}
	for v, win := range loaded {
		if !assigned[v] && refs[v] == inLane[v] {
			p.vars[v] = win
		}
	}
	if len(p.vars) == 0 {
		return nil
	}
	return p
}

// rootLocal returns the local that an assignment to place changes (through
// lanes), or nil for an element of a buffer or an array.
func rootLocal(place ir.Expr) *ir.Var {
	for {
		switch p := place.(type) {
		case *ir.Lane:
			place = p.X
		case *ir.Ref:
			return p.Var
		default:
			return nil
		}
	}
}

// forwardedLane returns lane n of local v read in place, if v is forwarded.
func (f *fn) forwardedLane(v ir.Expr, n int) (string, bool) {
	if f.win == nil || f.win.fwd == nil {
		return "", false
	}
	r, ok := v.(*ir.Ref)
	if !ok {
		return "", false
	}
	win := f.win.fwd.vars[r.Var]
	if win == nil {
		return "", false
	}
	return fmt.Sprintf("%s[%d]", win.view, n), true
}

// has reports whether local v is read in place, not declared (p may be nil).
func (p *forwardPlan) has(v *ir.Var) bool { return p != nil && p.vars[v] != nil }

// storeLanes emits the forwarded store s to the thread's view, lane by lane.
func (f *fn) storeLanes(s *ir.Store4, view string) error {
	for k, e := range s.Value.(*ir.MakeVec).Elems {
		x, err := f.expr(e)
		if err != nil {
			return err
		}
		f.printf("%s[%d] = %s\n", view, k, x)
	}
	return nil
}
