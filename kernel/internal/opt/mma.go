package opt

import (
	"fmt"
	"strconv"

	"github.com/anygpu/gpu/kernel/internal/ir"
)

// The portable MMA's shared scratch: per matrix unit of 32 threads, A's
// 16×16 values as 16 rows of 8 words (word k/2 of row i holds columns k and
// k+1) then B's 16×8 as 8 rows of pairs of B's rows by 8 columns (word
// (k/2)·8 + j holds B[k][j] and B[k+1][j]).
const (
	mmaUnitWords = 192 // 128 words of A, 64 of B
	mmaBOffset   = 128
)

// mmaPortable rewrites every MMA of m (ir.MMA) for the dialects without a
// matrix unit: the kernel gets one shared array of mmaUnitWords words per 32
// threads of its MaxThreads, and each MMA becomes
//
//	every thread stores its a and b words in its unit's slots;
//	Barrier;
//	each thread adds to its four values of C the 16 products of A's row
//	and B's column, unpacked to float32, in k order;
//	Barrier (the next MMA reuses the array).
//
// Each PackHalves built-in, in any function, becomes a call of its helper
// (halfhelpers.txt) from pool.
func mmaPortable(m *ir.Module, pool *helperPool) error {
	for _, f := range m.Funcs {
		if f == nil {
			continue
		}
		has, packs := false, false
		ir.WalkStmts(f.Body, func(s ir.Stmt) {
			if _, ok := s.(*ir.MMA); ok {
				has = true
			}
		}, func(e ir.Expr) {
			if b, ok := e.(*ir.CallBuiltin); ok && (b.Builtin == ir.PackHalvesBFloat16 || b.Builtin == ir.PackHalvesFloat16) {
				packs = true
			}
		})
		if !has && !packs {
			continue
		}
		h, err := pool.get()
		if err != nil {
			return err
		}
		if has {
			if err := lowerMMA(m, f, h, pool); err != nil {
				return err
			}
		}
		if packs {
			f.Body = mapStmts(f.Body, func(e ir.Expr) ir.Expr {
				b, ok := e.(*ir.CallBuiltin)
				if !ok || (b.Builtin != ir.PackHalvesBFloat16 && b.Builtin != ir.PackHalvesFloat16) {
					return e
				}
				fn := h.packBF16
				if b.Builtin == ir.PackHalvesFloat16 {
					fn = h.packF16
				}
				pool.use(fn)
				return &ir.Call{Func: fn, Args: b.Args, Pos: b.Pos}
			}, nil)
		}
	}
	return nil
}

// mmaLowering is the rewrite of one kernel's MMAs.
type mmaLowering struct {
	f       *ir.Func
	h       halfHelpers
	pool    *helperPool
	names   map[string]bool
	next    int
	scratch *ir.Var
}

// lowerMMA rewrites f's MMAs (see mmaPortable).
func lowerMMA(m *ir.Module, f *ir.Func, h halfHelpers, pool *helperPool) error {
	if !f.Kernel || f.MaxThreads <= 0 || f.MaxThreads%32 != 0 {
		return fmt.Errorf("%s: kernel.MMA in %s, which is not a kernel with a //gpu:maxthreads multiple of 32", f.Pos, f.Name)
	}
	names := varNames(f)
	for _, g := range m.Funcs {
		names[g.Name] = true
	}
	l := &mmaLowering{f: f, h: h, pool: pool, names: names}
	l.scratch = &ir.Var{Name: l.fresh("mmaScratch"), Type: &ir.Array{Elem: ir.U32, Len: mmaUnitWords * f.MaxThreads / 32},
		Class: ir.Shared, Pos: f.Pos}
	var err error
	f.Body = mapStmts(f.Body, func(e ir.Expr) ir.Expr { return e }, func(s ir.Stmt) []ir.Stmt {
		x, ok := s.(*ir.MMA)
		if !ok {
			return nil
		}
		out, e := l.rewrite(x)
		if e != nil && err == nil {
			err = e
		}
		return out
	})
	if err != nil {
		return err
	}
	f.Shared = append(f.Shared, l.scratch)
	f.Barriers = true
	return nil
}

// fresh is a new name from base that no variable or function of the module has.
func (l *mmaLowering) fresh(base string) string {
	for {
		l.next++
		name := base + strconv.Itoa(l.next)
		if !l.names[name] {
			l.names[name] = true
			return name
		}
	}
}

// local declares a new U32 or F32 local initialized to init.
func (l *mmaLowering) local(base string, init ir.Expr, p ir.Pos) (*ir.Decl, *ir.Var) {
	v := &ir.Var{Name: l.fresh(base), Type: init.ExprType(), Class: ir.Local, Pos: p}
	return &ir.Decl{Var: v, Init: init, Pos: p}, v
}

// rewrite is the statements that replace s.
func (l *mmaLowering) rewrite(s *ir.MMA) ([]ir.Stmt, error) {
	p := s.Pos
	for _, x := range []ir.Expr{s.C, s.A, s.B} {
		if x == nil {
			return nil, fmt.Errorf("%s: kernel.MMA without its fragments", p)
		}
	}
	ref := func(v *ir.Var) ir.Expr { return &ir.Ref{Var: v, Pos: p} }
	c := func(v uint64) ir.Expr { return cu32(v, p) }
	add := func(x, y ir.Expr) ir.Expr { return u32Op(ir.Add, x, y, p) }
	// elem is element i of the fragment place x (a fresh copy of x: the
	// front end made its indices free of effects).
	elem := func(x ir.Expr, i int, t ir.Scalar) *ir.Index {
		cl := &cloner{ok: true}
		return &ir.Index{X: cl.expr(x), Index: c(uint64(i)), Type: t, Pos: p}
	}
	tid := &ir.CallBuiltin{Builtin: ir.ThreadIndex, Type: ir.U32, Pos: p}
	dBase, base := l.local("mmaBase", u32Op(ir.Mul, u32Op(ir.Shr, tid, c(5), p), c(mmaUnitWords), p), p)
	tid2 := &ir.CallBuiltin{Builtin: ir.ThreadIndex, Type: ir.U32, Pos: p}
	dLane, lane := l.local("mmaLane", u32Op(ir.And, tid2, c(31), p), p)
	// rowA is the word of A's row g (at column pair 0): base + g·8.
	dRow, rowA := l.local("mmaRowA", add(ref(base), u32Op(ir.Shl, u32Op(ir.Shr, ref(lane), c(2), p), c(3), p)), p)
	dT, t := l.local("mmaT", u32Op(ir.And, ref(lane), c(3), p), p)
	// colB is the word of B's column g at pair t: base + 128 + t·8 + g.
	dCol, colB := l.local("mmaColB", add(add(ref(base), c(mmaBOffset)),
		add(u32Op(ir.Shl, ref(t), c(3), p), u32Op(ir.Shr, ref(lane), c(2), p))), p)
	at := func(i ir.Expr) *ir.Index { return &ir.Index{X: ref(l.scratch), Index: i, Type: ir.U32, Pos: p} }
	store := func(i ir.Expr, v ir.Expr) ir.Stmt { return &ir.Assign{Place: at(i), Value: v, Pos: p} }
	out := []ir.Stmt{dBase, dLane, dRow, dT, dCol,
		store(add(ref(rowA), ref(t)), elem(s.A, 0, ir.U32)),
		store(add(ref(rowA), add(ref(t), c(64))), elem(s.A, 1, ir.U32)),
		store(add(ref(rowA), add(ref(t), c(4))), elem(s.A, 2, ir.U32)),
		store(add(ref(rowA), add(ref(t), c(68))), elem(s.A, 3, ir.U32)),
		store(ref(colB), elem(s.B, 0, ir.U32)),
		store(add(ref(colB), c(32)), elem(s.B, 1, ir.U32)),
		&ir.Barrier{Pos: p},
	}
	// The k loop: pair kp holds k = 2kp (low half) and 2kp+1 (high half).
	kp := &ir.Var{Name: l.fresh("mmaK"), Type: ir.U32, Class: ir.Local, Pos: p}
	// colC is the word of B's column 2t at pair kp: base + 128 + kp·8 + 2t.
	colC := add(add(ref(base), c(mmaBOffset)), add(u32Op(ir.Shl, ref(kp), c(3), p), u32Op(ir.Shl, ref(t), c(1), p)))
	words := []ir.Expr{
		at(add(ref(rowA), ref(kp))),             // A[g][2kp..]
		at(add(ref(rowA), add(ref(kp), c(64)))), // A[g+8][2kp..]
		at(colC),                                // B[2kp..][2t]
		at(add(cloneExpr(colC), c(1))),          // B[2kp..][2t+1]
	}
	var body []ir.Stmt
	vals := make([][2]*ir.Var, len(words)) // lo, hi of each word as float32
	for i, w := range words {
		dw, wv := l.local("mmaWord", w, p)
		body = append(body, dw)
		lo, hi := l.unpack(ref(wv), s.Precision, p)
		dl, lv := l.local("mmaLo", lo, p)
		dh, hv := l.local("mmaHi", hi, p)
		body = append(body, dl, dh)
		vals[i] = [2]*ir.Var{lv, hv}
	}
	// c[0] = C[g][2t], c[1] = C[g][2t+1], c[2] = C[g+8][2t], c[3] = C[g+8][2t+1].
	for ci, ab := range [4][2]int{{0, 2}, {0, 3}, {1, 2}, {1, 3}} {
		for half := 0; half < 2; half++ {
			prod := &ir.Binary{Op: ir.Mul, X: ref(vals[ab[0]][half]), Y: ref(vals[ab[1]][half]), Type: ir.F32, Pos: p}
			sum := &ir.Binary{Op: ir.Add, X: elem(s.C, ci, ir.F32), Y: prod, Type: ir.F32, Pos: p}
			body = append(body, &ir.Assign{Place: elem(s.C, ci, ir.F32), Value: sum, Pos: p})
		}
	}
	out = append(out, &ir.For{
		Init: &ir.Decl{Var: kp, Init: c(0), Pos: p},
		Cond: &ir.Binary{Op: ir.Lt, X: ref(kp), Y: c(8), Type: ir.Bool, Pos: p},
		Post: &ir.Assign{Place: ref(kp), Value: add(ref(kp), c(1)), Pos: p},
		Body: body, Pos: p, Trips: 8,
	}, &ir.Barrier{Pos: p})
	return out, nil
}

// unpack is the two 16-bit values of precision prec in word w as float32s,
// the low half first.
func (l *mmaLowering) unpack(w ir.Expr, prec ir.Precision, p ir.Pos) (lo, hi ir.Expr) {
	if prec == ir.PrecisionFloat16 {
		l.pool.use(l.h.toF32)
		lo = &ir.Call{Func: l.h.toF32, Args: []ir.Expr{u32Op(ir.And, w, cu32(0xffff, p), p)}, Pos: p}
		hi = &ir.Call{Func: l.h.toF32, Args: []ir.Expr{u32Op(ir.Shr, cloneExpr(w), cu32(16, p), p)}, Pos: p}
		return lo, hi
	}
	bits := func(x ir.Expr) ir.Expr {
		return &ir.CallBuiltin{Builtin: ir.Float32FromBits, Args: []ir.Expr{x}, Type: ir.F32, Pos: p}
	}
	return bits(u32Op(ir.Shl, w, cu32(16, p), p)), bits(u32Op(ir.And, cloneExpr(w), cu32(0xffff0000, p), p))
}

// cloneExpr is a copy of e that shares no node with it.
func cloneExpr(e ir.Expr) ir.Expr {
	c := &cloner{ok: true}
	return c.expr(e)
}
