package interp

import "github.com/anygpu/gpu/kernel/internal/ir"

// assignedVars returns the variables of m that some Assign writes after
// their declaration. A local that is never assigned and is initialised from
// a constant, an id or another such variable can share that slot instead of
// copying it.
func assignedVars(m *ir.Module) map[*ir.Var]bool {
	out := map[*ir.Var]bool{}
	var walk func(list []ir.Stmt)
	var one func(s ir.Stmt)
	one = func(s ir.Stmt) {
		switch s := s.(type) {
		case *ir.Assign:
			if v := rootVar(s.Place); v != nil {
				out[v] = true
			}
		case *ir.If:
			walk(s.Then)
			walk(s.Else)
		case *ir.For:
			one(s.Init)
			one(s.Post)
			walk(s.Body)
		case *ir.Block:
			walk(s.Body)
		}
	}
	walk = func(list []ir.Stmt) {
		for _, s := range list {
			one(s)
		}
	}
	for _, f := range m.Funcs {
		walk(f.Body)
	}
	return out
}

// rootVar is the variable an assignment's place writes into.
func rootVar(e ir.Expr) *ir.Var {
	switch e := e.(type) {
	case *ir.Ref:
		return e.Var
	case *ir.Lane:
		return rootVar(e.X)
	case *ir.Index:
		return rootVar(e.X)
	}
	return nil
}

// aliasable reports whether the local v, initialised with init (compiled to
// a slot), may share init's slot: neither is ever assigned again.
func (c *compiler) aliasable(v *ir.Var, init ir.Expr) bool {
	if c.assigned[v] {
		return false
	}
	switch e := init.(type) {
	case *ir.Const:
		return true
	case *ir.CallBuiltin:
		return e.Builtin.IsID()
	case *ir.Ref:
		return !c.assigned[e.Var]
	}
	return false
}
