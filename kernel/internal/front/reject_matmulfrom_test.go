package front

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu/kernel/internal/ir"
)

// matMulFromKernel is a kernel around one MatMulAddFrom statement, with
// buffers x, y (float32) and z (int32) and scalars n and k (the sources
// start on line 7: the call is on line 11).
func matMulFromKernel(decls, call string) string {
	return "//gpu:kernel\nfunc K(x, y []float32, z []int32, n, k uint32) {\n\tc := kernel.Shared[[1024]float32]()\n\t" +
		decls + "\n\t" + call + "\n\ty[0] = c[0]\n}"
}

// TestRejectMatMulAddFrom checks the errors of misused MatMulAddFrom
// calls, at their positions.
func TestRejectMatMulAddFrom(t *testing.T) {
	const shape = "kernel.MatMul{M: 16, N: 16, K: 16}"
	tests := []struct {
		name, src, want string
	}{
		{"a a slice expression", matMulFromKernel("", "kernel.MatMulAddFrom(c, x[16:], 0, 16, y, 0, 16, "+shape+")"),
			"t.go:11:26: kernel.MatMulAddFrom's a must be a []float32 buffer of the kernel; pass a []float32 parameter of the kernel by its name (with the element offset as the next argument)"},
		{"b not float32", matMulFromKernel("", "kernel.MatMulAddFrom(c, x, 0, 16, z, 0, 16, "+shape+")"),
			"t.go:11:36: cannot use z (variable of type []int32) as []float32 value in argument to kernel.MatMulAddFrom"},
		{"c a buffer", matMulFromKernel("", "kernel.MatMulAddFrom(&y, x, 0, 16, y, 0, 16, "+shape+")"),
			"t.go:11:23: kernel.MatMulAddFrom's c must be a shared float32 array; pass a kernel.Shared[[N]float32]() array of the kernel by its name"},
		{"c too short", matMulFromKernel("", "kernel.MatMulAddFrom(c, x, 0, 64, y, 0, 64, kernel.MatMul{M: 32, N: 64, K: 16})"),
			"t.go:11:2: kernel.MatMulAddFrom: matmul: c holds 1024 elements, the shape needs 2048; make LDC at least N and the shared array long enough: (M-1)·LDC + N elements"},
		{"LDA in the shape", matMulFromKernel("", "kernel.MatMulAddFrom(c, x, 0, 16, y, 0, 16, kernel.MatMul{M: 16, N: 16, K: 16, LDA: 16})"),
			"t.go:11:46: kernel.MatMulAddFrom with LDA or LDB in its kernel.MatMul is not allowed; give the strides of a and b as lda and ldb and leave LDA and LDB out"},
		{"dimension not a multiple of 16", matMulFromKernel("", "kernel.MatMulAddFrom(c, x, 0, 16, y, 0, 16, kernel.MatMul{M: 16, N: 16, K: 8})"),
			"t.go:11:46: kernel.MatMul with K = 8 is not allowed; make each of M, N and K a positive multiple of 16 (pad the tile with zeros)"},
		{"dimension not a constant", matMulFromKernel("", "kernel.MatMulAddFrom(c, x, 0, 16, y, 0, 16, kernel.MatMul{M: 16, N: 16, K: int(k)})"),
			"t.go:11:77: kernel.MatMul's K must be a constant; use a constant (a literal or a const)"},
		{"offset varies", matMulFromKernel("", "kernel.MatMulAddFrom(c, x, kernel.ThreadX()*16, 16, y, 0, 16, "+shape+")"),
			"t.go:11:29: kernel.MatMulAddFrom's aOff varies between the threads of a group: it reads kernel.ThreadX() at 11:29; compute it from parameters, constants and group indices and sizes only: the group multiplies once, with one value"},
		{"stride read from a buffer", matMulFromKernel("ld := uint32(z[0])", "kernel.MatMulAddFrom(c, x, 0, 16, y, 0, ld, "+shape+")"),
			"t.go:11:42: kernel.MatMulAddFrom's ldb varies between the threads of a group: it reads ld, which comes from an element of buffer z at 10:15; compute it from parameters, constants and group indices and sizes only: the group multiplies once, with one value"},
		{"under a varying if", matMulFromKernel("", "if kernel.ThreadX() < 16 {\n\t\tkernel.MatMulAddFrom(c, x, 0, 16, y, 0, 16, "+shape+")\n\t}"),
			"t.go:12:3: kernel.MatMulAddFrom inside the if at 11:2, whose condition varies between the threads of a group: it reads kernel.ThreadX() at 11:5; every thread of a group must call kernel.MatMulAddFrom together (as it does a Barrier): make the condition depend only on parameters, constants and group indices and sizes, or move the call out"},
		{"in a helper", "func g(c *[256]float32, x []float32) { kernel.MatMulAddFrom(c, x, 0, 16, x, 0, 16, kernel.MatMul{M: 16, N: 16, K: 16}) }\n//gpu:kernel\nfunc K(y []float32) {\n\tc := kernel.Shared[[256]float32]()\n\tg(c, y)\n}",
			"t.go:7:8: helper g cannot take a pointer or a shared array (parameter c of type *[256]float32); do it in the kernel, or pass the values"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := load(tt.src)
			list := errorsOf(t, err)
			assert.Equal(t, tt.want, list[0].Error(), "all: %v", err)
		})
	}
}

// TestLowerMatMulAddFrom checks the statement a MatMulAddFrom becomes: the
// buffers, the offset and stride expressions, LDC's default, and the kernel
// marked as having barriers.
func TestLowerMatMulAddFrom(t *testing.T) {
	tests := []struct {
		name, call string
		want       ir.MatMulAdd
	}{
		{"defaults", "kernel.MatMulAddFrom(c, x, kernel.GroupX()*16*k, k, y, 0, n, kernel.MatMul{M: 16, N: 32, K: 16})",
			ir.MatMulAdd{M: 16, N: 32, K: 16, LDC: 32}},
		{"transposed, padded, bfloat16", "kernel.MatMulAddFrom(c, x, 0, k, y, 16, k, kernel.MatMul{M: 16, N: 16, K: 32, LDC: 20, TransposeB: true, Precision: kernel.PrecisionBFloat16})",
			ir.MatMulAdd{M: 16, N: 16, K: 32, LDC: 20, TransposeB: true, Precision: ir.PrecisionBFloat16}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := load(matMulFromKernel("", tt.call))
			require.NoError(t, err)
			k := m.Funcs[len(m.Funcs)-1]
			assert.True(t, k.Barriers)
			var got *ir.MatMulAdd
			ir.WalkStmts(k.Body, func(s ir.Stmt) {
				if mm, ok := s.(*ir.MatMulAdd); ok {
					got = mm
				}
			}, nil)
			require.NotNil(t, got)
			require.NotNil(t, got.From)
			assert.Equal(t, []string{"c", "x", "y"}, []string{got.C.Var.Name, got.A.Var.Name, got.B.Var.Name})
			for _, x := range got.From.Exprs() {
				assert.Equal(t, ir.U32, x.ExprType())
			}
			want := tt.want
			want.C, want.A, want.B, want.From, want.Pos = got.C, got.A, got.B, got.From, got.Pos
			assert.Equal(t, want, *got)
		})
	}
}
