package opt

import "github.com/anygpu/gpu/kernel/internal/ir"

// Portable rewrites m in place, for every dialect but CUDA, into the
// language without the parts those dialects have no direct form for:
// subgroup operations become their subgroup-of-one results (subgroup.go),
// float16 buffers become buffers of 4-byte words (float16.go) and MMAs and
// PackHalves become the language without them (mma.go). It is
// idempotent: a rewritten module has nothing left to rewrite. CUDA's
// dialect is emitted from the module before it.
func Portable(m *ir.Module) error {
	if err := KeepSubgroups(m); err != nil {
		return err
	}
	subgroupsOfOne(m)
	return nil
}

// KeepSubgroups rewrites m in place into the language that the dialects
// with real subgroups take (the subgroup variants of WGSL, SPIR-V and GLSL,
// backend.Source.Subgroups): float16 buffers become buffers of 4-byte words
// (float16.go), MMAs become exchanges through a shared array between
// Barriers and PackHalves calls of helpers (mma.go), and the subgroup
// operations stay. Portable after it finishes the rewrite for the dialects
// without subgroups. It is idempotent.
func KeepSubgroups(m *ir.Module) error {
	if m == nil {
		return nil
	}
	pool := &helperPool{}
	if err := halfWords(m, pool); err != nil {
		return err
	}
	if err := mmaPortable(m, pool); err != nil {
		return err
	}
	pool.prepend(m)
	return nil
}

// subgroupsOfOne rewrites the subgroup operations of m's functions into
// their subgroup-of-one results, and folds the constants that leaves.
func subgroupsOfOne(m *ir.Module) {
	if m == nil {
		return
	}
	for _, f := range m.Funcs {
		if f != nil && f.Features&ir.Subgroup != 0 {
			subgroupFallback(f)
			names := varNames(f)
			for _, g := range m.Funcs {
				names[g.Name] = true
			}
			optimize(f, names, unrollBudget) // SubgroupSize() is now a constant: fold it
		}
	}
}

// mapExpr rewrites e bottom up: the children of each node first, then the
// node through fn.
func mapExpr(e ir.Expr, fn func(ir.Expr) ir.Expr) ir.Expr {
	switch x := e.(type) {
	case nil:
		return nil
	case *ir.Index:
		if x == nil {
			return e
		}
		x.X = mapExpr(x.X, fn)
		x.Index = mapExpr(x.Index, fn)
	case *ir.Lane:
		x.X = mapExpr(x.X, fn)
	case *ir.MakeVec:
		for i := range x.Elems {
			x.Elems[i] = mapExpr(x.Elems[i], fn)
		}
	case *ir.Unary:
		x.X = mapExpr(x.X, fn)
	case *ir.Binary:
		x.X = mapExpr(x.X, fn)
		x.Y = mapExpr(x.Y, fn)
	case *ir.Convert:
		x.X = mapExpr(x.X, fn)
	case *ir.Call:
		for i := range x.Args {
			x.Args[i] = mapExpr(x.Args[i], fn)
		}
	case *ir.CallBuiltin:
		for i := range x.Args {
			x.Args[i] = mapExpr(x.Args[i], fn)
		}
	case *ir.Atomic:
		if x.Place != nil {
			x.Place.X = mapExpr(x.Place.X, fn)
			x.Place.Index = mapExpr(x.Place.Index, fn)
		}
		for i := range x.Args {
			x.Args[i] = mapExpr(x.Args[i], fn)
		}
	}
	return fn(e)
}

// mapStmts rewrites every expression of list through mapExpr(fn), then each
// statement through stmt (nil keeps it), which returns its replacement.
func mapStmts(list []ir.Stmt, fn func(ir.Expr) ir.Expr, stmt func(ir.Stmt) []ir.Stmt) []ir.Stmt {
	out := make([]ir.Stmt, 0, len(list))
	for _, s := range list {
		switch s := s.(type) {
		case *ir.Decl:
			if s.Init != nil {
				s.Init = mapExpr(s.Init, fn)
			}
		case *ir.Assign:
			s.Place = mapExpr(s.Place, fn)
			s.Value = mapExpr(s.Value, fn)
		case *ir.ExprStmt:
			s.X = mapExpr(s.X, fn)
		case *ir.If:
			s.Cond = mapExpr(s.Cond, fn)
			s.Then = mapStmts(s.Then, fn, stmt)
			s.Else = mapStmts(s.Else, fn, stmt)
		case *ir.For:
			if s.Init != nil {
				s.Init = one(mapStmts([]ir.Stmt{s.Init}, fn, nil))
			}
			if s.Cond != nil {
				s.Cond = mapExpr(s.Cond, fn)
			}
			if s.Post != nil {
				s.Post = one(mapStmts([]ir.Stmt{s.Post}, fn, nil))
			}
			s.Body = mapStmts(s.Body, fn, stmt)
		case *ir.Return:
			if s.Value != nil {
				s.Value = mapExpr(s.Value, fn)
			}
		case *ir.Store4:
			s.Index = mapExpr(s.Index, fn)
			s.Value = mapExpr(s.Value, fn)
		case *ir.MatMulAdd:
			if f := s.From; f != nil {
				f.AOff, f.LDA, f.BOff, f.LDB = mapExpr(f.AOff, fn), mapExpr(f.LDA, fn), mapExpr(f.BOff, fn), mapExpr(f.LDB, fn)
			}
		case *ir.MMA:
			s.C, s.A, s.B = mapExpr(s.C, fn), mapExpr(s.A, fn), mapExpr(s.B, fn)
		case *ir.LoadMatrices:
			s.Frag, s.At = mapExpr(s.Frag, fn), mapExpr(s.At, fn)
		case *ir.CopyAsync:
			s.DstIndex, s.SrcIndex = mapExpr(s.DstIndex, fn), mapExpr(s.SrcIndex, fn)
		case *ir.Block:
			s.Body = mapStmts(s.Body, fn, stmt)
		}
		if stmt != nil {
			if r := stmt(s); r != nil {
				out = append(out, r...)
				continue
			}
		}
		out = append(out, s)
	}
	return out
}

// one is the only statement of list.
func one(list []ir.Stmt) ir.Stmt { return list[0] }
