package interp

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/kernel/internal/ir"
)

// copyByIDIR is
//
//	func Copy(dst, src []uint32, lo uint32) {
//		i := kernel.<id>()
//		if i >= lo {
//			dst[i] = src[i] + 1
//			dst[i+1000] = lo
//		}
//	}
//
// whose element places are indexed by a lane id: a run of elements when the
// id is affine in the group, element by element otherwise. Groups run in
// parallel, so no two groups of a case write the same element.
func copyByIDIR(id ir.Builtin) *ir.Func {
	u32s := &ir.Slice{Elem: ir.U32}
	dst, src, lo := param("dst", u32s, 0), param("src", u32s, 1), param("lo", ir.U32, 2)
	i := local("i", ir.U32)
	return kernelFunc("Copy", []*ir.Var{dst, src, lo},
		decl(i, idb(id)),
		&ir.If{Cond: bin(ir.Ge, ref(i), ref(lo)), Then: []ir.Stmt{
			set(at(ref(dst), ref(i)), bin(ir.Add, at(ref(src), ref(i)), cU32(1))),
			set(at(ref(dst), bin(ir.Add, ref(i), cU32(1000))), ref(lo)),
		}},
	)
}

func TestLaneIDIndexedElements(t *testing.T) {
	tests := []struct {
		name        string
		id          ir.Builtin
		grid, block backend.Dim3
		lo          uint32
		n           int // elements of src
		wantErr     bool
	}{
		{"GlobalX 1-D", ir.GlobalX, backend.Dim3{X: 3}, backend.Dim3{X: 8}, 0, 24, false},
		{"GlobalX 1-D from a middle lane", ir.GlobalX, backend.Dim3{X: 3}, backend.Dim3{X: 8}, 11, 24, false},
		{"GlobalX 2-D", ir.GlobalX, backend.Dim3{X: 2}, backend.Dim3{X: 4, Y: 3}, 1, 32, false},
		{"ThreadX 1-D", ir.ThreadX, backend.Dim3{X: 1}, backend.Dim3{X: 16}, 5, 16, false},
		{"ThreadX 2-D", ir.ThreadX, backend.Dim3{X: 1}, backend.Dim3{X: 4, Y: 4}, 2, 16, false},
		{"ThreadIndex 3-D", ir.ThreadIndex, backend.Dim3{X: 1}, backend.Dim3{X: 2, Y: 3, Z: 2}, 3, 12, false},
		{"GlobalX past the end", ir.GlobalX, backend.Dim3{X: 2}, backend.Dim3{X: 8}, 0, 12, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k := compileOne(t, copyByIDIR(tt.id))
			src, dst, want := make([]uint32, tt.n), make([]uint32, 1000+tt.n+1), make([]uint32, 1000+tt.n+1)
			for i := range src {
				src[i] = uint32(i*7 + 3)
			}
			grid, block := tt.grid.Norm(), tt.block.Norm()
			for g := range grid.X * grid.Y * grid.Z {
				gx := g % grid.X
				for z := range block.Z {
					for y := range block.Y {
						for x := range block.X {
							id := map[ir.Builtin]int{ir.GlobalX: gx*block.X + x, ir.ThreadX: x,
								ir.ThreadIndex: (z*block.Y+y)*block.X + x}[tt.id]
							if uint32(id) >= tt.lo && id < tt.n {
								want[id], want[id+1000] = src[id]+1, tt.lo
							}
						}
					}
				}
			}
			err := launch(k, grid, block, buf(dst), buf(src), argU32(tt.lo))
			if tt.wantErr {
				require.Error(t, err)
				assert.Contains(t, err.Error(), "out of range")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, want, dst)
		})
	}
}
