package gosrc

import (
	"fmt"
	"strings"

	"github.com/anygpu/gpu/kernel/internal/ir"
)

// Windows: a run of threads in the strip form (strips.go) whose guards the
// whole strip passes, and whose 4-wide loads and stores of consecutive
// threads touch consecutive float4s, runs as one loop over a window of each
// buffer, as a hand-written Go loop would.
//
// A u32 value of the run is lane-affine when it is c + k·ThreadX() with c
// strip-uniform and k a constant: ThreadX, strip-uniform values, the lane-
// pure locals and the run's own top-level locals (never assigned in the
// windowed run) from them, +, -, × and ÷ by a constant. For each strip the
// group computes, in int64, every lane-affine value of the run at the
// strip's first and last thread: where none leaves [0, 2³²) (a ÷ must divide
// exactly), none wraps at any thread in between, each is monotone in the
// thread, and so is a comparison of two of them. The run's top-level Ifs
// whose conditions are conjunctions of such comparisons, true at both ends,
// are true for every thread of the strip: the windowed run runs their Then
// alone. A Load4 or Store4 of a buffer parameter at a lane-affine float4
// index of slope 1 reads and writes a window of the buffer that the group
// slices once per strip (when it lies inside the buffer), through a 4-float
// view per thread that Go checks once: the loop's counter walks the first
// window, and the others are re-sliced to its length. Strips where any of
// this fails run the run's plain loop over threads, with the kernel's exact
// semantics. The windowed loop runs from a function of its own where it can
// (outline.go), and reads its loads in place where that keeps the kernel's
// meaning (forward.go).

// windowPlan is the windowed form of one run of threads.
type windowPlan struct {
	f       *fn
	decls   map[*ir.Var]*ir.Decl // the run's top-level locals usable as lane-affine
	hoisted map[*ir.If]bool      // the Ifs the windowed run replaces by their Then
	body    []ir.Stmt            // the windowed run
	checks  []string             // the strip-level conditions, in int64
	wins    []*window
	views   map[any]*window   // the Load4 calls and Store4 statements that use a window
	memo    map[ir.Expr]int64 // slopes of the lane-affine expressions seen
	divides []string          // strip-level exactness checks of ÷
	fwd     *forwardPlan      // the loads read in place (forward.go); nil: none
}

// window is a re-sliced range of a buffer that a run's 4-wide accesses use.
type window struct {
	buf   *ir.Var
	idx   ir.Expr // the float4 index of its first access
	first string  // idx at the strip's first thread, int64
	name  string  // the window slice
	view  string  // its 4 floats of the thread
}

// maxAffine bounds the constants and slopes of lane-affine values, so that
// their int64 values at the ends of a strip cannot overflow.
const maxAffine = 1 << 16

// Names of the windowed run.
const (
	winFirst = "int64(agS0)"
	winLast  = "int64(agS1-1)"
	winK     = "agK"
)

// planWindow returns the windowed form of a run of threads, or nil.
func (f *fn) planWindow(run []ir.Stmt) *windowPlan {
	if f.strip == nil {
		return nil
	}
	w := &windowPlan{f: f, decls: map[*ir.Var]*ir.Decl{}, hoisted: map[*ir.If]bool{}, views: map[any]*window{}, memo: map[ir.Expr]int64{}}
	// The run without its hoisted Ifs' Else; the top-level locals may be
	// lane-affine only where that run never assigns them.
	for _, s := range run {
		switch s := s.(type) {
		case *ir.Decl:
			w.decls[s.Var] = s
		case *ir.If:
			if w.hoistable(s.Cond) {
				w.hoisted[s] = true
			}
		}
	}
	if len(w.hoisted) == 0 {
		return nil
	}
	for _, s := range run {
		if i, ok := s.(*ir.If); ok && w.hoisted[i] {
			w.body = append(w.body, &ir.Block{Body: i.Then, Pos: i.Pos})
			continue
		}
		w.body = append(w.body, s)
	}
	assigned := assignedVars(w.body)
	ir.WalkStmts(w.body, func(s ir.Stmt) {
		if d, ok := s.(*ir.Decl); ok && w.decls[d.Var] != d {
			assigned[d.Var] = true // declared twice: not a plain top-level local
		}
	}, nil)
	for v, d := range w.decls {
		if assigned[v] || d.Init == nil || d.Var.Type != ir.U32 {
			delete(w.decls, v)
		}
	}
	// Re-check the hoisted conditions against the surviving locals, then
	// collect their comparisons' checks.
	w.memo = map[ir.Expr]int64{}
	for s := range w.hoisted {
		if !w.hoistable(s.Cond) {
			return nil
		}
	}
	for _, s := range run {
		if i, ok := s.(*ir.If); ok && w.hoisted[i] {
			c, err := w.condAt(i.Cond)
			if err != nil {
				return nil
			}
			w.checks = append(w.checks, c...)
		}
	}
	// Windows: 4-wide accesses at slope-1 indices.
	byKey := map[string]*window{}
	add := func(n any, buf ir.Expr, idx ir.Expr) {
		r, ok := buf.(*ir.Ref)
		if !ok || r.Var.Class != ir.Param || f.assigned(r.Var) {
			return
		}
		if k, ok := w.slope(idx); !ok || k != 1 {
			return
		}
		first, err := w.at(idx, winFirst)
		if err != nil {
			return
		}
		key := f.names[r.Var] + "@" + first
		win := byKey[key]
		if win == nil {
			id := len(w.wins)
			win = &window{buf: r.Var, idx: idx, first: first, name: fmt.Sprintf("agW%d", id), view: fmt.Sprintf("agV%d", id)}
			byKey[key] = win
			w.wins = append(w.wins, win)
		}
		w.views[n] = win
	}
	ir.WalkStmts(w.body, func(s ir.Stmt) {
		if st, ok := s.(*ir.Store4); ok {
			add(st, st.Buf, st.Index)
		}
	}, func(x ir.Expr) {
		if b, ok := x.(*ir.CallBuiltin); ok && b.Builtin == ir.Load4 && len(b.Args) == 2 {
			add(b, b.Args[0], b.Args[1])
		}
	})
	return w
}

// hoistable reports whether cond is a conjunction of comparisons of u32
// lane-affine values.
func (w *windowPlan) hoistable(cond ir.Expr) bool {
	b, ok := cond.(*ir.Binary)
	if !ok {
		return false
	}
	switch {
	case b.Op == ir.LAnd:
		return w.hoistable(b.X) && w.hoistable(b.Y)
	case b.Op == ir.Lt || b.Op == ir.Le || b.Op == ir.Gt || b.Op == ir.Ge:
		if b.X.ExprType() != ir.U32 || b.Y.ExprType() != ir.U32 {
			return false
		}
		_, okX := w.slope(b.X)
		_, okY := w.slope(b.Y)
		return okX && okY
	}
	return false
}

// leaf reports whether x is strip-uniform and cheap and safe to evaluate
// once per strip: no call of a helper.
func (w *windowPlan) leaf(x ir.Expr) bool {
	if !w.f.strip.suExpr(w.f, x) {
		return false
	}
	ok := true
	ir.WalkExpr(x, func(x ir.Expr) {
		if _, call := x.(*ir.Call); call {
			ok = false
		}
	})
	return ok
}

// slope returns k of a lane-affine u32 x = c + k·ThreadX().
func (w *windowPlan) slope(x ir.Expr) (int64, bool) {
	if k, ok := w.memo[x]; ok {
		return k, true
	}
	k, ok := w.slopeOf(x)
	if ok && (k > maxAffine || k < -maxAffine) {
		ok = false
	}
	if ok {
		w.memo[x] = k
	}
	return k, ok
}

func (w *windowPlan) slopeOf(x ir.Expr) (int64, bool) {
	if x.ExprType() != ir.U32 {
		return 0, false
	}
	p := w.f.strip
	if w.leaf(x) {
		return 0, true
	}
	if p.isThreadX(x) {
		return 1, true
	}
	switch x := x.(type) {
	case *ir.Ref:
		if d := p.lanePure[x.Var]; d != nil {
			return w.slope(d.Init)
		}
		if d := w.decls[x.Var]; d != nil {
			return w.slope(d.Init)
		}
	case *ir.Binary:
		if c, ok := x.X.(*ir.Const); ok && x.Op == ir.Mul && c.Uint > 0 && c.Uint <= maxAffine {
			k, ok := w.slope(x.Y) // c·y
			return k * int64(c.Uint), ok
		}
		kx, okX := w.slope(x.X)
		if !okX {
			return 0, false
		}
		switch x.Op {
		case ir.Add, ir.Sub:
			ky, okY := w.slope(x.Y)
			if !okY {
				return 0, false
			}
			if x.Op == ir.Add {
				return kx + ky, true
			}
			return kx - ky, true
		case ir.Mul, ir.Div:
			c, ok := x.Y.(*ir.Const)
			if !ok || c.Uint == 0 || c.Uint > maxAffine {
				return 0, false
			}
			if x.Op == ir.Mul {
				return kx * int64(c.Uint), true
			}
			if kx%int64(c.Uint) != 0 {
				return 0, false
			}
			return kx / int64(c.Uint), true
		}
	}
	return 0, false
}

// at returns lane-affine x at the thread lane (an int64 Go expression), as
// an int64 Go expression, adding to the plan's checks that none of its
// lane-dependent parts leaves [0, 2³²) there and that its divisions are
// exact.
func (w *windowPlan) at(x ir.Expr, lane string) (string, error) {
	if _, ok := w.slope(x); !ok {
		return "", fmt.Errorf("gosrc: not lane-affine")
	}
	p := w.f.strip
	if w.leaf(x) {
		s, err := w.f.expr(x)
		if err != nil {
			return "", err
		}
		return "int64(" + s + ")", nil
	}
	if p.isThreadX(x) {
		return lane, nil
	}
	var s string
	switch x := x.(type) {
	case *ir.Ref:
		d := p.lanePure[x.Var]
		if d == nil {
			d = w.decls[x.Var]
		}
		return w.at(d.Init, lane)
	case *ir.Binary:
		a, err := w.at(x.X, lane)
		if err != nil {
			return "", err
		}
		switch x.Op {
		case ir.Add, ir.Sub:
			b, err := w.at(x.Y, lane)
			if err != nil {
				return "", err
			}
			s = "(" + a + " " + x.Op.String() + " " + b + ")"
		case ir.Mul:
			if c, ok := x.X.(*ir.Const); ok {
				b, err := w.at(x.Y, lane)
				if err != nil {
					return "", err
				}
				s = fmt.Sprintf("(%d * %s)", c.Uint, b)
				break
			}
			s = fmt.Sprintf("(%s * %d)", a, x.Y.(*ir.Const).Uint)
		case ir.Div:
			// x.X's slope is a multiple of c (slopeOf): dividing exactly
			// at the strip's first thread, it divides exactly at every
			// thread. The quotient of a value in [0, 2³²) (x.X's own
			// check, or a u32 leaf or thread index) needs no check.
			c := x.Y.(*ir.Const).Uint
			first := a
			if lane != winFirst {
				if first, err = w.at(x.X, winFirst); err != nil {
					return "", err
				}
			}
			w.checks = append(w.checks, fmt.Sprintf("%s%%%d == 0", first, c))
			return fmt.Sprintf("(%s / %d)", a, c), nil
		}
	}
	w.checks = append(w.checks, fmt.Sprintf("uint64(%s) < 1<<32", s))
	return s, nil
}

// condAt returns the strip-level checks that cond holds at the strip's
// first and last threads.
func (w *windowPlan) condAt(cond ir.Expr) ([]string, error) {
	b := cond.(*ir.Binary)
	if b.Op == ir.LAnd {
		l, err := w.condAt(b.X)
		if err != nil {
			return nil, err
		}
		r, err := w.condAt(b.Y)
		return append(l, r...), err
	}
	var out []string
	for _, lane := range []string{winFirst, winLast} {
		x, err := w.at(b.X, lane)
		if err != nil {
			return nil, err
		}
		y, err := w.at(b.Y, lane)
		if err != nil {
			return nil, err
		}
		out = append(out, x+" "+b.Op.String()+" "+y)
	}
	return out, nil
}

// windowRun emits the windowed form of a run: the strip-level checks, and
// when they hold, the windowed loop; otherwise the plain loop.
func (f *fn) windowRun(w *windowPlan, plain func() error) error {
	// The windows' ends: their indices' checks at the first thread are in
	// the plan already; those at the last come with them.
	var ends []string
	for _, win := range w.wins {
		last, err := w.at(win.idx, winLast)
		if err != nil {
			return err
		}
		ends = append(ends, fmt.Sprintf("4*(%s+1) <= int64(len(%s))", last, f.names[win.buf]))
	}
	checks := dedupe(append(w.checks, ends...))
	f.printf("if %s {\n", strings.Join(checks, " &&\n"))
	for i, win := range w.wins {
		buf := f.names[win.buf]
		if i == 0 {
			f.printf("%s := %s[4*%s:][:4*int(agS1-agS0):4*int(agS1-agS0)]\n", win.name, buf, win.first)
		} else {
			f.printf("%s := %s[4*%s:][:len(%s)]\n", win.name, buf, win.first, w.wins[0].name)
		}
	}
	w.fwd = w.planForward()
	loop, err := f.sub(func() error { return f.windowLoop(w) })
	if err != nil {
		return err
	}
	if call, ok := f.outline(loop, w.body, w.wins); ok {
		f.printf("%s", call)
	} else {
		f.printf("%s", loop)
	}
	f.printf("} else {\n")
	if err := plain(); err != nil {
		return err
	}
	f.printf("}\n")
	return nil
}

// windowLoop emits the loop of a windowed run over the strip's threads.
func (f *fn) windowLoop(w *windowPlan) error {
	if len(w.wins) > 0 {
		f.printf("for %s := 0; %s <= len(%s)-4; %s += 4 {\n", winK, winK, w.wins[0].name, winK)
		f.printf("agTx := agS0 + uint32(%s)/4\n_ = agTx\n", winK)
		for _, win := range w.wins {
			f.printf("%s := %s[%s : %s+4 : %s+4]\n_ = %s\n", win.view, win.name, winK, winK, winK, win.view)
		}
	} else {
		f.printf("for agTx := agS0; agTx < agS1; agTx++ {\n")
	}
	if err := f.lanePureDecls(w.body); err != nil {
		return err
	}
	saved := f.win
	f.win = w
	f.depth++
	err := f.stmts(w.body)
	f.depth--
	f.win = saved
	if err != nil {
		return err
	}
	for _, s := range w.body {
		if d, ok := s.(*ir.Decl); ok && !w.fwd.has(d.Var) {
			f.printf("_ = %s\n", f.names[d.Var])
		}
	}
	f.printf("}\n")
	return nil
}

// dedupe returns list without repeats, in order.
func dedupe(list []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range list {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// windowLoad4 returns the windowed form of a Load4, if it has one.
func (f *fn) windowLoad4(x *ir.CallBuiltin) (string, bool) {
	if f.win == nil {
		return "", false
	}
	win := f.win.views[x]
	if win == nil {
		return "", false
	}
	v := win.view
	return fmt.Sprintf("%sFloat4{X: %s[0], Y: %s[1], Z: %s[2], W: %s[3]}", f.e.kernelPkg(), v, v, v, v), true
}

// windowStore4 emits the windowed form of a Store4, if it has one.
func (f *fn) windowStore4(s *ir.Store4) (bool, error) {
	if f.win == nil {
		return false, nil
	}
	win := f.win.views[s]
	if win == nil {
		return false, nil
	}
	val, err := f.expr(s.Value)
	if err != nil {
		return true, err
	}
	v := win.view
	if f.win.fwd != nil && f.win.fwd.store == s {
		return true, f.storeLanes(s, v)
	}
	f.printf("{\nagT := %s\n%s[0], %s[1], %s[2], %s[3] = agT.X, agT.Y, agT.Z, agT.W\n}\n", val, v, v, v, v)
	return true, nil
}
