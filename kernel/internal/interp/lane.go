package interp

import (
	"unsafe"

	"github.com/anygpu/gpu/kernel/internal/ir"
)

// grp is one work group while a kernel runs in the lane model: every thread
// is a lane, with a frame of its own (the frames are contiguous, stride
// bytes apart, one more at the end as scratch); uniform variables live once
// in the uniform frame. Statements run for all active lanes before the next
// statement starts.
type grp struct {
	n      int
	size   [3]int         // the group size the lane ids were computed for
	frames []uint64       // n+1 lane frames
	mem    unsafe.Pointer // &frames[0]
	uframe []uint64       // the uniform frame
	t      thread         // scratch thread: uniform code runs on it
	lane   thread         // per-lane fallback code runs on it, mem moved lane by lane
	ctl    []ctl          // how each lane left the statement that ended it early
	lists  [][]int32      // the active-lane lists of the compiled constructs, n each
	all    []int32        // 0..n-1
	shared []uint64       // the group's shared memory
	bufs   []view         // the call's buffers
	// affOK bit b set: the lane id b is affBase[b] plus the lane's index
	// in this group (see affineIDs).
	affOK   uint32
	affBase [ir.GlobalZ + 1]uint32
}

// lcode computes a value into its lane-frame slot for the active lanes.
type lcode func(g *grp, act []int32)

// lstmt runs a statement for the active lanes act (sorted, never empty) and
// returns those that go on to the next statement: act itself, or a list
// the statement owns. It never changes act.
type lstmt func(g *grp, act []int32) []int32

// lval is a compiled expression of the lane model: a uniform value (a val
// of the scalar compiler, run once on the scratch thread), or a varying one
// that lives at off in every lane frame once code (nil for a variable or
// id: nothing to compute) has run.
type lval struct {
	k    kind
	uni  any // val[T]; nil when varying
	off  uintptr
	code lcode
}

func (v lval) uniform() bool { return v.uni != nil }

// run computes v for the active lanes, if it needs computing.
func (v lval) run(g *grp, act []int32) {
	if v.code != nil {
		v.code(g, act)
	}
}

// noDst asks lexpr for a temporary.
const noDst = ^uintptr(0)

// dst returns want, or a new lane-frame temporary of kind k.
func (c *compiler) dst(k kind, want uintptr) uintptr {
	if want != noDst {
		return want
	}
	return c.alloc(k.size())
}

// list reserves an active-lane list for a construct; each compiled
// construct has its own, since none runs inside itself.
func (c *compiler) list() int {
	c.nlists++
	return c.nlists - 1
}

// lstmts compiles a statement list.
func (c *compiler) lstmts(list []ir.Stmt) (lstmt, error) {
	var ss []lstmt
	for _, s := range list {
		f, err := c.lstmt(s)
		if err != nil {
			return nil, err
		}
		if f != nil {
			ss = append(ss, f)
		}
	}
	switch len(ss) {
	case 0:
		return func(_ *grp, act []int32) []int32 { return act }, nil
	case 1:
		return ss[0], nil
	}
	return func(g *grp, act []int32) []int32 {
		for _, s := range ss {
			if act = s(g, act); len(act) == 0 {
				return act
			}
		}
		return act
	}, nil
}

// lstmt compiles one statement; nil means nothing to run.
func (c *compiler) lstmt(s ir.Stmt) (lstmt, error) {
	switch s := s.(type) {
	case *ir.Decl:
		return c.ldecl(s)
	case *ir.Assign:
		return c.lassign(s)
	case *ir.If:
		return c.lif(s)
	case *ir.For:
		return c.lfor(s)
	case *ir.Break:
		return leave(ctlBreak), nil
	case *ir.Continue:
		return leave(ctlContinue), nil
	case *ir.Return:
		if s.Value != nil {
			return nil, errorf(s.Pos, "a kernel returns no value")
		}
		return leave(ctlReturn), nil
	case *ir.Block:
		return c.lstmts(s.Body)
	case *ir.Barrier:
		// Lanes run in step, statement by statement: every access before
		// the barrier is done before any after it starts.
		return nil, nil
	case *ir.MatMulAdd:
		return c.lmatMul(s)
	case nil:
		return nil, nil
	}
	return c.perLane(s)
}

// leave ends the statement list for the active lanes, recording how.
func leave(how ctl) lstmt {
	return func(g *grp, act []int32) []int32 {
		for _, i := range act {
			g.ctl[i] = how
		}
		return act[:0]
	}
}

// perLane runs a statement of the scalar compiler lane by lane (stores into
// local arrays or vector lanes, Store4, calls and atomics for their effects).
func (c *compiler) perLane(s ir.Stmt) (lstmt, error) {
	f, err := c.stmt(s)
	if err != nil || f == nil {
		return nil, err
	}
	stride := c.stride()
	return func(g *grp, act []int32) []int32 {
		t := &g.lane
		for _, i := range act {
			t.mem = unsafe.Add(g.mem, uintptr(i)*stride.v)
			f(t)
		}
		return act
	}, nil
}

// strideRef is the lane-frame stride, known once the whole kernel is
// compiled (closures capture the pointer).
type strideRef struct{ v uintptr }

func (c *compiler) stride() *strideRef { return c.strideRef }

// ldecl declares a local: uniform in the uniform frame, varying in each
// lane's frame.
func (c *compiler) ldecl(s *ir.Decl) (lstmt, error) {
	if _, isArr := s.Var.Type.(*ir.Array); isArr {
		return c.perLane(s)
	}
	k, err := kindOf(s.Var.Type)
	if err != nil {
		return nil, errorf(s.Pos, "%s: %v", s.Var.Name, err)
	}
	if !c.varying[s.Var] {
		var init any
		if s.Init != nil {
			if init, err = c.typed(s.Init, k, s.Var); err != nil {
				return nil, err
			}
		}
		off := c.ualloc(k.size())
		c.uvars[s.Var] = off
		return c.uniformStore(k, off, init), nil
	}
	if s.Init == nil {
		off := c.alloc(k.size())
		c.vars[s.Var] = off
		return c.laneStore(k, off, lval{}), nil
	}
	if ik, err := kindOf(s.Init.ExprType()); err != nil || ik != k {
		return nil, errorf(s.Pos, "%s of type %v initialised with a %v", s.Var.Name, s.Var.Type, s.Init.ExprType())
	}
	if c.aliasable(s.Var, s.Init) {
		v, err := c.lexpr(s.Init, noDst)
		if err != nil {
			return nil, err
		}
		if !v.uniform() && v.code == nil {
			c.vars[s.Var] = v.off
			return nil, nil
		}
		off := c.alloc(k.size())
		c.vars[s.Var] = off
		return c.laneStore(k, off, v), nil
	}
	off := c.alloc(k.size())
	v, err := c.lexpr(s.Init, off)
	if err != nil {
		return nil, err
	}
	c.vars[s.Var] = off
	return c.laneStore(k, off, v), nil
}

// typed compiles e as a uniform value of kind k for v.
func (c *compiler) typed(e ir.Expr, k kind, v *ir.Var) (any, error) {
	x, ek, err := c.exprKind(e)
	if err != nil {
		return nil, err
	}
	if ek != k {
		return nil, errorf(e.ExprPos(), "%s of type %v given a %v", v.Name, v.Type, e.ExprType())
	}
	return x, nil
}

// lassign stores a value in a local or an element.
func (c *compiler) lassign(s *ir.Assign) (lstmt, error) {
	switch p := s.Place.(type) {
	case *ir.Ref:
		k, err := kindOf(p.Var.Type)
		if err != nil {
			return nil, errorf(s.Pos, "cannot assign to %s here", p.Var.Name)
		}
		if off, ok := c.uvars[p.Var]; ok {
			v, err := c.typed(s.Value, k, p.Var)
			if err != nil {
				return nil, err
			}
			return c.uniformStore(k, off, v), nil
		}
		off, ok := c.vars[p.Var]
		if !ok {
			return nil, errorf(s.Pos, "cannot assign to %s here", p.Var.Name)
		}
		if vk, err := kindOf(s.Value.ExprType()); err != nil || vk != k {
			return nil, errorf(s.Pos, "assigning a %v to %s of type %v", s.Value.ExprType(), p.Var.Name, p.Var.Type)
		}
		v, err := c.lexpr(s.Value, off)
		if err != nil {
			return nil, err
		}
		return c.laneStore(k, off, v), nil
	case *ir.Index:
		if st, ok, err := c.lstoreElem(p, s.Value); ok || err != nil {
			return st, err
		}
	}
	return c.perLane(s)
}

// uniformStore stores the uniform value v (nil: zero) at off of the uniform frame.
func (c *compiler) uniformStore(k kind, off uintptr, v any) lstmt {
	if v == nil {
		n := k.size()
		return func(g *grp, act []int32) []int32 {
			clear(unsafe.Slice((*byte)(unsafe.Add(g.t.u, off)), n))
			return act
		}
	}
	st := uniStore(k, off, v)
	return func(g *grp, act []int32) []int32 { st(&g.t); return act }
}

// laneStore makes the varying value v (zero when v is empty) land at off of
// every active lane's frame.
func (c *compiler) laneStore(k kind, off uintptr, v lval) lstmt {
	stride := c.stride()
	switch {
	case v.uni == nil && v.code == nil && v.k == kInvalid: // zero
		var zero lcode
		switch k.size() {
		case 1:
			zero = laneZero[uint8](off, stride)
		case 4:
			zero = laneZero[uint32](off, stride)
		case 8:
			zero = laneZero[uint64](off, stride)
		default:
			zero = laneZero[vec4](off, stride)
		}
		return func(g *grp, act []int32) []int32 { zero(g, act); return act }
	case v.uniform():
		b := broadcast(k, off, v.uni, stride)
		return func(g *grp, act []int32) []int32 { b(g, act); return act }
	case v.off == off:
		code := v.code
		if code == nil {
			return nil
		}
		return func(g *grp, act []int32) []int32 { code(g, act); return act }
	}
	cp := laneCopy(k, off, v.off, stride)
	code := v.code
	return func(g *grp, act []int32) []int32 {
		if code != nil {
			code(g, act)
		}
		cp(g, act)
		return act
	}
}

// lif runs Then for the lanes whose condition holds and Else for the others.
func (c *compiler) lif(s *ir.If) (lstmt, error) {
	cf, split, err := c.lcond(s.Cond)
	if err != nil {
		return nil, err
	}
	then, err := c.lstmts(s.Then)
	if err != nil {
		return nil, err
	}
	els, err := c.lstmts(s.Else)
	if err != nil {
		return nil, err
	}
	if cf != nil {
		return func(g *grp, act []int32) []int32 {
			if cf(&g.t) {
				return then(g, act)
			}
			return els(g, act)
		}, nil
	}
	yesL, noL, outL := c.list(), c.list(), c.list()
	exit, hasElse := exits(s.Then) || exits(s.Else), len(s.Else) > 0
	return func(g *grp, act []int32) []int32 {
		var noBuf []int32
		if hasElse {
			noBuf = g.lists[noL][:len(act)]
		}
		yes, no := split(g, act, g.lists[yesL][:len(act)], noBuf)
		if len(yes) > 0 {
			then(g, yes)
		}
		if len(no) > 0 && hasElse {
			els(g, no)
		}
		if !exit {
			return act
		}
		return g.running(act, outL)
	}, nil
}

// running returns the lanes of act still running (ctl none), in list l.
func (g *grp) running(act []int32, l int) []int32 {
	out := g.lists[l][:0]
	for _, i := range act {
		if g.ctl[i] == ctlNone {
			out = append(out, i)
		}
	}
	return out
}

// lfor runs a loop: each iteration runs the lanes still in it; a lane
// leaves when its condition fails or it breaks or returns, and comes back
// (unless it returned) when the loop ends.
func (c *compiler) lfor(s *ir.For) (lstmt, error) {
	var init, post lstmt
	var err error
	if s.Init != nil {
		if init, err = c.lstmt(s.Init); err != nil {
			return nil, err
		}
	}
	var cf func(*thread) bool
	var split splitter
	if s.Cond != nil {
		if cf, split, err = c.lcond(s.Cond); err != nil {
			return nil, err
		}
	}
	body, err := c.lstmts(s.Body)
	if err != nil {
		return nil, err
	}
	if s.Post != nil {
		if post, err = c.lstmt(s.Post); err != nil {
			return nil, err
		}
	}
	exit := exits(s.Body)
	ucond := split == nil
	liveL, outL := c.list(), c.list()
	return func(g *grp, act []int32) []int32 {
		if init != nil {
			init(g, act)
		}
		live := act
		if !ucond || exit {
			live = g.lists[liveL][:len(act)]
			copy(live, act)
		}
		for {
			if cf != nil && !cf(&g.t) {
				break
			}
			if !ucond {
				if live, _ = split(g, live, live, nil); len(live) == 0 {
					break
				}
			}
			body(g, live)
			if exit {
				n := 0
				for _, i := range live {
					switch g.ctl[i] {
					case ctlNone:
					case ctlContinue:
						g.ctl[i] = ctlNone
					default: // broke (kept until the loop ends) or returned
						continue
					}
					live[n] = i
					n++
				}
				live = live[:n]
				if n == 0 {
					break
				}
			}
			if post != nil {
				post(g, live)
			}
		}
		if !exit {
			return act
		}
		out := g.lists[outL][:0]
		for _, i := range act {
			switch g.ctl[i] {
			case ctlBreak:
				g.ctl[i] = ctlNone
			case ctlReturn:
				continue
			}
			out = append(out, i)
		}
		return out
	}, nil
}
