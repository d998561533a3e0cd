package gosrc

import "github.com/anygpu/gpu/kernel/internal/ir"

// A phase that is one If, whose condition bounds the thread's linear index
// (`if tid < h { ... }`, `if tid >= fold && tid-fold < 64 { ... }`, `if tid
// == 0 { ... }`, where tid is kernel.ThreadIndex() and the bounds are the
// same in every thread), runs only the threads inside the bounds: the loops
// over the group's threads start and stop there, instead of every thread
// testing the condition. The condition is still tested in full: the range
// only leaves out threads for which it is false.

// threadRange is the bounds of the threads a phase runs: Go expressions of
// type int64, "" where unbounded.
type threadRange struct{ lo, hi string }

// phaseRange returns the thread range of phase p, or nil when it runs every
// thread.
func (f *fn) phaseRange(p *phase) (*threadRange, error) {
	// Uniform declarations run before the threads do (uniform.go).
	var stmts []ir.Stmt
	for _, s := range p.stmts {
		if d, ok := s.(*ir.Decl); ok && f.an.kinds[d.Var] == kindUniform {
			continue
		}
		stmts = append(stmts, s)
	}
	if len(stmts) != 1 {
		return nil, nil
	}
	s, ok := stmts[0].(*ir.If)
	if !ok || len(s.Else) != 0 {
		return nil, nil
	}
	var conj []ir.Expr
	var flatten func(x ir.Expr)
	flatten = func(x ir.Expr) {
		if b, ok := x.(*ir.Binary); ok && b.Op == ir.LAnd {
			flatten(b.X)
			flatten(b.Y)
			return
		}
		conj = append(conj, x)
	}
	flatten(s.Cond)
	r := &threadRange{}
	lower := map[string]bool{} // the lower bounds, as Go text
	bound := func(x ir.Expr) (string, bool, error) {
		if x.ExprType() != ir.U32 || !f.phaseUniform(x) {
			return "", false, nil
		}
		saved := f.inPhase
		f.inPhase = false
		v, err := f.expr(x)
		f.inPhase = saved
		return "int64(" + v + ")", err == nil, err
	}
	setLo := func(v string) {
		if r.lo == "" {
			r.lo = v
		} else {
			r.lo = "max(" + r.lo + ", " + v + ")"
		}
	}
	setHi := func(v string) {
		if r.hi == "" {
			r.hi = v
		} else {
			r.hi = "min(" + r.hi + ", " + v + ")"
		}
	}
	// Lower bounds first: tid-L < K bounds tid only where tid >= L holds.
	for pass := 0; pass < 2; pass++ {
		for _, c := range conj {
			b, ok := c.(*ir.Binary)
			if !ok || !b.Op.IsCompare() {
				continue
			}
			if f.isThreadIndex(b.X) {
				v, ok, err := bound(b.Y)
				if err != nil {
					return nil, err
				}
				if !ok {
					continue
				}
				switch {
				case pass == 0 && b.Op == ir.Ge:
					setLo(v)
					lower[v] = true
				case pass == 0 && b.Op == ir.Gt:
					setLo(v + "+1")
				case pass == 1 && b.Op == ir.Lt:
					setHi(v)
				case pass == 1 && b.Op == ir.Le:
					setHi(v + "+1")
				case pass == 1 && b.Op == ir.Eq:
					setLo(v)
					setHi(v + "+1")
				}
				continue
			}
			// tid - L < K, with tid >= L among the conjuncts: tid < L+K.
			if d, ok := b.X.(*ir.Binary); pass == 1 && ok && d.Op == ir.Sub && f.isThreadIndex(d.X) && b.Op == ir.Lt {
				l, okL, err := bound(d.Y)
				if err != nil {
					return nil, err
				}
				k, okK, err := bound(b.Y)
				if err != nil {
					return nil, err
				}
				if okL && okK && lower[l] {
					setHi(l + "+" + k)
				}
			}
		}
	}
	if r.lo == "" && r.hi == "" {
		return nil, nil
	}
	return r, nil
}

// isThreadIndex reports whether x is kernel.ThreadIndex() or a local
// recomputed from it in each phase.
func (f *fn) isThreadIndex(x ir.Expr) bool {
	switch x := x.(type) {
	case *ir.CallBuiltin:
		return x.Builtin == ir.ThreadIndex
	case *ir.Ref:
		d := f.remat[x.Var]
		if d == nil || f.an.kinds[x.Var] != kindRemat {
			return false
		}
		b, ok := d.Init.(*ir.CallBuiltin)
		return ok && b.Builtin == ir.ThreadIndex
	}
	return false
}

// phaseUniform reports whether x has one value in every thread during a
// phase, computable before the phase's threads run: uniform (uniform.go), or
// reading group-level locals (the variables of loops around barriers).
func (f *fn) phaseUniform(x ir.Expr) bool {
	ok := true
	ir.WalkExpr(x, func(x ir.Expr) {
		switch x := x.(type) {
		case *ir.Const, *ir.Convert, *ir.Unary:
		case *ir.Ref:
			if _, scalar := x.Var.Type.(ir.Scalar); !scalar {
				ok = false
				return
			}
			u := f.an.uses[x.Var]
			switch {
			case x.Var.Class == ir.Param:
				ok = ok && !f.assigned(x.Var)
			case x.Var.Class != ir.Local || u == nil:
				ok = false
			case f.an.kinds[x.Var] == kindUniform:
			case f.an.kinds[x.Var] == kindPlain && u.declPhase < 0 && !u.phaseAssign:
			default:
				ok = false
			}
		case *ir.Binary:
			if x.Op == ir.Shl || x.Op == ir.Shr {
				ok = false
			}
		case *ir.CallBuiltin:
			b := x.Builtin
			switch {
			case b >= ir.GroupX && b <= ir.GroupZ, b >= ir.GroupSizeX && b <= ir.GroupSizeZ, b >= ir.GridX && b <= ir.GridZ:
			case b == ir.Min || b == ir.Max:
			default:
				ok = false
			}
		default:
			ok = false
		}
	})
	return ok
}

// rangeLoops opens the loops over the threads of range r (closed by three
// braces, as the loops over every thread).
func (f *fn) rangeLoops(r *threadRange) {
	lo, hi := r.lo, r.hi
	if lo == "" {
		lo = "int64(0)"
	}
	if hi == "" {
		hi = "int64(agSx)*int64(agSy)*int64(agSz)"
	}
	f.printf("agLo, agHi := %s, %s\n", lo, hi)
	f.printf("for agTz := uint32(0); agTz < agSz; agTz++ {\n")
	f.printf("for agTy := uint32(0); agTy < agSy; agTy++ {\n")
	f.printf("agRow := int64(agSx) * (int64(agTy) + int64(agSy)*int64(agTz))\n")
	f.printf("agX1 := min(agHi-agRow, int64(agSx))\n")
	if f.labelUsed {
		f.printf("%s:\n", f.label)
	}
	f.printf("for agTx := uint32(max(min(agLo-agRow, agX1), 0)); int64(agTx) < agX1; agTx++ {\n")
}
