package interp

import (
	"fmt"
	"unsafe"

	"github.com/anygpu/gpu/kernel/internal/ir"
	"github.com/anygpu/gpu/kernel/internal/kmath"
)

// lmatMul compiles a MatMulAdd: the lanes run in step, so the group's
// accesses before it are done when it starts, and it runs once per group
// (package kernel's code, which a plain Go call of the kernel runs too)
// on the group's shared memory.
func (c *compiler) lmatMul(s *ir.MatMulAdd) (lstmt, error) {
	if s.From != nil {
		return c.lmatMulFrom(s)
	}
	views := make([]struct{ off, n uintptr }, 3)
	for i, r := range []*ir.Ref{s.C, s.A, s.B} {
		off, ok := c.shared[r.Var]
		at, isArr := r.Var.Type.(*ir.Array)
		if !ok || !isArr || at.Elem != ir.F32 {
			return nil, errorf(s.Pos, "kernel.MatMulAdd of %s, not a shared float32 array, is not supported by the CPU interpreter", r.Var.Name)
		}
		views[i].off, views[i].n = off, uintptr(at.Len)
	}
	shape := kmath.TileShape{M: s.M, N: s.N, K: s.K, LDA: s.LDA, LDB: s.LDB, LDC: s.LDC,
		TransposeB: s.TransposeB, Precision: kmath.Precision(s.Precision)}
	if err := shape.Check(int(views[0].n), int(views[1].n), int(views[2].n)); err != nil {
		return nil, errorf(s.Pos, "kernel.MatMulAdd: %v", err)
	}
	return func(g *grp, act []int32) []int32 {
		base := unsafe.Pointer(unsafe.SliceData(g.shared))
		f := func(i int) []float32 {
			return unsafe.Slice((*float32)(unsafe.Add(base, views[i].off)), views[i].n)
		}
		// Checked above: the shape fits the arrays.
		_ = kmath.MatMulAdd(f(0), f(1), f(2), shape)
		return act
	}, nil
}

// lmatMulFrom compiles a MatMulAddFrom: the offsets and strides are
// computed for the active lanes (they are uniform: the first lane's are
// the group's), and the group's product runs once, as lmatMul's does, on
// the two buffers from those offsets. A part of A or B outside its buffer
// panics as an index out of range does.
func (c *compiler) lmatMulFrom(s *ir.MatMulAdd) (lstmt, error) {
	at, isArr := s.C.Var.Type.(*ir.Array)
	cOff, ok := c.shared[s.C.Var]
	if !ok || !isArr || at.Elem != ir.F32 {
		return nil, errorf(s.Pos, "kernel.MatMulAddFrom into %s, not a shared float32 array, is not supported by the CPU interpreter", s.C.Var.Name)
	}
	bufs := make([]int, 2)
	for i, r := range []*ir.Ref{s.A, s.B} {
		k, isBuf := c.bufs[r.Var]
		if !isBuf || c.bufKinds[k] != kF32 {
			return nil, errorf(s.Pos, "kernel.MatMulAddFrom of %s, not a []float32 parameter, is not supported by the CPU interpreter", r.Var.Name)
		}
		bufs[i] = k
	}
	args := make([]lval, 4)
	for i, x := range s.From.Exprs() {
		v, err := c.lexpr(x, noDst)
		if err != nil {
			return nil, err
		}
		if v.k != kU32 {
			return nil, errorf(s.Pos, "kernel.MatMulAddFrom's offsets and strides must be uint32")
		}
		args[i] = v
	}
	shape := kmath.TileShape{M: s.M, N: s.N, K: s.K, LDC: s.LDC, TransposeB: s.TransposeB, Precision: kmath.Precision(s.Precision)}
	if err := shape.WithDefaults().Check(at.Len, s.M*s.K, s.K*s.N); err != nil {
		return nil, errorf(s.Pos, "kernel.MatMulAddFrom: %v", err)
	}
	stride := c.strideRef
	return func(g *grp, act []int32) []int32 {
		var u [4]uint32
		for i, v := range args {
			if v.uniform() {
				u[i] = v.uni.(val[uint32]).get()(&g.t)
				continue
			}
			v.run(g, act)
			u[i] = *(*uint32)(unsafe.Add(g.mem, uintptr(act[0])*stride.v+v.off))
		}
		base := unsafe.Pointer(unsafe.SliceData(g.shared))
		cs := unsafe.Slice((*float32)(unsafe.Add(base, cOff)), at.Len)
		ts := shape
		ts.LDA, ts.LDB = int(u[1]), int(u[3])
		operand := func(k int, off uint32, name string) []float32 {
			v := g.bufs[k]
			if uint64(off) > uint64(v.n) {
				outOfRange(s.Pos, name, uint64(off), v.n)
			}
			if v.n == 0 {
				return nil
			}
			return unsafe.Slice((*float32)(v.p), v.n)[off:]
		}
		a, b := operand(bufs[0], u[0], s.A.Var.Name), operand(bufs[1], u[2], s.B.Var.Name)
		if err := kmath.MatMulAdd(cs, a, b, ts); err != nil {
			panic(fmt.Errorf("%s: kernel.MatMulAddFrom: %v", s.Pos, err))
		}
		return act
	}, nil
}
