package interp

import (
	"unsafe"

	"github.com/anygpu/gpu/kernel/internal/ir"
)

// stmts compiles a statement list run by one thread.
func (c *compiler) stmts(list []ir.Stmt) (stmt, error) {
	ss := make([]stmt, 0, len(list))
	for _, s := range list {
		f, err := c.stmt(s)
		if err != nil {
			return nil, err
		}
		if f != nil {
			ss = append(ss, f)
		}
	}
	return seq(ss), nil
}

// nop is the empty statement.
func nop(*thread) ctl { return ctlNone }

// seq runs ss in order until one leaves by break, continue or return.
func seq(ss []stmt) stmt {
	switch len(ss) {
	case 0:
		return nop
	case 1:
		return ss[0]
	case 2:
		a, b := ss[0], ss[1]
		return func(t *thread) ctl {
			if r := a(t); r != ctlNone {
				return r
			}
			return b(t)
		}
	case 3:
		a, b, d := ss[0], ss[1], ss[2]
		return func(t *thread) ctl {
			if r := a(t); r != ctlNone {
				return r
			}
			if r := b(t); r != ctlNone {
				return r
			}
			return d(t)
		}
	}
	return func(t *thread) ctl {
		for _, s := range ss {
			if r := s(t); r != ctlNone {
				return r
			}
		}
		return ctlNone
	}
}

// stmt compiles one statement; nil means nothing to run.
func (c *compiler) stmt(s ir.Stmt) (stmt, error) {
	switch s := s.(type) {
	case *ir.Decl:
		return c.decl(s)
	case *ir.Assign:
		return c.assign(s)
	case *ir.ExprStmt:
		return c.exprStmt(s)
	case *ir.If:
		return c.ifStmt(s)
	case *ir.For:
		return c.forStmt(s)
	case *ir.Break:
		return func(*thread) ctl { return ctlBreak }, nil
	case *ir.Continue:
		return func(*thread) ctl { return ctlContinue }, nil
	case *ir.Return:
		return c.ret(s)
	case *ir.Block:
		return c.stmts(s.Body)
	case *ir.Store4:
		return c.store4(s)
	case *ir.Barrier:
		// Only reached in a kernel without barriers, or inside a statement
		// the group-level split keeps per thread: it cannot happen.
		return nil, errorf(s.Pos, "kernel.Barrier() here is not supported by the CPU interpreter")
	case nil:
		return nil, nil
	}
	return nil, errorf(s.StmtPos(), "statement %T is not supported by the CPU interpreter", s)
}

// decl declares a local: a frame slot, or a zeroed region for an array.
func (c *compiler) decl(s *ir.Decl) (stmt, error) {
	n, err := sizeOfType(s.Var.Type)
	if err != nil {
		return nil, errorf(s.Pos, "%s: %v", s.Var.Name, err)
	}
	if _, isArr := s.Var.Type.(*ir.Array); isArr {
		if s.Init != nil {
			return nil, errorf(s.Pos, "initialising the array %s is not supported; assign its elements", s.Var.Name)
		}
		off := c.alloc(n)
		c.vars[s.Var] = off
		return func(t *thread) ctl {
			clear(unsafe.Slice((*byte)(unsafe.Add(t.mem, off)), n))
			return ctlNone
		}, nil
	}
	k, _ := kindOf(s.Var.Type)
	var init any
	if s.Init != nil {
		// The initialiser cannot see the variable (Go scoping), so compile
		// it before the variable exists.
		v, ik, err := c.exprKind(s.Init)
		if err != nil {
			return nil, err
		}
		if ik != k {
			return nil, errorf(s.Pos, "%s of type %v initialised with a %v", s.Var.Name, s.Var.Type, s.Init.ExprType())
		}
		init = v
	}
	if init != nil && c.aliasable(s.Var, s.Init) {
		if off, ok := slotOffset(init); ok {
			c.vars[s.Var] = off
			return nil, nil
		}
	}
	off := c.alloc(n)
	c.vars[s.Var] = off
	if init == nil {
		return func(t *thread) ctl {
			clear(unsafe.Slice((*byte)(unsafe.Add(t.mem, off)), n))
			return ctlNone
		}, nil
	}
	return storeSlot(k, off, init), nil
}

// assign stores a value in a local, an element or a lane.
func (c *compiler) assign(s *ir.Assign) (stmt, error) {
	v, k, err := c.exprKind(s.Value)
	if err != nil {
		return nil, err
	}
	switch p := s.Place.(type) {
	case *ir.Ref:
		off, ok := c.vars[p.Var]
		pk, err := kindOf(p.Var.Type)
		if !ok || err != nil {
			return nil, errorf(s.Pos, "cannot assign to %s here", p.Var.Name)
		}
		if pk != k {
			return nil, errorf(s.Pos, "assigning a %v to %s of type %v", s.Value.ExprType(), p.Var.Name, p.Var.Type)
		}
		return storeSlot(k, off, v), nil
	case *ir.Index:
		pl, err := c.place(p)
		if err != nil {
			return nil, err
		}
		if pl.elem != k {
			return nil, errorf(s.Pos, "assigning a %v to an element of type %v", s.Value.ExprType(), p.Type)
		}
		return c.store(pl, v), nil
	case *ir.Lane:
		r, ok := p.X.(*ir.Ref)
		if !ok || k != kF32 || p.N < 0 || p.N > 3 {
			return nil, errorf(s.Pos, "only a lane of a Float4 local can be assigned")
		}
		off, ok := c.vars[r.Var]
		if !ok {
			return nil, errorf(s.Pos, "%s is not a local here", r.Var.Name)
		}
		return storeSlotT(off+uintptr(4*p.N), v.(val[float32])), nil
	}
	return nil, errorf(s.Pos, "cannot assign to %T", s.Place)
}

// exprStmt evaluates an expression for its effects.
func (c *compiler) exprStmt(s *ir.ExprStmt) (stmt, error) {
	if call, ok := s.X.(*ir.Call); ok && call.Func.Result == nil {
		return c.callStmt(call)
	}
	v, k, err := c.exprKind(s.X)
	if err != nil {
		return nil, err
	}
	switch k {
	case kI32:
		return discard(v.(val[int32])), nil
	case kU32:
		return discard(v.(val[uint32])), nil
	case kF32:
		return discard(v.(val[float32])), nil
	case kI64:
		return discard(v.(val[int64])), nil
	case kU64:
		return discard(v.(val[uint64])), nil
	case kF64:
		return discard(v.(val[float64])), nil
	case kBool:
		return discard(v.(val[bool])), nil
	case kVec4:
		return discard(v.(val[vec4])), nil
	}
	return nil, errorf(s.Pos, "expression statement of type %v", s.X.ExprType())
}

func discard[T any](v val[T]) stmt {
	if v.slot {
		return nil
	}
	f := v.fn
	return func(t *thread) ctl { f(t); return ctlNone }
}

// ifStmt compiles if/else.
func (c *compiler) ifStmt(s *ir.If) (stmt, error) {
	cond, err := exprAs[bool](c, s.Cond)
	if err != nil {
		return nil, err
	}
	then, err := c.stmts(s.Then)
	if err != nil {
		return nil, err
	}
	cf := cond.get()
	if len(s.Else) == 0 {
		return func(t *thread) ctl {
			if cf(t) {
				return then(t)
			}
			return ctlNone
		}, nil
	}
	els, err := c.stmts(s.Else)
	if err != nil {
		return nil, err
	}
	return func(t *thread) ctl {
		if cf(t) {
			return then(t)
		}
		return els(t)
	}, nil
}

// forParts compiles a For's init, condition, post and body.
func (c *compiler) forParts(s *ir.For) (init stmt, cond func(*thread) bool, post stmt, err error) {
	init = nop
	if s.Init != nil {
		if init, err = c.stmt(s.Init); err != nil {
			return
		}
		if init == nil {
			init = nop
		}
	}
	if s.Cond != nil {
		var cv val[bool]
		if cv, err = exprAs[bool](c, s.Cond); err != nil {
			return
		}
		cond = cv.get()
	}
	post = nop
	if s.Post != nil {
		if post, err = c.stmt(s.Post); err != nil {
			return
		}
		if post == nil {
			post = nop
		}
	}
	return
}

// forStmt compiles a loop.
func (c *compiler) forStmt(s *ir.For) (stmt, error) {
	init, cond, post, err := c.forParts(s)
	if err != nil {
		return nil, err
	}
	body, err := c.stmts(s.Body)
	if err != nil {
		return nil, err
	}
	if cond == nil {
		return func(t *thread) ctl {
			init(t)
			for {
				switch body(t) {
				case ctlBreak:
					return ctlNone
				case ctlReturn:
					return ctlReturn
				}
				post(t)
			}
		}, nil
	}
	return func(t *thread) ctl {
		init(t)
		for cond(t) {
			switch body(t) {
			case ctlBreak:
				return ctlNone
			case ctlReturn:
				return ctlReturn
			}
			post(t)
		}
		return ctlNone
	}, nil
}

// ret leaves the kernel (ending the thread) or the inlined helper, storing
// its result.
func (c *compiler) ret(s *ir.Return) (stmt, error) {
	if s.Value == nil {
		return func(*thread) ctl { return ctlReturn }, nil
	}
	if c.helper == nil {
		return nil, errorf(s.Pos, "a kernel returns no value")
	}
	v, k, err := c.exprKind(s.Value)
	if err != nil {
		return nil, err
	}
	if k != c.helper.kind {
		return nil, errorf(s.Pos, "returning a %v", s.Value.ExprType())
	}
	store := storeSlot(k, c.helper.res, v)
	return func(t *thread) ctl { store(t); return ctlReturn }, nil
}

// store4 is kernel.Store4(buf, i, v).
func (c *compiler) store4(s *ir.Store4) (stmt, error) {
	if s.Buf == nil {
		return nil, errorf(s.Pos, "Store4 without a buffer")
	}
	ptr, err := c.buf4(s.Pos, []ir.Expr{s.Buf, s.Index})
	if err != nil {
		return nil, err
	}
	v, err := exprAs[vec4](c, s.Value)
	if err != nil {
		return nil, err
	}
	f := v.get()
	return func(t *thread) ctl {
		p := ptr(t)
		*(*vec4)(p) = f(t)
		return ctlNone
	}, nil
}
