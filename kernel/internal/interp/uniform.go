package interp

import "github.com/anygpu/gpu/kernel/internal/ir"

// varyingVars returns the kernel's locals and scalar parameters whose value
// may differ between the threads of a group; the others are uniform, held
// once per group in the uniform frame. A variable is varying when it is an
// array, is given a value that is not uniform, or is given one under
// divergent control: inside an If whose condition is not uniform, or inside
// a For whose condition is not uniform or that a Break or Continue under
// such an If leaves. A Return under divergence does not make later code
// divergent: the threads left behind are still in step. The result is a
// fixed point, since a condition's uniformity depends on its variables'.
func varyingVars(f *ir.Func) map[*ir.Var]bool {
	a := &uniformity{varying: map[*ir.Var]bool{}}
	for {
		a.changed = false
		a.list(f.Body, false)
		if !a.changed {
			return a.varying
		}
	}
}

// uniformity is the state of varyingVars' walk.
type uniformity struct {
	varying map[*ir.Var]bool
	changed bool
}

func (a *uniformity) mark(v *ir.Var) {
	if v != nil && !a.varying[v] {
		a.varying[v] = true
		a.changed = true
	}
}

func (a *uniformity) list(list []ir.Stmt, div bool) {
	for _, s := range list {
		a.stmt(s, div)
	}
}

func (a *uniformity) stmt(s ir.Stmt, div bool) {
	switch s := s.(type) {
	case *ir.Decl:
		_, isArr := s.Var.Type.(*ir.Array)
		if isArr || div || (s.Init != nil && !a.expr(s.Init)) {
			a.mark(s.Var)
		}
	case *ir.Assign:
		switch p := s.Place.(type) {
		case *ir.Ref:
			if div || !a.expr(s.Value) {
				a.mark(p.Var)
			}
		case *ir.Lane:
			a.mark(rootVar(p))
		}
	case *ir.If:
		d := div || !a.expr(s.Cond)
		a.list(s.Then, d)
		a.list(s.Else, d)
	case *ir.For:
		if s.Init != nil {
			a.stmt(s.Init, div)
		}
		d := div || (s.Cond != nil && !a.expr(s.Cond)) || a.divergentExit(s.Body, false)
		if s.Post != nil {
			a.stmt(s.Post, d)
		}
		a.list(s.Body, d)
	case *ir.Block:
		a.list(s.Body, div)
	}
}

// divergentExit reports whether list, the body of a loop, holds a Break or
// Continue of that loop under an If whose condition is not uniform.
func (a *uniformity) divergentExit(list []ir.Stmt, div bool) bool {
	for _, s := range list {
		switch s := s.(type) {
		case *ir.Break, *ir.Continue:
			if div {
				return true
			}
		case *ir.If:
			d := div || !a.expr(s.Cond)
			if a.divergentExit(s.Then, d) || a.divergentExit(s.Else, d) {
				return true
			}
		case *ir.Block:
			if a.divergentExit(s.Body, div) {
				return true
			}
		}
	}
	return false
}

// expr reports whether e has the same value in every thread that evaluates
// it together: it reads only constants, uniform variables and group-level
// ids. Memory, helper calls and atomics count as varying.
func (a *uniformity) expr(e ir.Expr) bool {
	switch e := e.(type) {
	case *ir.Const:
		return true
	case *ir.Ref:
		switch e.Var.Type.(type) {
		case *ir.Array, *ir.Slice:
			return false
		}
		return e.Var.Class != ir.Shared && !a.varying[e.Var]
	case *ir.Unary:
		return a.expr(e.X)
	case *ir.Binary:
		return a.expr(e.X) && a.expr(e.Y)
	case *ir.Convert:
		return a.expr(e.X)
	case *ir.Lane:
		return a.expr(e.X)
	case *ir.MakeVec:
		for _, x := range e.Elems {
			if !a.expr(x) {
				return false
			}
		}
		return true
	case *ir.CallBuiltin:
		switch {
		case e.Builtin.IsID():
			return perThreadIDs&(1<<e.Builtin) == 0
		case e.Builtin == ir.Len:
			return true
		case e.Builtin == ir.Load4:
			return false
		}
		for _, x := range e.Args {
			if !a.expr(x) {
				return false
			}
		}
		return true
	}
	return false
}

// exits reports whether list may leave its enclosing construct early for
// some threads: a Return anywhere, or a Break or Continue of a loop around
// list (not of a loop inside it).
func exits(list []ir.Stmt) bool {
	for _, s := range list {
		switch s := s.(type) {
		case *ir.Break, *ir.Continue, *ir.Return:
			return true
		case *ir.If:
			if exits(s.Then) || exits(s.Else) {
				return true
			}
		case *ir.Block:
			if exits(s.Body) {
				return true
			}
		case *ir.For:
			if returns(s.Body) {
				return true
			}
		}
	}
	return false
}

// returns reports whether list holds a Return at any depth.
func returns(list []ir.Stmt) bool {
	for _, s := range list {
		switch s := s.(type) {
		case *ir.Return:
			return true
		case *ir.If:
			if returns(s.Then) || returns(s.Else) {
				return true
			}
		case *ir.Block:
			if returns(s.Body) {
				return true
			}
		case *ir.For:
			if returns(s.Body) {
				return true
			}
		}
	}
	return false
}
