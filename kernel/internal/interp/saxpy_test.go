package interp

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/kernel/internal/ir"
)

// saxpyIR is
//
//	func Saxpy(y, x []float32, n uint32, a float32) {
//		i := kernel.GlobalX()
//		if i < n {
//			y[i] = a*x[i] + y[i]
//		}
//	}
func saxpyIR() *ir.Func {
	f32s := &ir.Slice{Elem: ir.F32}
	y, x := param("y", f32s, 0), param("x", f32s, 1)
	n, a := param("n", ir.U32, 2), param("a", ir.F32, 3)
	i := local("i", ir.U32)
	return kernelFunc("Saxpy", []*ir.Var{y, x, n, a},
		decl(i, idb(ir.GlobalX)),
		&ir.If{Cond: bin(ir.Lt, ref(i), ref(n)), Then: []ir.Stmt{
			set(at(ref(y), ref(i)), bin(ir.Add, bin(ir.Mul, ref(a), at(ref(x), ref(i))), at(ref(y), ref(i)))),
		}},
	)
}

// saxpyGo is the group function a Go code generator emits for saxpyIR: the
// compiled reference the interpreter is measured against.
func saxpyGo(g backend.Group, args []backend.Arg) {
	y, x, n, a := args[0].Float32s(), args[1].Float32s(), args[2].U32(), args[3].F32()
	for tx := 0; tx < g.Size.X; tx++ {
		i := uint32(g.ID.X*g.Size.X + tx)
		if i < n {
			y[i] = a*x[i] + y[i]
		}
	}
}

func TestSaxpy(t *testing.T) {
	k := compileOne(t, saxpyIR())
	tests := []struct {
		name  string
		n     int
		block int
	}{
		{"exact groups", 256, 64},
		{"partial last group", 1000, 64},
		{"one thread groups", 7, 1},
		{"block larger than n", 5, 256},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			y, x := make([]float32, tt.n), make([]float32, tt.n)
			want := make([]float32, tt.n)
			a := float32(1.5)
			for i := range y {
				x[i], y[i] = float32(i)*0.25, float32(tt.n-i)
				want[i] = a*x[i] + y[i]
			}
			groups := (tt.n + tt.block - 1) / tt.block
			require.NoError(t, launch(k, backend.Dim3{X: groups}, backend.Dim3{X: tt.block}, buf(y), buf(x), argU32(uint32(tt.n)), argF32(a)))
			assert.Equal(t, want, y)
		})
	}
}

func TestOutOfRangeIsAnError(t *testing.T) {
	k := compileOne(t, saxpyIR())
	y, x := make([]float32, 4), make([]float32, 8)
	err := launch(k, backend.Dim3{X: 1}, backend.Dim3{X: 8}, buf(y), buf(x), argU32(8), argF32(1))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "out of range")
	assert.Contains(t, err.Error(), "of y")
}

func TestWrongArguments(t *testing.T) {
	k := compileOne(t, saxpyIR())
	y := make([]float32, 4)
	tests := []struct {
		name string
		args []backend.Arg
	}{
		{"too few", []backend.Arg{buf(y), buf(y)}},
		{"scalar for a buffer", []backend.Arg{argU32(1), buf(y), argU32(4), argF32(1)}},
		{"wrong scalar kind", []backend.Arg{buf(y), buf(y), argF32(4), argF32(1)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Error(t, launch(k, backend.Dim3{X: 1}, backend.Dim3{X: 4}, tt.args...))
		})
	}
}

func benchSaxpy(b *testing.B, k backend.GoKernel) {
	const n, block = 1 << 16, 256
	y, x := make([]float32, n), make([]float32, n)
	args := []backend.Arg{buf(y), buf(x), argU32(n), argF32(2)}
	grid := backend.Dim3{X: n / block}.Norm()
	b.ResetTimer()
	for range b.N {
		for g := range n / block {
			k(backend.Group{ID: backend.Dim3{X: g}.Norm(), Size: backend.Dim3{X: block}.Norm(), Grid: grid}, args)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/element")
}

// BenchmarkSaxpy compares the interpreter with the compiled Go reference
// (one core, 65536 elements in groups of 256).
func BenchmarkSaxpy(b *testing.B) {
	b.Run("interp", func(b *testing.B) { benchSaxpy(b, compileOne(b, saxpyIR())) })
	b.Run("compiled", func(b *testing.B) { benchSaxpy(b, saxpyGo) })
}
