package interp

import (
	"github.com/anygpu/gpu/kernel/internal/ir"
)

// inline compiles a call of a helper at its call site: the helper's
// parameters, locals and result get slots of their own in the caller's frame
// (helpers do not recurse), the arguments are stored in the parameter slots
// and the body runs. It returns the statement that does the call and the
// result's slot.
func (c *compiler) inline(e *ir.Call) (stmt, uintptr, kind, error) {
	f := e.Func
	if f == nil || f.Kernel {
		return nil, 0, kInvalid, errorf(e.Pos, "call of a kernel or of nothing")
	}
	if c.depth >= maxInlineDepth {
		return nil, 0, kInvalid, errorf(e.Pos, "helper calls nested more than %d deep", maxInlineDepth)
	}
	if len(e.Args) != len(f.Params) {
		return nil, 0, kInvalid, errorf(e.Pos, "%s takes %d arguments, not %d", f.Name, len(f.Params), len(e.Args))
	}
	// Arguments are evaluated in the caller's scope, into temporaries first,
	// so that an argument that itself calls f sees its own instance.
	stores := make([]stmt, 0, 2*len(e.Args))
	var temps []uintptr
	var kinds []kind
	for _, a := range e.Args {
		v, k, err := c.exprKind(a)
		if err != nil {
			return nil, 0, kInvalid, err
		}
		off := c.alloc(k.size())
		stores = append(stores, storeSlot(k, off, v))
		temps = append(temps, off)
		kinds = append(kinds, k)
	}
	saved, savedHelper := c.vars, c.helper
	c.vars = map[*ir.Var]uintptr{}
	c.depth++
	defer func() { c.vars, c.helper = saved, savedHelper; c.depth-- }()
	for i, p := range f.Params {
		k, err := kindOf(p.Type)
		if err != nil || k != kinds[i] {
			return nil, 0, kInvalid, errorf(e.Pos, "argument %d of %s: a %v for a %v", i+1, f.Name, e.Args[i].ExprType(), p.Type)
		}
		off := c.alloc(k.size())
		c.vars[p] = off
		stores = append(stores, storeSlot(k, off, slotOf(k, temps[i])))
	}
	h := &helperCtx{}
	if f.Result != nil {
		k, err := kindOf(f.Result)
		if err != nil {
			return nil, 0, kInvalid, errorf(f.Pos, "%s: result: %v", f.Name, err)
		}
		h.kind, h.res, h.has = k, c.alloc(k.size()), true
	}
	c.helper = h
	body, err := c.stmts(f.Body)
	if err != nil {
		return nil, 0, kInvalid, err
	}
	args := seq(stores)
	return func(t *thread) ctl {
		args(t)
		body(t)
		return ctlNone
	}, h.res, h.kind, nil
}

// call is a helper call as an expression: its result.
func (c *compiler) call(e *ir.Call) (any, error) {
	if e.Func == nil || e.Func.Result == nil {
		return nil, errorf(e.Pos, "a call without a result used as a value")
	}
	run, res, k, err := c.inline(e)
	if err != nil {
		return nil, err
	}
	switch k {
	case kBool:
		return callVal[bool](run, res), nil
	case kI32:
		return callVal[int32](run, res), nil
	case kU32:
		return callVal[uint32](run, res), nil
	case kF32:
		return callVal[float32](run, res), nil
	case kI64:
		return callVal[int64](run, res), nil
	case kU64:
		return callVal[uint64](run, res), nil
	case kF64:
		return callVal[float64](run, res), nil
	case kVec4:
		return callVal[vec4](run, res), nil
	}
	return nil, errorf(e.Pos, "result of %s of type %v", e.Func.Name, e.Func.Result)
}

func callVal[T any](run stmt, res uintptr) val[T] {
	return fnVal(func(t *thread) T {
		run(t)
		return ld[T](t, res)
	})
}

// callStmt is a call of a helper without a result.
func (c *compiler) callStmt(e *ir.Call) (stmt, error) {
	run, _, _, err := c.inline(e)
	return run, err
}
