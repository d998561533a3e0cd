package opt

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu/kernel/internal/front"
	"github.com/anygpu/gpu/kernel/internal/ir"
)

// ldmOptSrc has two LoadMatrices (one transposed), CopyAsyncs and their
// Commit and Wait, and an MMA when mma is set, in a kernel of 128 threads.
func ldmOptSrc(mma bool) string {
	call := ""
	if mma {
		call = "var acc [4]float32\n\tkernel.MMA(&acc, &a, &b, kernel.PrecisionBFloat16)\n\to[1] = acc[0]"
	}
	return `package k

import "github.com/anygpu/gpu/kernel"

//gpu:maxthreads 128
//gpu:kernel
func K(o []float32, w []uint32) {
	tile := kernel.Shared[[512]uint32]()
	kernel.CopyAsync(tile, kernel.ThreadIndex(), o, kernel.ThreadIndex())
	kernel.CopyAsyncCommit()
	kernel.CopyAsyncWait(0)
	kernel.Barrier()
	var a [4]uint32
	var b [2]uint32
	kernel.LoadMatrices4(&a, tile, w[kernel.ThreadIndex()], false)
	kernel.LoadMatrices2(&b, tile, w[kernel.ThreadIndex()], true)
	` + call + `
	w[0] = a[0] + b[1]
}
`
}

// TestPortableLoadMatrices checks the portable rewrite of LoadMatrices and
// CopyAsync: none left, nor their Commit and Wait; one shared scratch, of
// 32 words per 32 threads (192, MMA's, when the kernel has MMAs); two
// Barriers per LoadMatrices; CopyAsync four word copies; a second run
// changing nothing.
func TestPortableLoadMatrices(t *testing.T) {
	for _, mma := range []bool{false, true} {
		t.Run(map[bool]string{false: "alone", true: "with MMA"}[mma], func(t *testing.T) {
			m, err := front.Load([]front.File{{Name: "k.go", Src: ldmOptSrc(mma)}})
			require.NoError(t, err)
			Module(m)
			require.NoError(t, Portable(m))
			k := m.Funcs[len(m.Funcs)-1]
			require.True(t, k.Kernel)
			barriers, left, copies := 0, 0, 0
			ir.WalkStmts(k.Body, func(s ir.Stmt) {
				switch x := s.(type) {
				case *ir.Barrier:
					barriers++
				case *ir.LoadMatrices, *ir.CopyAsync, *ir.CopyAsyncCommit, *ir.CopyAsyncWait, *ir.MMA:
					left++
				case *ir.Assign:
					if ix, ok := x.Place.(*ir.Index); ok {
						if r, ok := ix.X.(*ir.Ref); ok && r.Var.Name == "tile" {
							copies++
						}
					}
				}
			}, nil)
			assert.Zero(t, left, "nothing left to rewrite")
			assert.Equal(t, 4, copies, "CopyAsync: four words")
			want := 1 + 2*2
			words := 32 * 4
			if mma {
				want += 2
				words = 192 * 4
			}
			assert.Equal(t, want, barriers, "the kernel's, then two per LoadMatrices (and MMA)")
			require.Len(t, k.Shared, 2, "tile and one scratch")
			assert.Equal(t, &ir.Array{Elem: ir.U32, Len: words}, k.Shared[1].Type)
			before := len(k.Body)
			require.NoError(t, Portable(m))
			assert.Len(t, k.Body, before, "idempotent")
			assert.Len(t, k.Shared, 2)
		})
	}
}
