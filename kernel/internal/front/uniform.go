package front

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/anygpu/gpu/kernel/internal/ir"
)

// Barrier uniformity: every thread of a group must reach the same Barrier,
// so every If and For around one must have a uniform condition (the same for
// the whole group), and no thread may return early before one.
//
// A value is varying when it reads a thread index (ThreadX..Z, ThreadIndex,
// GlobalX..Z), an element of a buffer or a shared array, an atomic's result,
// a helper that reads a thread index, or a varying local. A local is varying
// when any assignment to it reads a varying value or runs under varying
// control flow (an If or For with a varying condition, or a loop that some
// threads may leave early through a break or continue under a varying
// condition). The analysis iterates to a fixed point over the function.

// varying is why a value varies between the threads of a group: the name of
// what it reads and the root cause with its position.
type varying struct {
	name, cause string
	exit        bool // a loop's early exit: name says where
	// seq orders the causes: 0 for a value read directly, else the order
	// in which the variable read was found varying (earlier is closer to
	// the root cause).
	seq int
}

// uniformity is the analysis of one kernel.
type uniformity struct {
	l       *loader
	why     map[*ir.Var]string // varying locals and parameters: their root cause
	seq     map[*ir.Var]int    // the order in which they were found
	helpers map[*ir.Func]string
	changed bool
}

// checkUniform reports Barriers under varying control flow and early
// returns under varying control flow before a Barrier.
func (l *loader) checkUniform(fn *ir.Func) {
	if !fn.Barriers && fn.Features&ir.Subgroup == 0 {
		return
	}
	u := &uniformity{l: l, why: map[*ir.Var]string{}, seq: map[*ir.Var]int{}, helpers: map[*ir.Func]string{}}
	for {
		u.changed = false
		u.taint(fn.Body, "")
		if !u.changed {
			break
		}
	}
	c := &barrierCheck{u: u}
	c.check(fn.Body)
	c.returns()
}

// at is a position as line:col.
func at(p ir.Pos) string { return fmt.Sprintf("%d:%d", p.Line, p.Col) }

// reason is why e varies, or nil when it is uniform.
func (u *uniformity) reason(e ir.Expr) *varying {
	if e == nil {
		return nil
	}
	leaf := func(name string, p ir.Pos) *varying { return &varying{name: name, cause: name + " at " + at(p)} }
	switch x := e.(type) {
	case *ir.Const:
		return nil
	case *ir.Ref:
		if c, ok := u.why[x.Var]; ok {
			return &varying{name: x.Var.Name, cause: c, seq: u.seq[x.Var]}
		}
		return nil
	case *ir.Index:
		root := x.X
		for {
			in, ok := root.(*ir.Index)
			if !ok {
				break
			}
			root = in.X
		}
		if ref, ok := root.(*ir.Ref); ok {
			switch {
			case ref.Var.Class == ir.Shared:
				return leaf("an element of shared array "+ref.Var.Name, x.Pos)
			case isSlice(ref.Var.Type):
				return leaf("an element of buffer "+ref.Var.Name, x.Pos)
			}
		}
		if r := u.reason(x.X); r != nil {
			return r
		}
		return u.reason(x.Index)
	case *ir.CallBuiltin:
		switch {
		case x.Builtin.IsID() && !uniformID(x.Builtin), x.Builtin == ir.SubgroupInvocationID:
			return leaf("kernel."+x.Builtin.String()+"()", x.Pos)
		case x.Builtin == ir.Load4:
			return leaf("kernel.Load4", x.Pos)
		}
		for _, a := range x.Args {
			if r := u.reason(a); r != nil {
				return r
			}
		}
		return nil
	case *ir.Atomic:
		return leaf("the result of an atomic", x.Pos)
	case *ir.Call:
		for _, a := range x.Args {
			if r := u.reason(a); r != nil {
				return r
			}
		}
		if c := u.helperVaries(x.Func); c != "" {
			return &varying{name: "helper " + x.Func.Name, cause: c}
		}
		return nil
	case *ir.Lane:
		return u.reason(x.X)
	case *ir.MakeVec:
		for _, a := range x.Elems {
			if r := u.reason(a); r != nil {
				return r
			}
		}
	case *ir.Unary:
		return u.reason(x.X)
	case *ir.Binary:
		rx, ry := u.reason(x.X), u.reason(x.Y)
		if rx == nil || ry != nil && ry.seq < rx.seq {
			return ry
		}
		return rx
	case *ir.Convert:
		return u.reason(x.X)
	}
	return nil
}

// uniformID reports whether b is the same for a whole group.
func uniformID(b ir.Builtin) bool {
	switch b {
	case ir.GroupX, ir.GroupY, ir.GroupZ, ir.GroupSizeX, ir.GroupSizeY, ir.GroupSizeZ, ir.GridX, ir.GridY, ir.GridZ:
		return true
	}
	return false
}

// helperVaries is why helper fn's result varies by itself (it reads a thread
// index), or "".
func (u *uniformity) helperVaries(fn *ir.Func) string {
	if c, ok := u.helpers[fn]; ok {
		return c
	}
	u.helpers[fn] = ""
	cause := ""
	ir.WalkStmts(fn.Body, nil, func(e ir.Expr) {
		if cause != "" {
			return
		}
		switch x := e.(type) {
		case *ir.CallBuiltin:
			if x.Builtin.IsID() && !uniformID(x.Builtin) {
				cause = "kernel." + x.Builtin.String() + "() at " + at(x.Pos)
			}
		case *ir.Call:
			cause = u.helperVaries(x.Func)
		}
	})
	u.helpers[fn] = cause
	return cause
}

// mark records that v varies because of cause.
func (u *uniformity) mark(v *ir.Var, cause string) {
	if v == nil || v.Class == ir.Shared || isSlice(v.Type) {
		return
	}
	if _, ok := u.why[v]; !ok {
		u.why[v] = cause
		u.seq[v] = len(u.seq) + 1
		u.changed = true
	}
}

// placeVar is the variable a place assigns (the array of an element).
func placeVar(e ir.Expr) *ir.Var {
	switch x := e.(type) {
	case *ir.Ref:
		return x.Var
	case *ir.Index:
		return placeVar(x.X)
	case *ir.Lane:
		return placeVar(x.X)
	}
	return nil
}

// taint marks the variables that vary in list; ctl is the cause of the
// varying control flow the list runs under, or "".
func (u *uniformity) taint(list []ir.Stmt, ctl string) {
	for _, s := range list {
		switch s := s.(type) {
		case *ir.Decl:
			if r := u.reason(s.Init); r != nil {
				u.mark(s.Var, r.cause)
			} else if ctl != "" {
				u.mark(s.Var, ctl)
			}
		case *ir.Assign:
			v := placeVar(s.Place)
			r := u.reason(s.Value)
			if r == nil {
				if ix, ok := s.Place.(*ir.Index); ok {
					r = u.reason(ix.Index)
				}
			}
			if r != nil {
				u.mark(v, r.cause)
			} else if ctl != "" {
				u.mark(v, ctl)
			}
		case *ir.If:
			inner := ctl
			if r := u.reason(s.Cond); r != nil && inner == "" {
				inner = r.cause
			}
			u.taint(s.Then, inner)
			u.taint(s.Else, inner)
		case *ir.For:
			if s.Init != nil {
				u.taint([]ir.Stmt{s.Init}, ctl)
			}
			inner := ctl
			if inner == "" {
				if r := u.loopReason(s); r != nil {
					inner = r.cause
				}
			}
			if s.Post != nil {
				u.taint([]ir.Stmt{s.Post}, inner)
			}
			u.taint(s.Body, inner)
		case *ir.Block:
			u.taint(s.Body, ctl)
		case *ir.MMA:
			u.mark(placeVar(s.C), "the result of kernel.MMA at "+at(s.Pos))
		case *ir.LoadMatrices:
			u.mark(placeVar(s.Frag), "the result of kernel.LoadMatrices at "+at(s.Pos))
		}
	}
}

// loopReason is why the iterations of loop s differ between threads: its
// condition, or a break or continue under a varying condition.
func (u *uniformity) loopReason(s *ir.For) *varying {
	r := u.reason(s.Cond)
	if r != nil && r.seq == 0 {
		return r
	}
	if e := u.exits(s.Body, nil); e != nil {
		return e
	}
	return r
}

// exits finds a break or continue of the loop whose body is list under a
// varying condition (cond, the innermost enclosing one, or nil).
func (u *uniformity) exits(list []ir.Stmt, cond *varying) *varying {
	for _, s := range list {
		switch s := s.(type) {
		case *ir.Break, *ir.Continue:
			if cond != nil {
				what := "break"
				if _, ok := s.(*ir.Continue); ok {
					what = "continue"
				}
				return &varying{name: fmt.Sprintf("a %s at %s under a condition that reads %s", what, at(s.StmtPos()), describe(cond)),
					cause: cond.cause, exit: true}
			}
		case *ir.If:
			c := cond
			if r := u.reason(s.Cond); r != nil && c == nil {
				c = r
			}
			if r := u.exits(s.Then, c); r != nil {
				return r
			}
			if r := u.exits(s.Else, c); r != nil {
				return r
			}
		case *ir.Block:
			if r := u.exits(s.Body, cond); r != nil {
				return r
			}
		}
	}
	return nil
}

// barrierCheck walks a kernel with the control flow around each statement.
type barrierCheck struct {
	u        *uniformity
	encl     []enclosing
	barriers []barrierAt
	rets     []returnAt
}

// enclosing is an If or For around the statement being checked.
type enclosing struct {
	what string // "if" or "for loop"
	pos  ir.Pos
	why  *varying
	loop bool
}

type barrierAt struct {
	pos   ir.Pos
	what  string   // "Barrier" or the subgroup operation's name
	loops []ir.Pos // the loops around it
}

type returnAt struct {
	pos   ir.Pos
	why   *varying
	loops []ir.Pos
}

func (c *barrierCheck) loops() []ir.Pos {
	var ps []ir.Pos
	for _, e := range c.encl {
		if e.loop {
			ps = append(ps, e.pos)
		}
	}
	return ps
}

// check walks list.
func (c *barrierCheck) check(list []ir.Stmt) {
	for _, s := range list {
		switch s := s.(type) {
		case *ir.If:
			c.subgroupOps(s.Cond)
			c.encl = append(c.encl, enclosing{what: "if", pos: s.Pos, why: c.u.reason(s.Cond)})
			c.check(s.Then)
			c.check(s.Else)
			c.encl = c.encl[:len(c.encl)-1]
		case *ir.For:
			if s.Init != nil {
				c.check([]ir.Stmt{s.Init})
			}
			c.encl = append(c.encl, enclosing{what: "for loop", pos: s.Pos, why: c.u.loopReason(s), loop: true})
			c.subgroupOps(s.Cond)
			if s.Post != nil {
				c.check([]ir.Stmt{s.Post})
			}
			c.check(s.Body)
			c.encl = c.encl[:len(c.encl)-1]
		case *ir.Block:
			c.check(s.Body)
		case *ir.Barrier:
			c.sync(s.Pos, "Barrier")
		case *ir.MatMulAdd:
			what := "MatMulAdd"
			if s.From != nil {
				what = "MatMulAddFrom"
				c.uniformArgs(s)
			}
			c.sync(s.Pos, what)
		case *ir.MMA:
			c.sync(s.Pos, "MMA")
		case *ir.LoadMatrices:
			c.sync(s.Pos, "LoadMatrices"+strconv.Itoa(s.N))
		case *ir.Return:
			c.subgroupOps(s.Value)
			for _, e := range c.encl {
				if e.why != nil {
					c.rets = append(c.rets, returnAt{pos: s.Pos, why: e.why, loops: c.loops()})
					break
				}
			}
		default:
			ir.WalkStmt(s, nil, func(e ir.Expr) { c.subgroupOps(e) })
		}
	}
}

// subgroupOps checks the subgroup operations in e (not nested ones: the
// callers walk every expression).
func (c *barrierCheck) subgroupOps(e ir.Expr) {
	if b, ok := e.(*ir.CallBuiltin); ok && b.Builtin.IsSubgroup() && b.Builtin != ir.SubgroupSize && b.Builtin != ir.SubgroupInvocationID {
		c.sync(b.Pos, b.Builtin.String())
	}
}

// sync checks a Barrier or a subgroup operation (what) at pos, which every
// thread of the group must reach.
func (c *barrierCheck) sync(pos ir.Pos, what string) {
	c.barriers = append(c.barriers, barrierAt{pos: pos, what: what, loops: c.loops()})
	for _, e := range c.encl {
		if e.why != nil {
			msg := fmt.Sprintf("kernel.%s inside the %s at %s, whose condition varies between the threads of a group: it reads %s",
				what, e.what, at(e.pos), describe(e.why))
			if e.why.exit {
				msg = fmt.Sprintf("kernel.%s inside the %s at %s, which some threads may leave early: %s", what, e.what, at(e.pos), e.why.name)
			}
			hint := "every thread of a group must reach the same Barrier: make the condition depend only on parameters, constants and group indices and sizes, or move the Barrier out"
			switch what {
			case "Barrier":
			case "MatMulAdd", "MatMulAddFrom", "MMA", "LoadMatrices4", "LoadMatrices2":
				hint = "every thread of a group must call kernel." + what + " together (as it does a Barrier): make the condition depend only on parameters, constants and group indices and sizes, or move the call out"
			default:
				hint = "every thread of a subgroup must call kernel." + what + " together, in control flow that is the same for the whole group (as for Barrier): compute the value under the condition and call it outside"
			}
			c.u.l.errs = append(c.u.l.errs, &Error{Pos: pos, Msg: msg, Hint: hint})
			break
		}
	}
}

// uniformArgs reports the offsets and strides of a MatMulAddFrom that vary
// between the threads of a group: the group multiplies once, with one
// value of each.
func (c *barrierCheck) uniformArgs(s *ir.MatMulAdd) {
	names := []string{"aOff", "lda", "bOff", "ldb"}
	for i, x := range s.From.Exprs() {
		if why := c.u.reason(x); why != nil {
			c.u.l.errs = append(c.u.l.errs, &Error{Pos: x.ExprPos(),
				Msg:  fmt.Sprintf("kernel.MatMulAddFrom's %s varies between the threads of a group: it reads %s", names[i], describe(why)),
				Hint: "compute it from parameters, constants and group indices and sizes only: the group multiplies once, with one value"})
		}
	}
}

// describe names a varying value with its cause.
func describe(r *varying) string {
	if strings.HasPrefix(r.cause, r.name+" at ") {
		return r.cause
	}
	return fmt.Sprintf("%s, which comes from %s", r.name, r.cause)
}

// describeAny describes a varying condition or loop exit.
func describeAny(r *varying) string {
	if r.exit {
		return r.name
	}
	return describe(r)
}

// before reports whether a comes before b in the source.
func before(a, b ir.Pos) bool {
	if a.File != b.File {
		return a.File < b.File
	}
	return a.Line < b.Line || a.Line == b.Line && a.Col < b.Col
}

// returns reports early returns under varying control flow that some
// Barrier follows (later in the kernel, or in a loop around the return).
func (c *barrierCheck) returns() {
	for _, r := range c.rets {
		var hit *barrierAt
		for i := range c.barriers {
			b := &c.barriers[i]
			if before(r.pos, b.pos) || sharesLoop(r.loops, b.loops) {
				hit = b
				break
			}
		}
		if hit == nil {
			continue
		}
		c.u.l.errs = append(c.u.l.errs, &Error{Pos: r.pos,
			Msg:  fmt.Sprintf("a thread that returns early never reaches the %s at %s (the return depends on %s)", hit.what, at(hit.pos), describeAny(r.why)),
			Hint: "guard the work with if instead"})
	}
}

// sharesLoop reports whether a loop encloses both.
func sharesLoop(a, b []ir.Pos) bool {
	for _, p := range a {
		for _, q := range b {
			if p == q {
				return true
			}
		}
	}
	return false
}
