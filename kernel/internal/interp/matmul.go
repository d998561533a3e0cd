package interp

import (
	"unsafe"

	"github.com/anygpu/gpu/kernel/internal/ir"
	"github.com/anygpu/gpu/kernel/internal/kmath"
)

// lmatMul compiles a MatMulAdd: the lanes run in step, so the group's
// accesses before it are done when it starts, and it runs once per group
// (package kernel's code, which a plain Go call of the kernel runs too)
// on the group's shared memory.
func (c *compiler) lmatMul(s *ir.MatMulAdd) (lstmt, error) {
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
