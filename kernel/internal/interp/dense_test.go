package interp

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/kernel/internal/ir"
)

// denseIR is
//
//	func Dense(z, x, y []float32, n uint32, a float32) {
//		i := kernel.GlobalX()
//		if i >= n {
//			return
//		}
//		z[i] = -(a - x[i]) / (y[i] + 2)
//		y[i] = z[i] * x[i]
//	}
func denseIR() *ir.Func {
	f32s := &ir.Slice{Elem: ir.F32}
	z, x, y := param("z", f32s, 0), param("x", f32s, 1), param("y", f32s, 2)
	n, a := param("n", ir.U32, 3), param("a", ir.F32, 4)
	i := local("i", ir.U32)
	return kernelFunc("Dense", []*ir.Var{z, x, y, n, a},
		decl(i, idb(ir.GlobalX)),
		&ir.If{Cond: bin(ir.Ge, ref(i), ref(n)), Then: []ir.Stmt{&ir.Return{}}},
		set(at(ref(z), ref(i)), bin(ir.Div,
			&ir.Unary{Op: ir.Neg, X: bin(ir.Sub, ref(a), at(ref(x), ref(i)))},
			bin(ir.Add, at(ref(y), ref(i)), cF32(2)))),
		set(at(ref(y), ref(i)), bin(ir.Mul, at(ref(z), ref(i)), at(ref(x), ref(i)))),
	)
}

// TestDensePath checks the dense path of element-wise kernels (and the
// groups that fall back to the lane model) against plain Go.
func TestDensePath(t *testing.T) {
	k := compileOne(t, denseIR())
	require.NotNil(t, planDense(denseIR(), map[*ir.Var]bool{}), "the kernel has a dense path")
	tests := []struct {
		name        string
		n, len      int
		grid, block backend.Dim3
		alias       bool // x and y the same buffer
	}{
		{"exact groups", 256, 256, backend.Dim3{X: 4}, backend.Dim3{X: 64}, false},
		{"partial last group", 1000, 1000, backend.Dim3{X: 16}, backend.Dim3{X: 64}, false},
		{"more threads than n", 5, 5, backend.Dim3{X: 1}, backend.Dim3{X: 256}, false},
		{"2-D groups: the lane model", 100, 100, backend.Dim3{X: 4}, backend.Dim3{X: 8, Y: 4}, false},
		{"aliased buffers", 300, 300, backend.Dim3{X: 3}, backend.Dim3{X: 128}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			const a = float32(1.5)
			z, x, y := make([]float32, tt.len), make([]float32, tt.len), make([]float32, tt.len)
			for i := range x {
				x[i], y[i] = float32(i%9)-4, float32(i%4)*0.5
			}
			if tt.alias {
				y = x
			}
			wantZ, wantY := make([]float32, tt.len), make([]float32, tt.len)
			copy(wantY, y)
			wx := append([]float32(nil), x...)
			// The threads of a 2-D group with the same x write the same values.
			for i := range min(tt.n, tt.len, tt.grid.X*tt.block.X) {
				wantZ[i] = -(a - wx[i]) / (wantY[i] + 2)
				wantY[i] = wantZ[i] * wx[i]
				if tt.alias {
					wx[i] = wantY[i]
				}
			}
			require.NoError(t, launch(k, tt.grid, tt.block, buf(z), buf(x), buf(y), argU32(uint32(tt.n)), argF32(a)))
			assert.Equal(t, wantZ, z)
			assert.Equal(t, wantY, y)
		})
	}
	t.Run("short buffer: the lane model's error", func(t *testing.T) {
		z, x, y := make([]float32, 8), make([]float32, 4), make([]float32, 8)
		err := launch(k, backend.Dim3{X: 1}, backend.Dim3{X: 8}, buf(z), buf(x), buf(y), argU32(8), argF32(1))
		require.Error(t, err)
		assert.Contains(t, err.Error(), "out of range")
	})
}
