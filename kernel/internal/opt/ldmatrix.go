package opt

import (
	"fmt"

	"github.com/anygpu/gpu/kernel/internal/ir"
)

// ldmUnitWords is the portable LoadMatrices' scratch per matrix unit of 32
// threads: each lane's row address. A kernel with MMAs has MMA's larger
// scratch, which its LoadMatrices share (both run between Barriers).
const ldmUnitWords = 32

// rewriteLoad is the statements that replace a LoadMatrices s:
//
//	every lane stores its At in its unit's slot of the scratch;
//	Barrier;
//	lane (g, t) reads, for each matrix i, the addresses of the rows it
//	needs (row g without Trans; rows 2t and 2t+1 with it) from the slots
//	of lanes 8i+g (8i+2t, 8i+2t+1) and its word (or halves) from Src;
//	Barrier (the next use reuses the scratch).
func (l *mmaLowering) rewriteLoad(s *ir.LoadMatrices) ([]ir.Stmt, error) {
	p := s.Pos
	if s.Frag == nil || s.Src == nil || s.At == nil || (s.N != 2 && s.N != 4) {
		return nil, fmt.Errorf("%s: kernel.LoadMatrices without its operands", p)
	}
	ref := func(v *ir.Var) ir.Expr { return &ir.Ref{Var: v, Pos: p} }
	c := func(v uint64) ir.Expr { return cu32(v, p) }
	add := func(x, y ir.Expr) ir.Expr { return u32Op(ir.Add, x, y, p) }
	tid := func() ir.Expr { return &ir.CallBuiltin{Builtin: ir.ThreadIndex, Type: ir.U32, Pos: p} }
	slot := func(i ir.Expr) *ir.Index { return &ir.Index{X: ref(l.scratch), Index: i, Type: ir.U32, Pos: p} }
	word := func(i ir.Expr) *ir.Index { return &ir.Index{X: ref(s.Src.Var), Index: i, Type: ir.U32, Pos: p} }
	dBase, base := l.local("ldmBase", u32Op(ir.Mul, u32Op(ir.Shr, tid(), c(5), p), c(l.unitWords), p), p)
	out := []ir.Stmt{dBase,
		&ir.Assign{Place: slot(add(ref(base), u32Op(ir.And, tid(), c(31), p))), Value: s.At, Pos: p},
		&ir.Barrier{Pos: p},
	}
	dG, g := l.local("ldmG", u32Op(ir.And, u32Op(ir.Shr, tid(), c(2), p), c(7), p), p)
	dT, t := l.local("ldmT", u32Op(ir.And, tid(), c(3), p), p)
	out = append(out, dG, dT)
	var half, col *ir.Var
	if s.Trans {
		// Column g of a row is half g%2 of its word g/2.
		var dHalf, dCol ir.Stmt
		dHalf, half = l.local("ldmHalf", u32Op(ir.Shl, u32Op(ir.And, ref(g), c(1), p), c(4), p), p)
		dCol, col = l.local("ldmCol", u32Op(ir.Shr, ref(g), c(1), p), p)
		out = append(out, dHalf, dCol)
	}
	for i := range s.N {
		var v ir.Expr
		if !s.Trans {
			v = word(add(slot(add(ref(base), add(ref(g), c(uint64(8*i))))), ref(t)))
		} else {
			row := func(r uint64) ir.Expr { // M_i[2t+r][g], in the low 16 bits
				at := slot(add(ref(base), add(u32Op(ir.Shl, ref(t), c(1), p), c(uint64(8*i)+r))))
				return u32Op(ir.And, u32Op(ir.Shr, word(add(at, ref(col))), ref(half), p), c(0xffff), p)
			}
			v = u32Op(ir.Or, row(0), u32Op(ir.Shl, row(1), c(16), p), p)
		}
		place := &ir.Index{X: cloneExpr(s.Frag), Index: c(uint64(i)), Type: ir.U32, Pos: p}
		out = append(out, &ir.Assign{Place: place, Value: v, Pos: p})
	}
	return append(out, &ir.Barrier{Pos: p}), nil
}

// lowerCopyAsync rewrites f's CopyAsyncs into plain copies of four words
// and drops its CopyAsyncCommits and CopyAsyncWaits: without an
// asynchronous copy, a copy is complete when it is done.
func lowerCopyAsync(m *ir.Module, f *ir.Func) {
	names := varNames(f)
	for _, g := range m.Funcs {
		if g != nil {
			names[g.Name] = true
		}
	}
	l := &mmaLowering{names: names}
	f.Body = mapStmts(f.Body, func(e ir.Expr) ir.Expr { return e }, func(s ir.Stmt) []ir.Stmt {
		switch x := s.(type) {
		case *ir.CopyAsyncCommit, *ir.CopyAsyncWait:
			return []ir.Stmt{}
		case *ir.CopyAsync:
			return l.copyWords(x)
		}
		return nil
	})
}

// copyWords is CopyAsync s as four assignments.
func (l *mmaLowering) copyWords(s *ir.CopyAsync) []ir.Stmt {
	p := s.Pos
	ref := func(v *ir.Var) ir.Expr { return &ir.Ref{Var: v, Pos: p} }
	c := func(v uint64) ir.Expr { return cu32(v, p) }
	dDst, dst := l.local("cpDst", u32Op(ir.Shl, s.DstIndex, c(2), p), p)
	dSrc, src := l.local("cpSrc", u32Op(ir.Shl, s.SrcIndex, c(2), p), p)
	out := []ir.Stmt{dDst, dSrc}
	elem := ir.U32
	if sl, ok := s.Src.Var.Type.(*ir.Slice); ok {
		elem = sl.Elem
	}
	for i := range uint64(4) {
		var v ir.Expr = &ir.Index{X: ref(s.Src.Var), Index: u32Op(ir.Add, ref(src), c(i), p), Type: elem, Pos: p}
		if elem == ir.F32 {
			v = &ir.CallBuiltin{Builtin: ir.Float32Bits, Args: []ir.Expr{v}, Type: ir.U32, Pos: p}
		}
		place := &ir.Index{X: ref(s.Dst.Var), Index: u32Op(ir.Add, ref(dst), c(i), p), Type: ir.U32, Pos: p}
		out = append(out, &ir.Assign{Place: place, Value: v, Pos: p})
	}
	return out
}
