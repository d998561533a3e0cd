package front

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu/kernel/internal/ir"
)

// matMulKernel is a kernel around one MatMulAdd statement (the sources
// start on line 7: the call is on line 12).
func matMulKernel(decls, call string) string {
	return matMulKernelSized(256, decls, call)
}

// matMulKernelSized is matMulKernel with c and a of n elements.
func matMulKernelSized(n int, decls, call string) string {
	return "//gpu:kernel\nfunc K(y []float32, n uint32) {\n\tc := kernel.Shared[[" + strconv.Itoa(n) + "]float32]()\n\ta := kernel.Shared[[" + strconv.Itoa(n) + "]float32]()\n\t" +
		decls + "\n\t" + call + "\n\ty[0] = c[0] + a[0]\n}"
}

// TestRejectMatMulAdd checks the errors of misused MatMulAdd calls, at their
// positions.
func TestRejectMatMulAdd(t *testing.T) {
	const shape = "kernel.MatMul{M: 16, N: 16, K: 16}"
	tests := []struct {
		name, src, want string
	}{
		{"dimension not a multiple of 16", matMulKernel("b := kernel.Shared[[256]float32]()", "kernel.MatMulAdd(c, a, b, kernel.MatMul{M: 16, N: 8, K: 16})"),
			"t.go:12:28: kernel.MatMul with N = 8 is not allowed; make each of M, N and K a positive multiple of 16 (pad the tile with zeros)"},
		{"dimension not a constant", matMulKernel("b := kernel.Shared[[256]float32]()", "kernel.MatMulAdd(c, a, b, kernel.MatMul{M: 16, N: int(n), K: 16})"),
			"t.go:12:52: kernel.MatMul's N must be a constant; use a constant (a literal or a const)"},
		{"shape not a literal", matMulKernel("b := kernel.Shared[[256]float32]()\n\tvar s kernel.MatMul", "kernel.MatMulAdd(c, a, b, s)"),
			"t.go:12:6: variable s of type github.com/anygpu/gpu/kernel.MatMul (a struct other than kernel.Float4) is not allowed in a kernel; use kernel.Float4, separate variables or arrays"},
		{"operand a buffer", matMulKernel("b := kernel.Shared[[256]float32]()", "kernel.MatMulAdd(c, b, &y, "+shape+")"),
			"t.go:12:25: kernel.MatMulAdd's b must be a shared float32 array; pass a kernel.Shared[[N]float32]() array of the kernel by its name"},
		{"operand not float32", matMulKernel("b := kernel.Shared[[256]int32]()", "kernel.MatMulAdd(c, a, b, "+shape+")"),
			"t.go:12:25: kernel.MatMulAdd of shared array b is not allowed: it is not a [N]float32; declare it as a one-dimensional float32 array: b := kernel.Shared[[256]float32]()"},
		{"operand two-dimensional", matMulKernel("b := kernel.Shared[[16][16]float32]()", "kernel.MatMulAdd(c, a, b, "+shape+")"),
			"t.go:12:25: kernel.MatMulAdd of shared array b is not allowed: it is not a [N]float32; declare it as a one-dimensional float32 array: b := kernel.Shared[[256]float32]()"},
		{"operand too short", matMulKernel("b := kernel.Shared[[255]float32]()", "kernel.MatMulAdd(c, a, b, "+shape+")"),
			"t.go:12:2: kernel.MatMulAdd: matmul: b holds 255 elements, the shape needs 256; make the strides at least the rows' lengths and each shared array long enough: (rows-1)·stride + row length elements"},
		{"padded stride too long", matMulKernel("b := kernel.Shared[[256]float32]()", "kernel.MatMulAdd(c, a, b, kernel.MatMul{M: 16, N: 16, K: 16, LDA: 17})"),
			"t.go:12:2: kernel.MatMulAdd: matmul: a holds 256 elements, the shape needs 271; make the strides at least the rows' lengths and each shared array long enough: (rows-1)·stride + row length elements"},
		{"stride below the row", matMulKernel("b := kernel.Shared[[256]float32]()", "kernel.MatMulAdd(c, a, b, kernel.MatMul{M: 16, N: 16, K: 16, LDC: 8})"),
			"t.go:12:2: kernel.MatMulAdd: matmul leading dimensions 16, 16, 8 are below the rows' lengths 16, 16, 16; make the strides at least the rows' lengths and each shared array long enough: (rows-1)·stride + row length elements"},
		{"c is an operand", matMulKernel("b := kernel.Shared[[256]float32]()", "kernel.MatMulAdd(c, c, b, "+shape+")"),
			"t.go:12:19: kernel.MatMulAdd with c also an operand is not allowed; accumulate into a shared array of its own"},
		{"precision not one", matMulKernel("b := kernel.Shared[[256]float32]()", "kernel.MatMulAdd(c, a, b, kernel.MatMul{M: 16, N: 16, K: 16, Precision: 7})"),
			"t.go:12:74: kernel.MatMul's Precision is not one of the precisions; use kernel.PrecisionFloat32, kernel.PrecisionBFloat16 or kernel.PrecisionFloat16"},
		{"under a varying if", matMulKernel("b := kernel.Shared[[256]float32]()", "if kernel.ThreadX() < 16 {\n\t\tkernel.MatMulAdd(c, a, b, "+shape+")\n\t}"),
			"t.go:13:3: kernel.MatMulAdd inside the if at 12:2, whose condition varies between the threads of a group: it reads kernel.ThreadX() at 12:5; every thread of a group must call kernel.MatMulAdd together (as it does a Barrier): make the condition depend only on parameters, constants and group indices and sizes, or move the call out"},
		{"after a varying return", matMulKernel("b := kernel.Shared[[256]float32]()", "if kernel.GlobalX() >= n {\n\t\treturn\n\t}\n\tkernel.MatMulAdd(c, a, b, "+shape+")"),
			"t.go:13:3: a thread that returns early never reaches the MatMulAdd at 15:2 (the return depends on kernel.GlobalX() at 12:5); guard the work with if instead"},
		{"in a helper", "func h(c, a, b *[256]float32) { kernel.MatMulAdd(c, a, b, kernel.MatMul{M: 16, N: 16, K: 16}) }\n//gpu:kernel\nfunc K(y []float32) {\n\tc := kernel.Shared[[256]float32]()\n\th(c, c, c)\n\ty[0] = c[0]\n}",
			"t.go:7:8: helper h cannot take a pointer or a shared array (parameter c of type *[256]float32); do it in the kernel, or pass the values"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := load(tt.src)
			list := errorsOf(t, err)
			assert.Equal(t, tt.want, list[0].Error(), "all: %v", err)
		})
	}
}

// TestLowerMatMulAdd checks the statement a MatMulAdd becomes: the shape's
// defaults resolved, the arrays, and the kernel marked as having barriers.
func TestLowerMatMulAdd(t *testing.T) {
	tests := []struct {
		name, call string
		want       ir.MatMulAdd
	}{
		{"defaults", "kernel.MatMulAdd(c, a, b, kernel.MatMul{M: 16, N: 32, K: 16})",
			ir.MatMulAdd{M: 16, N: 32, K: 16, LDA: 16, LDB: 32, LDC: 32}},
		{"transposed b, padded, bfloat16", "kernel.MatMulAdd(c, a, b, kernel.MatMul{M: 16, N: 16, K: 32, LDA: 36, LDC: 20, TransposeB: true, Precision: kernel.PrecisionBFloat16})",
			ir.MatMulAdd{M: 16, N: 16, K: 32, LDA: 36, LDB: 32, LDC: 20, TransposeB: true, Precision: ir.PrecisionBFloat16}},
		{"constants and float16", "const tile = 16\n\tkernel.MatMulAdd(c, a, b, kernel.MatMul{M: tile, N: tile, K: 2 * tile, Precision: kernel.PrecisionFloat16})",
			ir.MatMulAdd{M: 16, N: 16, K: 32, LDA: 32, LDB: 16, LDC: 16, Precision: ir.PrecisionFloat16}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := load(matMulKernelSized(1024, "b := kernel.Shared[[1024]float32]()", tt.call))
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
			assert.Equal(t, []string{"c", "a", "b"}, []string{got.C.Var.Name, got.A.Var.Name, got.B.Var.Name})
			want := tt.want
			want.C, want.A, want.B, want.Pos = got.C, got.A, got.B, got.Pos
			assert.Equal(t, want, *got)
		})
	}
}
