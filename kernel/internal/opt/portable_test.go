package opt

import (
	"testing"

	"github.com/anygpu/gpu/kernel/internal/front"
	"github.com/anygpu/gpu/kernel/internal/ir"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const portableSrc = `package k

import "github.com/anygpu/gpu/kernel"

//gpu:kernel
func K(y, x []kernel.Float16, out []float32, n uint32) {
	i := kernel.GlobalX()
	s := float32(0)
	for off := kernel.SubgroupSize() / 2; off > 0; off /= 2 {
		s += kernel.SubgroupShuffleXor(out[0], off)
	}
	v := kernel.SubgroupAdd(kernel.ToFloat32(x[i])) + float32(kernel.SubgroupInvocationID())
	if i < n {
		y[i] = kernel.ToFloat16(v + s)
	}
}
`

// counts tallies what Portable must remove or add.
type counts struct{ subgroup, half, cas, loops, calls int }

func count(m *ir.Module) counts {
	var c counts
	for _, f := range m.Funcs {
		ir.WalkStmts(f.Body, func(s ir.Stmt) {
			if _, ok := s.(*ir.For); ok && f.Kernel {
				c.loops++
			}
		}, func(e ir.Expr) {
			switch x := e.(type) {
			case *ir.CallBuiltin:
				if x.Builtin.IsSubgroup() {
					c.subgroup++
				}
			case *ir.Atomic:
				if x.Op == ir.AtomicCompareExchange {
					c.cas++
				}
			case *ir.Call:
				c.calls++
			}
			if ir.ElemScalar(e.ExprType()) == ir.F16 {
				c.half++
			}
		})
	}
	return c
}

// Portable leaves no subgroup operation and no float16 value: the subgroup
// loop folds away (SubgroupSize is 1), the load is a conversion of the
// half's bits, the store a compare-and-swap loop; a second run changes
// nothing.
func TestPortable(t *testing.T) {
	m, err := front.Load([]front.File{{Name: "k.go", Src: portableSrc}})
	require.NoError(t, err)
	Module(m)
	before := count(m)
	assert.Equal(t, 4, before.subgroup)
	assert.Positive(t, before.half)
	require.NoError(t, Portable(m))
	after := count(m)
	assert.Equal(t, counts{cas: 1, loops: 1, calls: 2}, counts{subgroup: after.subgroup, half: after.half, cas: after.cas,
		loops: after.loops, calls: after.calls}, "one CAS loop (the store), the subgroup loop gone, two conversions")
	k := m.Funcs[len(m.Funcs)-1]
	assert.Zero(t, k.Features&(ir.Subgroup|ir.Float16))
	assert.Equal(t, &ir.Slice{Elem: ir.U32}, k.Params[0].Type)
	assert.Len(t, m.Funcs, 3, "the two conversions come first")
	require.NoError(t, Portable(m))
	assert.Equal(t, after, count(m))
	assert.Len(t, m.Funcs, 3)
}

// KeepSubgroups rewrites float16 as Portable does but keeps every subgroup
// operation (for the subgroup variant); Portable after it removes them.
func TestKeepSubgroups(t *testing.T) {
	m, err := front.Load([]front.File{{Name: "k.go", Src: portableSrc}})
	require.NoError(t, err)
	Module(m)
	require.NoError(t, KeepSubgroups(m))
	kept := count(m)
	assert.Equal(t, 4, kept.subgroup)
	assert.Zero(t, kept.half)
	k := m.Funcs[len(m.Funcs)-1]
	assert.NotZero(t, k.Features&ir.Subgroup)
	assert.Zero(t, k.Features&ir.Float16)
	require.NoError(t, KeepSubgroups(m))
	assert.Equal(t, kept, count(m), "idempotent")
	require.NoError(t, Portable(m))
	assert.Zero(t, count(m).subgroup)
	assert.Zero(t, k.Features&ir.Subgroup)
}
