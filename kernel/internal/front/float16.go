package front

import "github.com/anygpu/gpu/kernel/internal/ir"

// checkFloat16 keeps float16 inside buffers (see ir.Slice): an element of a
// []kernel.Float16 is read only through kernel.ToFloat32 and written only
// with kernel.ToFloat16 of a float32 or with another such element (which
// becomes a conversion through float32, exact); kernel.ToFloat32 of
// kernel.ToFloat16(x) rounds x to float16's precision. Any other float16 value
// (arithmetic, a comparison, a constant) is an error at its position.
func (l *loader) checkFloat16(fn *ir.Func) {
	allowed := map[ir.Expr]bool{}
	ir.WalkStmts(fn.Body, func(s ir.Stmt) {
		a, ok := s.(*ir.Assign)
		if !ok || a.Place.ExprType() != ir.F16 {
			return
		}
		if _, ok := a.Place.(*ir.Index); !ok {
			return
		}
		allowed[a.Place] = true
		if ix, ok := a.Value.(*ir.Index); ok && ix.Type == ir.F16 {
			a.Value = &ir.Convert{To: ir.F16, X: &ir.Convert{To: ir.F32, X: ix, Pos: ix.Pos}, Pos: ix.Pos}
		}
		if c, ok := a.Value.(*ir.Convert); ok && c.To == ir.F16 && c.X.ExprType() == ir.F32 {
			allowed[c] = true
		}
	}, func(e ir.Expr) {
		if c, ok := e.(*ir.Convert); ok && c.To == ir.F32 {
			if ix, ok := c.X.(*ir.Index); ok && ix.Type == ir.F16 {
				allowed[ix] = true
			}
			if r, ok := c.X.(*ir.Convert); ok && r.To == ir.F16 && r.X.ExprType() == ir.F32 {
				allowed[r] = true // ToFloat32(ToFloat16(x)): x rounded to float16's precision
			}
		}
	})
	reported := map[ir.Pos]bool{}
	ir.WalkStmts(fn.Body, nil, func(e ir.Expr) { // a load or store spells its index twice (opt.Portable)
		ix, ok := e.(*ir.Index)
		if !ok || ix.Type != ir.F16 {
			return
		}
		ir.WalkExpr(ix.Index, func(x ir.Expr) {
			if a, ok := x.(*ir.Atomic); ok && !reported[a.Pos] {
				reported[a.Pos] = true
				l.errs = append(l.errs, &Error{Pos: a.Pos, Msg: "an atomic in the index of a []kernel.Float16 is not allowed",
					Hint: "do the atomic in a statement before and index with its result"})
			}
		})
	})
	ir.WalkStmts(fn.Body, nil, func(e ir.Expr) {
		if e.ExprType() != ir.F16 && !isFloat16Compare(e) || allowed[e] || reported[e.ExprPos()] {
			return
		}
		reported[e.ExprPos()] = true
		msg, hint := "a float16 value here is not allowed", float16Hint
		switch x := e.(type) {
		case *ir.Const:
			msg, hint = "a constant of type kernel.Float16 is not allowed: it would be the half's bits", "write kernel.ToFloat16(1.5)"
		case *ir.Binary:
			msg = "float16 arithmetic or comparison (" + x.Op.String() + ") is not allowed"
		case *ir.Unary:
			msg = "float16 arithmetic (" + x.Op.String() + ") is not allowed"
		}
		l.errs = append(l.errs, &Error{Pos: e.ExprPos(), Msg: msg, Hint: hint})
	})
}

// isFloat16Compare reports whether e compares two float16 values.
func isFloat16Compare(e ir.Expr) bool {
	b, ok := e.(*ir.Binary)
	return ok && b.Op.IsCompare() && b.X.ExprType() == ir.F16
}
