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
// threads of its MaxThreads and, first in its body, the offsets of the
// thread's slots in it; each MMA becomes
//
//	every thread stores its a and b words in its unit's slots;
//	Barrier;
//	each thread adds to its four values of C, as a Float4, the products of
//	A's rows and B's columns in k order, a pair of k a step (a helper:
//	mmaStepBFloat16 or mmaStepFloat16, which unpack the halves);
//	Barrier (the next MMA reuses the array).
//
// Each PackHalves built-in, in any function, becomes a call of its helper.
// The helpers are pool's (halfhelpers.txt).
func mmaPortable(m *ir.Module, pool *helperPool) error {
	for _, f := range m.Funcs {
		if f == nil {
			continue
		}
		has, ldm, copies, packs := false, false, false, false
		ir.WalkStmts(f.Body, func(s ir.Stmt) {
			switch s.(type) {
			case *ir.MMA:
				has = true
			case *ir.LoadMatrices:
				ldm = true
			case *ir.CopyAsync, *ir.CopyAsyncCommit, *ir.CopyAsyncWait:
				copies = true
			}
		}, func(e ir.Expr) {
			if b, ok := e.(*ir.CallBuiltin); ok && (b.Builtin == ir.PackHalvesBFloat16 || b.Builtin == ir.PackHalvesFloat16) {
				packs = true
			}
		})
		if copies {
			lowerCopyAsync(m, f)
		}
		if !has && !ldm && !packs {
			continue
		}
		h, err := pool.get()
		if err != nil {
			return err
		}
		if has || ldm {
			if err := lowerMMA(m, f, h, pool, has); err != nil {
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
	h       halfHelpers
	pool    *helperPool
	names   map[string]bool
	next    int
	scratch *ir.Var
	// unitWords is the scratch's words per unit of 32 threads.
	unitWords uint64
	// The thread's slots, declared first in the kernel: rowA is the word
	// of A's row g at pair 0 (unit·192 + g·8), t the lane's t, colB the word
	// of B's column g at pair t (unit·192 + 128 + t·8 + g) and colC that of
	// column 2t at pair 0 (unit·192 + 128 + 2t).
	rowA, t, colB, colC *ir.Var
}

// lowerMMA rewrites f's MMAs (see mmaPortable) and LoadMatrices (see
// rewriteLoad), which share the scratch array: mmaUnitWords words per unit
// when f has MMAs (hasMMA), ldmUnitWords otherwise.
func lowerMMA(m *ir.Module, f *ir.Func, h halfHelpers, pool *helperPool, hasMMA bool) error {
	if !f.Kernel || f.MaxThreads <= 0 || f.MaxThreads%32 != 0 {
		what := "kernel.MMA"
		if !hasMMA {
			what = "kernel.LoadMatrices"
		}
		return fmt.Errorf("%s: %s in %s, which is not a kernel with a //gpu:maxthreads multiple of 32", f.Pos, what, f.Name)
	}
	names := varNames(f)
	for _, fs := range [][]*ir.Func{m.Funcs, h.ordered()} { // the helpers too: a local never hides a function
		for _, g := range fs {
			names[g.Name] = true
		}
	}
	l := &mmaLowering{h: h, pool: pool, names: names, unitWords: ldmUnitWords}
	if hasMMA {
		l.unitWords = mmaUnitWords
	}
	l.scratch = &ir.Var{Name: l.fresh("mmaScratch"), Type: &ir.Array{Elem: ir.U32, Len: int(l.unitWords) * f.MaxThreads / 32},
		Class: ir.Shared, Pos: f.Pos}
	var slots []ir.Stmt
	if hasMMA {
		slots = l.slots(f.Pos)
	}
	var err error
	f.Body = mapStmts(f.Body, func(e ir.Expr) ir.Expr { return e }, func(s ir.Stmt) []ir.Stmt {
		var out []ir.Stmt
		var e error
		switch x := s.(type) {
		case *ir.MMA:
			out, e = l.rewrite(x)
		case *ir.LoadMatrices:
			out, e = l.rewriteLoad(x)
		default:
			return nil
		}
		if e != nil && err == nil {
			err = e
		}
		return out
	})
	if err != nil {
		return err
	}
	f.Shared = append(f.Shared, l.scratch)
	f.Body = append(slots, f.Body...)
	f.Barriers = true
	return nil
}

// slots declares the thread's slots of the scratch (see mmaLowering).
func (l *mmaLowering) slots(p ir.Pos) []ir.Stmt {
	ref := func(v *ir.Var) ir.Expr { return &ir.Ref{Var: v, Pos: p} }
	c := func(v uint64) ir.Expr { return cu32(v, p) }
	add := func(x, y ir.Expr) ir.Expr { return u32Op(ir.Add, x, y, p) }
	tid := func() ir.Expr { return &ir.CallBuiltin{Builtin: ir.ThreadIndex, Type: ir.U32, Pos: p} }
	dBase, base := l.local("mmaBase", u32Op(ir.Mul, u32Op(ir.Shr, tid(), c(5), p), c(mmaUnitWords), p), p)
	dG, g := l.local("mmaG", u32Op(ir.And, u32Op(ir.Shr, tid(), c(2), p), c(7), p), p)
	var dT, dRow, dCol, dColC ir.Stmt
	dT, l.t = l.local("mmaT", u32Op(ir.And, tid(), c(3), p), p)
	dRow, l.rowA = l.local("mmaRowA", add(ref(base), u32Op(ir.Shl, ref(g), c(3), p)), p)
	dCol, l.colB = l.local("mmaColB", add(add(ref(base), c(mmaBOffset)), add(u32Op(ir.Shl, ref(l.t), c(3), p), ref(g))), p)
	dColC, l.colC = l.local("mmaColC", add(add(ref(base), c(mmaBOffset)), u32Op(ir.Shl, ref(l.t), c(1), p)), p)
	return []ir.Stmt{dBase, dG, dT, dRow, dCol, dColC}
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
		return &ir.Index{X: cloneExpr(x), Index: c(uint64(i)), Type: t, Pos: p}
	}
	at := func(i ir.Expr) *ir.Index { return &ir.Index{X: ref(l.scratch), Index: i, Type: ir.U32, Pos: p} }
	store := func(i ir.Expr, v ir.Expr) ir.Stmt { return &ir.Assign{Place: at(i), Value: v, Pos: p} }
	out := []ir.Stmt{
		store(add(ref(l.rowA), ref(l.t)), elem(s.A, 0, ir.U32)),
		store(add(ref(l.rowA), add(ref(l.t), c(64))), elem(s.A, 1, ir.U32)),
		store(add(ref(l.rowA), add(ref(l.t), c(4))), elem(s.A, 2, ir.U32)),
		store(add(ref(l.rowA), add(ref(l.t), c(68))), elem(s.A, 3, ir.U32)),
		store(ref(l.colB), elem(s.B, 0, ir.U32)),
		store(add(ref(l.colB), c(32)), elem(s.B, 1, ir.U32)),
		&ir.Barrier{Pos: p},
	}
	// v is C's four values; pair kp holds k = 2kp (low half) and 2kp+1.
	f4 := &ir.Vec{Elem: ir.F32, N: 4}
	cs := make([]ir.Expr, 4)
	for i := range cs {
		cs[i] = elem(s.C, i, ir.F32)
	}
	v := &ir.Var{Name: l.fresh("mmaC"), Type: f4, Class: ir.Local, Pos: p}
	kp := &ir.Var{Name: l.fresh("mmaK"), Type: ir.U32, Class: ir.Local, Pos: p}
	step := l.h.stepBF16
	if s.Precision == ir.PrecisionFloat16 {
		step = l.h.stepF16
	}
	l.pool.use(step)
	colC := add(ref(l.colC), u32Op(ir.Shl, ref(kp), c(3), p)) // B's column 2t at pair kp
	call := &ir.Call{Func: step, Args: []ir.Expr{ref(v),
		at(add(ref(l.rowA), ref(kp))),             // A[g][2kp..]
		at(add(ref(l.rowA), add(ref(kp), c(64)))), // A[g+8][2kp..]
		at(colC),                       // B[2kp..][2t]
		at(add(cloneExpr(colC), c(1))), // B[2kp..][2t+1]
	}, Pos: p}
	out = append(out, &ir.Decl{Var: v, Init: &ir.MakeVec{Type: f4, Elems: cs, Pos: p}, Pos: p},
		&ir.For{
			Init: &ir.Decl{Var: kp, Init: c(0), Pos: p},
			Cond: &ir.Binary{Op: ir.Lt, X: ref(kp), Y: c(8), Type: ir.Bool, Pos: p},
			Post: &ir.Assign{Place: ref(kp), Value: add(ref(kp), c(1)), Pos: p},
			Body: []ir.Stmt{&ir.Assign{Place: ref(v), Value: call, Pos: p}},
			Pos:  p, Trips: 8,
		})
	for i := range 4 {
		out = append(out, &ir.Assign{Place: elem(s.C, i, ir.F32), Value: &ir.Lane{X: ref(v), N: i, Pos: p}, Pos: p})
	}
	return append(out, &ir.Barrier{Pos: p}), nil
}

// cloneExpr is a copy of e that shares no node with it.
func cloneExpr(e ir.Expr) ir.Expr {
	c := &cloner{ok: true}
	return c.expr(e)
}
