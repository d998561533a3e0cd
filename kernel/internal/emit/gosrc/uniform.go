package gosrc

import (
	"fmt"

	"github.com/anygpu/gpu/kernel/internal/ir"
)

// Values the same in every thread of a group are computed once per group,
// before the loops over the group's threads:
//
//   - The leading guards of a kernel, `if cond { return }` with a uniform
//     cond (group ids, sizes, unassigned scalar parameters, constants), end
//     the group function before any thread runs: every thread would return.
//   - A scalar local never assigned after its declaration, whose value is
//     pure and uniform (groupSize := kernel.GroupSizeX(), q := b / 4), is
//     declared once at group level: it costs nothing per thread and never
//     lives in a per-thread slice.
//   - A uint32 division or remainder by such a local is a multiplication by
//     its reciprocal, computed once per group (Lemire, Kaser and Kurz, "Faster
//     remainder by direct computation", 2019: for 32-bit x and d > 1,
//     x/d is the high word of x·⌈2⁶⁴/d⌉), instead of a hardware divide per
//     thread.

// uniformPlan is what the group computes before its threads run.
type uniformPlan struct {
	guards   []*ir.If           // the leading uniform guards, in order
	decls    []*ir.Decl         // the uniform locals' declarations, in order
	isDecl   map[*ir.Var]bool   // the uniform locals
	divisors map[*ir.Var]string // uniform uint32 locals that divide, and their reciprocals' names
}

// planUniform peels the leading uniform guards off body, returning the rest,
// and finds the uniform locals of the whole kernel.
func planUniform(f *ir.Func, body []ir.Stmt) (*uniformPlan, []ir.Stmt) {
	p := &uniformPlan{isDecl: map[*ir.Var]bool{}, divisors: map[*ir.Var]string{}}
	assigned := assignedVars(f.Body)
	uniform := func(x ir.Expr) bool { return uniformExpr(x, assigned, p.isDecl) }
	for len(body) > 0 {
		s, ok := body[0].(*ir.If)
		if !ok || len(s.Else) != 0 || len(s.Then) != 1 || !uniform(s.Cond) {
			break
		}
		if r, ok := s.Then[0].(*ir.Return); !ok || r.Value != nil {
			break
		}
		p.guards = append(p.guards, s)
		body = body[1:]
	}
	var visit func(list []ir.Stmt)
	visit = func(list []ir.Stmt) {
		for _, s := range list {
			switch s := s.(type) {
			case *ir.Decl:
				if _, scalar := s.Var.Type.(ir.Scalar); scalar && s.Var.Class == ir.Local && s.Init != nil &&
					!assigned[s.Var] && uniform(s.Init) {
					p.isDecl[s.Var] = true
					p.decls = append(p.decls, s)
				}
			case *ir.If:
				visit(s.Then)
				visit(s.Else)
			case *ir.For:
				visit(s.Body)
			case *ir.Block:
				visit(s.Body)
			}
		}
	}
	visit(body)
	ir.WalkStmts(body, nil, func(x ir.Expr) {
		b, ok := x.(*ir.Binary)
		if !ok || (b.Op != ir.Div && b.Op != ir.Rem) || b.X.ExprType() != ir.U32 {
			return
		}
		if r, ok := b.Y.(*ir.Ref); ok && p.isDecl[r.Var] {
			p.divisors[r.Var] = ""
		}
	})
	return p, body
}

// assignedVars returns the variables some Assign writes whole (atomics
// write elements of buffers and arrays only).
func assignedVars(body []ir.Stmt) map[*ir.Var]bool {
	out := map[*ir.Var]bool{}
	ir.WalkStmts(body, func(s ir.Stmt) {
		if a, ok := s.(*ir.Assign); ok {
			if r, ok := a.Place.(*ir.Ref); ok {
				out[r.Var] = true
			}
		}
	}, nil)
	return out
}

// markGuardUses records the parameters the leading guards read as used, so
// the group function loads them.
func (f *fn) markGuardUses() {
	for _, g := range f.uni.guards {
		ir.WalkExpr(g.Cond, func(x ir.Expr) {
			r, ok := x.(*ir.Ref)
			if !ok || r.Var.Class != ir.Param || f.an.uses[r.Var] != nil {
				return
			}
			f.an.uses[r.Var] = &varUse{declPhase: -1, phases: map[int]bool{}, read: true}
			f.an.kinds[r.Var] = kindPlain
		})
	}
}

// uniformExpr reports whether x has the same value in every thread of a
// group and can be computed anywhere without effect: constants, group ids,
// sizes and grid sizes, unassigned scalar parameters, the uniform locals
// found so far, and arithmetic on them (no shift: a negative signed count
// panics in Go; no call; no memory read).
func uniformExpr(x ir.Expr, assigned, uniformLocals map[*ir.Var]bool) bool {
	ok := true
	ir.WalkExpr(x, func(x ir.Expr) {
		switch x := x.(type) {
		case *ir.Const, *ir.Convert, *ir.Unary:
		case *ir.Ref:
			if _, scalar := x.Var.Type.(ir.Scalar); !scalar {
				ok = false
			}
			switch x.Var.Class {
			case ir.Param:
				ok = ok && !assigned[x.Var]
			case ir.Local:
				ok = ok && uniformLocals[x.Var]
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
			case b == ir.Min || b == ir.Max || b == ir.Abs || b == ir.Clamp || b == ir.Len:
			default:
				ok = false
			}
		default:
			ok = false
		}
	})
	return ok
}

// reciprocalName is the name of the group's reciprocal of uniform local name.
func reciprocalName(name string) string { return "agRcp_" + name }

// uniformHeader emits the leading guards (ret ends the group function) and
// the uniform locals (with the reciprocals of those that divide), at group
// level.
func (f *fn) uniformHeader(ret string) (string, error) {
	p := f.uni
	return f.sub(func() error {
		for _, g := range p.guards {
			cond, err := f.expr(g.Cond)
			if err != nil {
				return err
			}
			f.printf("if %s {\n%s\n}\n", cond, ret)
		}
		for _, d := range p.decls {
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
			if _, ok := p.divisors[d.Var]; ok {
				f.printf("%s := %s(%s)\n", reciprocalName(name), f.e.reciprocalHelper(), name)
			}
		}
		return nil
	})
}

// uniformDivision is x / y or x % y by a uniform local y through its
// reciprocal, when it is one.
func (f *fn) uniformDivision(x *ir.Binary) (string, bool, error) {
	if f.uni == nil || x.X.ExprType() != ir.U32 || (x.Op != ir.Div && x.Op != ir.Rem) {
		return "", false, nil
	}
	r, ok := x.Y.(*ir.Ref)
	if !ok {
		return "", false, nil
	}
	if _, ok := f.uni.divisors[r.Var]; !ok {
		return "", false, nil
	}
	a, err := f.expr(x.X)
	if err != nil {
		return "", false, err
	}
	name := f.names[r.Var]
	if x.Op == ir.Div {
		return fmt.Sprintf("%s(%s, %s)", f.e.fastDivHelper(), a, reciprocalName(name)), true, nil
	}
	return fmt.Sprintf("%s(%s, %s, %s)", f.e.fastRemHelper(), a, name, reciprocalName(name)), true, nil
}

// reciprocalHelper computes a uint32 divisor's reciprocal for fastDivHelper:
// 0 for the divisors 0 and 1, whose quotient is x.
func (e *emitter) reciprocalHelper() string {
	return e.runtimeFunc("rcp", `// NAME returns ⌈2⁶⁴/d⌉ for d > 1, and 0 for d 0 or 1.
func NAME(d uint32) uint64 {
	if d <= 1 {
		return 0
	}
	return ^uint64(0)/uint64(d) + 1
}
`)
}

// fastDivHelper is x/d from d's reciprocal m, with x/0 == x.
func (e *emitter) fastDivHelper() string {
	e.imports[importBits] = true
	return e.runtimeFunc("fdiv", `// NAME returns x/d given m, d's reciprocal; x when d is 0 or 1.
func NAME(x uint32, m uint64) uint32 {
	if m == 0 {
		return x
	}
	hi, _ := bits.Mul64(m, uint64(x))
	return uint32(hi)
}
`)
}

// fastRemHelper is x%d from d's reciprocal m, with x%0 == 0.
func (e *emitter) fastRemHelper() string {
	e.imports[importBits] = true
	return e.runtimeFunc("frem", `// NAME returns x%d given m, d's reciprocal; 0 when d is 0 or 1.
func NAME(x, d uint32, m uint64) uint32 {
	if m == 0 {
		return 0
	}
	hi, _ := bits.Mul64(m, uint64(x))
	return x - uint32(hi)*d
}
`)
}
