package interp

import (
	"sync"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/kernel/internal/ir"
)

// The dense path of an element-wise kernel of the form
//
//	i := kernel.GlobalX()
//	if i < n { y[i] = expr; ... }     (or: if i >= n { return }; y[i] = expr; ...)
//
// where every statement stores into a float32 buffer at i an expression of
// float32 buffers read at i, float32 scalar parameters, constants and + - * /
// and negation: a 1-D group's threads that pass the guard are the elements
// [lo, hi) of every buffer, so each operation is one loop over those
// elements, reading the buffers in place and writing a temporary of the
// group (no lane frames, no lists of lanes). The group falls back to the lane
// model when the arguments do not match the kernel, a buffer is shorter than
// hi (the lane model then reports the index out of range), or the group is
// not 1-D. Each thread touches only element i of each buffer, so running a
// statement for every thread before the next keeps the kernel's meaning.

// denseVal is a value of every thread of the group: a vector over the
// threads, or a scalar the same in all.
type denseVal struct {
	vec    []float32
	s      float32
	scalar bool
}

// denseCtx is the state of one group on the dense path.
type denseCtx struct {
	bufs   [][]float32 // the buffers, re-sliced to [lo, hi)
	params []float32   // the float32 scalar arguments, by parameter index
	temps  [][]float32
	m      int // hi - lo
}

// denseExpr computes an expression for every thread; k numbers its temporary.
type denseExpr func(c *denseCtx) denseVal

// densePlan is a kernel's dense path.
type densePlan struct {
	nParams int
	bufArgs []int   // the argument index of each buffer the path uses
	bound   *ir.Var // the guard's n (a uint32 parameter); nil: a constant
	boundC  uint64  // the constant guard
	stores  []func(c *denseCtx)
	ntemps  int
	pool    sync.Pool
	kinds   []ir.Type // the parameters' types, to check the arguments
}

// planDense returns the dense path of kernel f, or nil.
func planDense(f *ir.Func, assigned map[*ir.Var]bool) *densePlan {
	if f.Barriers || len(f.Shared) > 0 || len(f.Body) < 2 {
		return nil
	}
	d, ok := f.Body[0].(*ir.Decl)
	if !ok || assigned[d.Var] {
		return nil
	}
	if b, ok := d.Init.(*ir.CallBuiltin); !ok || b.Builtin != ir.GlobalX {
		return nil
	}
	i := d.Var
	guard, ok := f.Body[1].(*ir.If)
	if !ok || len(guard.Else) != 0 {
		return nil
	}
	cond, ok := guard.Cond.(*ir.Binary)
	if !ok || !isRefTo(cond.X, i) {
		return nil
	}
	var body []ir.Stmt
	switch {
	case cond.Op == ir.Lt && len(f.Body) == 2:
		body = guard.Then
	case cond.Op == ir.Ge && len(guard.Then) == 1:
		if r, ok := guard.Then[0].(*ir.Return); !ok || r.Value != nil {
			return nil
		}
		body = f.Body[2:]
	default:
		return nil
	}
	p := &densePlan{nParams: len(f.Params)}
	for _, v := range f.Params {
		p.kinds = append(p.kinds, v.Type)
	}
	switch y := cond.Y.(type) {
	case *ir.Ref:
		if y.Var.Class != ir.Param || y.Var.Type != ir.U32 || assigned[y.Var] {
			return nil
		}
		p.bound = y.Var
	case *ir.Const:
		if y.Type != ir.U32 {
			return nil
		}
		p.boundC = y.Uint
	default:
		return nil
	}
	bufIndex := map[*ir.Var]int{}
	buf := func(x ir.Expr) (int, bool) {
		ix, ok := x.(*ir.Index)
		if !ok || !isRefTo(ix.Index, i) {
			return 0, false
		}
		r, ok := ix.X.(*ir.Ref)
		if !ok || r.Var.Class != ir.Param {
			return 0, false
		}
		if s, ok := r.Var.Type.(*ir.Slice); !ok || s.Elem != ir.F32 {
			return 0, false
		}
		k, ok := bufIndex[r.Var]
		if !ok {
			k = len(p.bufArgs)
			bufIndex[r.Var] = k
			p.bufArgs = append(p.bufArgs, r.Var.Index)
		}
		return k, true
	}
	var expr func(x ir.Expr) denseExpr
	expr = func(x ir.Expr) denseExpr {
		if x.ExprType() != ir.F32 {
			return nil
		}
		if k, ok := buf(x); ok {
			return func(c *denseCtx) denseVal { return denseVal{vec: c.bufs[k]} }
		}
		switch x := x.(type) {
		case *ir.Const:
			v := float32(x.Float)
			return func(*denseCtx) denseVal { return denseVal{s: v, scalar: true} }
		case *ir.Ref:
			if x.Var.Class != ir.Param || assigned[x.Var] {
				return nil
			}
			k := x.Var.Index
			return func(c *denseCtx) denseVal { return denseVal{s: c.params[k], scalar: true} }
		case *ir.Unary:
			a := expr(x.X)
			if a == nil || x.Op != ir.Neg {
				return nil
			}
			t := p.ntemps
			p.ntemps++
			return func(c *denseCtx) denseVal {
				v := a(c)
				if v.scalar {
					return denseVal{s: -v.s, scalar: true}
				}
				out := c.temps[t][:len(v.vec)]
				for j, e := range v.vec {
					out[j] = -e
				}
				return denseVal{vec: out}
			}
		case *ir.Binary:
			a, b := expr(x.X), expr(x.Y)
			op := x.Op
			if a == nil || b == nil || (op != ir.Add && op != ir.Sub && op != ir.Mul && op != ir.Div) {
				return nil
			}
			t := p.ntemps
			p.ntemps++
			return func(c *denseCtx) denseVal {
				return denseBinary(op, a(c), b(c), c.temps[t][:c.m])
			}
		}
		return nil
	}
	for _, s := range body {
		a, ok := s.(*ir.Assign)
		if !ok {
			return nil
		}
		k, ok := buf(a.Place)
		if !ok {
			return nil
		}
		v := expr(a.Value)
		if v == nil {
			return nil
		}
		p.stores = append(p.stores, func(c *denseCtx) {
			val, dst := v(c), c.bufs[k]
			if val.scalar {
				for j := range dst {
					dst[j] = val.s
				}
				return
			}
			copy(dst, val.vec)
		})
	}
	if len(p.stores) == 0 {
		return nil
	}
	return p
}

// isRefTo reports whether x reads v.
func isRefTo(x ir.Expr, v *ir.Var) bool {
	r, ok := x.(*ir.Ref)
	return ok && r.Var == v
}

// denseBinary is x op y for every thread, into out (len: the threads).
func denseBinary(op ir.Op, x, y denseVal, out []float32) denseVal {
	switch {
	case x.scalar && y.scalar:
		var v float32
		switch op {
		case ir.Add:
			v = x.s + y.s
		case ir.Sub:
			v = x.s - y.s
		case ir.Mul:
			v = x.s * y.s
		default:
			v = x.s / y.s
		}
		return denseVal{s: v, scalar: true}
	case x.scalar:
		b := y.vec[:len(out)]
		s := x.s
		switch op {
		case ir.Add:
			for j := range out {
				out[j] = s + b[j]
			}
		case ir.Sub:
			for j := range out {
				out[j] = s - b[j]
			}
		case ir.Mul:
			for j := range out {
				out[j] = s * b[j]
			}
		default:
			for j := range out {
				out[j] = s / b[j]
			}
		}
	case y.scalar:
		a := x.vec[:len(out)]
		s := y.s
		switch op {
		case ir.Add:
			for j := range out {
				out[j] = a[j] + s
			}
		case ir.Sub:
			for j := range out {
				out[j] = a[j] - s
			}
		case ir.Mul:
			for j := range out {
				out[j] = a[j] * s
			}
		default:
			for j := range out {
				out[j] = a[j] / s
			}
		}
	default:
		a, b := x.vec[:len(out)], y.vec[:len(out)]
		switch op {
		case ir.Add:
			for j := range out {
				out[j] = a[j] + b[j]
			}
		case ir.Sub:
			for j := range out {
				out[j] = a[j] - b[j]
			}
		case ir.Mul:
			for j := range out {
				out[j] = a[j] * b[j]
			}
		default:
			for j := range out {
				out[j] = a[j] / b[j]
			}
		}
	}
	return denseVal{vec: out}
}

// run runs group g on the dense path, and reports false, having done
// nothing, when the group must take the lane model.
func (p *densePlan) run(g backend.Group, args []backend.Arg) bool {
	size := g.Size.Norm()
	if size.Y != 1 || size.Z != 1 || size.X <= 0 || g.ID.X < 0 || len(args) != p.nParams {
		return false
	}
	for k, a := range args {
		switch t := p.kinds[k]; t {
		case ir.F32:
			if a.Kind != backend.ArgF32 {
				return false
			}
		case ir.U32:
			if a.Kind != backend.ArgU32 {
				return false
			}
		default:
			if _, buf := t.(*ir.Slice); !buf || a.Kind != backend.ArgBuffer {
				return false
			}
			if _, host := a.Buffer.(backend.HostMemory); !host {
				return false
			}
		}
	}
	n := p.boundC
	if p.bound != nil {
		n = uint64(args[p.bound.Index].U32())
	}
	lo, end := uint64(g.ID.X)*uint64(size.X), uint64(size.X)
	if lo+end > 1<<32 {
		return false // GlobalX wraps in this group
	}
	if lo >= n {
		return true
	}
	hi := min(lo+end, n)
	c, _ := p.pool.Get().(*denseCtx)
	if c == nil {
		c = &denseCtx{bufs: make([][]float32, len(p.bufArgs)), params: make([]float32, p.nParams), temps: make([][]float32, p.ntemps)}
	}
	defer p.pool.Put(c)
	c.m = int(hi - lo)
	for k, a := range p.bufArgs {
		b := args[a].Float32s()
		if uint64(len(b)) < hi {
			return false
		}
		c.bufs[k] = b[lo:hi:hi]
	}
	for k, a := range args {
		if a.Kind == backend.ArgF32 {
			c.params[k] = a.F32()
		}
	}
	for t := range c.temps {
		if cap(c.temps[t]) < c.m {
			c.temps[t] = make([]float32, size.X)
		}
	}
	for _, s := range p.stores {
		s(c)
	}
	return true
}
