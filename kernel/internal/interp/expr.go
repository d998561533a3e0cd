package interp

import (
	"fmt"

	"github.com/anygpu/gpu/kernel/internal/ir"
)

// expr compiles e into a val of the Go type of e's kind.
func (c *compiler) expr(e ir.Expr) (any, error) {
	switch e := e.(type) {
	case *ir.Const:
		return c.constant(e)
	case *ir.Ref:
		return c.ref(e)
	case *ir.Index:
		return c.load(e)
	case *ir.Lane:
		return c.lane(e)
	case *ir.MakeVec:
		return c.makeVec(e)
	case *ir.Unary:
		return c.unary(e)
	case *ir.Binary:
		return c.binary(e)
	case *ir.Convert:
		return c.convert(e)
	case *ir.Call:
		return c.call(e)
	case *ir.CallBuiltin:
		return c.builtin(e)
	case *ir.Atomic:
		return c.atomic(e)
	case nil:
		return nil, fmt.Errorf("missing expression")
	}
	return nil, errorf(e.ExprPos(), "expression %T is not supported by the CPU interpreter", e)
}

// exprAs compiles e, which must be of Go type T.
func exprAs[T any](c *compiler, e ir.Expr) (val[T], error) {
	v, err := c.expr(e)
	if err != nil {
		return val[T]{}, err
	}
	tv, ok := v.(val[T])
	if !ok {
		var z T
		return val[T]{}, errorf(e.ExprPos(), "expression of type %v where %T was expected", e.ExprType(), z)
	}
	return tv, nil
}

// exprKind compiles e and returns its kind too.
func (c *compiler) exprKind(e ir.Expr) (any, kind, error) {
	if e == nil {
		return nil, kInvalid, fmt.Errorf("missing expression")
	}
	k, err := kindOf(e.ExprType())
	if err != nil {
		return nil, kInvalid, errorf(e.ExprPos(), "%v", err)
	}
	v, err := c.expr(e)
	return v, k, err
}

// ref reads a scalar or Vec local or parameter.
func (c *compiler) ref(e *ir.Ref) (any, error) {
	if off, ok := c.uvars[e.Var]; ok {
		k, err := kindOf(e.Var.Type)
		if err != nil {
			return nil, errorf(e.Pos, "%s: %v", e.Var.Name, err)
		}
		return uniSlotOf(k, off), nil
	}
	off, ok := c.vars[e.Var]
	if !ok {
		return nil, errorf(e.Pos, "%s is not a scalar local or parameter here", e.Var.Name)
	}
	k, err := kindOf(e.Var.Type)
	if err != nil {
		return nil, errorf(e.Pos, "%s: %v", e.Var.Name, err)
	}
	return slotOf(k, off), nil
}

// lane reads lane N of a Vec.
func (c *compiler) lane(e *ir.Lane) (any, error) {
	if e.N < 0 || e.N > 3 {
		return nil, errorf(e.Pos, "lane %d of a vector", e.N)
	}
	x, err := exprAs[vec4](c, e.X)
	if err != nil {
		return nil, err
	}
	n := e.N
	if x.slot {
		return slotVal[float32](x.off + uintptr(4*n)), nil
	}
	f := x.fn
	return fnVal(func(t *thread) float32 { return f(t)[n] }), nil
}

// makeVec builds a Float4 from its lanes.
func (c *compiler) makeVec(e *ir.MakeVec) (any, error) {
	if _, err := kindOf(e.Type); err != nil {
		return nil, errorf(e.Pos, "%v", err)
	}
	if len(e.Elems) > 4 {
		return nil, errorf(e.Pos, "vector of %d lanes", len(e.Elems))
	}
	var lanes [4]func(*thread) float32
	for i, el := range e.Elems {
		v, err := exprAs[float32](c, el)
		if err != nil {
			return nil, err
		}
		lanes[i] = v.get()
	}
	for i := len(e.Elems); i < 4; i++ {
		lanes[i] = func(*thread) float32 { return 0 }
	}
	a, b, x, y := lanes[0], lanes[1], lanes[2], lanes[3]
	return fnVal(func(t *thread) vec4 { return vec4{a(t), b(t), x(t), y(t)} }), nil
}
