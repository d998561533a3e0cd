// Package opt rewrites a translated module (kernel/internal/ir) into one
// every dialect compiles to faster code, keeping its Go semantics exactly:
// loops with a constant trip count are unrolled (unroll.go), so that small
// local arrays indexed by the loop variables (a register tile such as
// acc[i][j]) get constant indices and stay in registers on every GPU
// compiler, whatever the loop form a dialect's writer uses; and constant
// expressions are folded (fold.go), so the emitters write acc[2][3] rather
// than acc[(0 + 2)].
//
// It runs between the front end and the emitters, on the module every
// dialect, the Go for the CPU included, is emitted from.
package opt

import "github.com/anygpu/gpu/kernel/internal/ir"

// Module unrolls and folds every function of m in place (see the package
// doc). It cannot fail: a loop or expression it does not handle is left as
// it is.
func Module(m *ir.Module) {
	if m == nil {
		return
	}
	for _, f := range m.Funcs {
		if f == nil {
			continue
		}
		names := varNames(f)
		for _, g := range m.Funcs {
			if g != nil {
				names[g.Name] = true // a new local never hides a function
			}
		}
		optimize(f, names, unrollBudget)
	}
}

// optimize unrolls f's loops whose copies hold at most budget IR nodes and
// folds its constant expressions, in place; new variables take names not in
// names.
func optimize(f *ir.Func, names map[string]bool, budget int) {
	u := &unroller{names: names, next: map[string]int{}, budget: budget}
	f.Body = u.stmts(f.Body)
}

// varNames is the set of every variable name f has: parameters, shared
// arrays and locals.
func varNames(f *ir.Func) map[string]bool {
	names := map[string]bool{}
	for _, v := range f.Params {
		names[v.Name] = true
	}
	for _, v := range f.Shared {
		names[v.Name] = true
	}
	ir.WalkStmts(f.Body, func(s ir.Stmt) {
		if d, ok := s.(*ir.Decl); ok && d != nil && d.Var != nil {
			names[d.Var.Name] = true
		}
	}, func(e ir.Expr) {
		if r, ok := e.(*ir.Ref); ok && r != nil && r.Var != nil {
			names[r.Var.Name] = true
		}
	})
	return names
}
