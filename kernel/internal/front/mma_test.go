package front

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu/kernel/internal/ir"
)

// mmaKernel is a kernel with fragments acc, a and b around one MMA
// statement; directive is the line above //gpu:kernel (the sources start
// on line 7: the call is on line 14).
func mmaKernel(directive, decls, call string) string {
	return directive + "\n//gpu:kernel\nfunc K(y []float32, n uint32) {\n\tvar acc [2][4]float32\n\tvar a [4]uint32\n\tvar b [2]uint32\n\t" +
		decls + "\n\t" + call + "\n\ty[kernel.ThreadIndex()] = acc[0][0] + float32(a[0]+b[0])\n}"
}

// TestRejectMMA checks the errors of misused MMA and PackHalves calls, at
// their positions.
func TestRejectMMA(t *testing.T) {
	const max = "//gpu:maxthreads 64"
	const ok = "kernel.MMA(&acc[0], &a, &b, kernel.PrecisionBFloat16)"
	tests := []struct {
		name, src, want string
	}{
		{"no maxthreads", mmaKernel("// none", "", ok),
			"t.go:14:2: kernel.MMA in a kernel without //gpu:maxthreads is not allowed; declare //gpu:maxthreads N above the kernel, N a multiple of 32 (256, say), and launch it with groups of a multiple of 32 threads, at most N"},
		{"maxthreads not a multiple of 32", mmaKernel("//gpu:maxthreads 48", "", ok),
			"t.go:14:2: kernel.MMA in a kernel whose //gpu:maxthreads is not a multiple of 32 is not allowed; declare //gpu:maxthreads N above the kernel, N a multiple of 32 (256, say), and launch it with groups of a multiple of 32 threads, at most N"},
		{"a shared array", mmaKernel(max, "s := kernel.Shared[[2][4]float32]()", "kernel.MMA(&s[1], &a, &b, kernel.PrecisionBFloat16)"),
			"t.go:14:13: kernel.MMA's c must be a local array of the kernel (not a buffer, shared array or parameter); pass the address of a local [4]float32 array, or of one in a local array of them: &c or &cs[i]"},
		{"a pointer, not an address", mmaKernel(max, "s := kernel.Shared[[4]float32]()", "kernel.MMA(s, &a, &b, kernel.PrecisionBFloat16)"),
			"t.go:14:13: kernel.MMA's c must be the address of a local [4]float32 array; pass the address of a local [4]float32 array, or of one in a local array of them: &c or &cs[i]"},
		{"an index with a call", mmaKernel(max, "", "kernel.MMA(&acc[idx(n)], &a, &b, kernel.PrecisionBFloat16)") + "\nfunc idx(n uint32) uint32 { return n & 1 }",
			"t.go:14:13: a call or an atomic in the index of kernel.MMA's c is not allowed; compute the index in a statement before and index with the local"},
		{"precision not constant", mmaKernel(max, "", "kernel.MMA(&acc[0], &a, &b, kernel.Precision(n))"),
			"t.go:14:30: kernel.MMA's precision must be a constant; use the constant kernel.PrecisionBFloat16 or kernel.PrecisionFloat16"},
		{"precision float32", mmaKernel(max, "", "kernel.MMA(&acc[0], &a, &b, kernel.PrecisionFloat32)"),
			"t.go:14:30: kernel.MMA's precision must be a 16-bit one; use kernel.PrecisionBFloat16 or kernel.PrecisionFloat16"},
		{"under a varying if", mmaKernel(max, "", "if kernel.ThreadX() < 16 {\n\t\t"+ok+"\n\t}"),
			"t.go:15:3: kernel.MMA inside the if at 14:2, whose condition varies between the threads of a group: it reads kernel.ThreadX() at 14:5; every thread of a group must call kernel.MMA together (as it does a Barrier): make the condition depend only on parameters, constants and group indices and sizes, or move the call out"},
		{"after a varying return", mmaKernel(max, "", "if kernel.GlobalX() >= n {\n\t\treturn\n\t}\n\t"+ok),
			"t.go:15:3: a thread that returns early never reaches the MMA at 17:2 (the return depends on kernel.GlobalX() at 14:5); guard the work with if instead"},
		{"in a loop whose bound varies", mmaKernel(max, "", "for i := uint32(0); i < kernel.ThreadX(); i++ {\n\t\t"+ok+"\n\t}"),
			"t.go:15:3: kernel.MMA inside the for loop at 14:2, whose condition varies between the threads of a group: it reads kernel.ThreadX() at 14:26; every thread of a group must call kernel.MMA together (as it does a Barrier): make the condition depend only on parameters, constants and group indices and sizes, or move the call out"},
		{"in a helper", "func h() float32 {\n\tvar c [4]float32\n\tvar a [4]uint32\n\tvar b [2]uint32\n\tkernel.MMA(&c, &a, &b, kernel.PrecisionBFloat16)\n\treturn c[0]\n}\n//gpu:kernel\nfunc K(y []float32) { y[0] = h() }",
			"t.go:11:2: kernel.MMA in a helper is not allowed; call it in the kernel, at a point every thread of the group reaches"},
		{"PackHalves precision not constant", mmaKernel(max, "", "a[0] = kernel.PackHalves(1, 2, kernel.Precision(n))"),
			"t.go:14:33: kernel.PackHalves's precision must be a constant; use the constant kernel.PrecisionBFloat16 or kernel.PrecisionFloat16"},
		{"PackHalves precision float32", mmaKernel(max, "", "a[0] = kernel.PackHalves(1, 2, kernel.PrecisionFloat32)"),
			"t.go:14:33: kernel.PackHalves's precision must be a 16-bit one; use kernel.PrecisionBFloat16 or kernel.PrecisionFloat16"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := load(tt.src)
			list := errorsOf(t, err)
			assert.Equal(t, tt.want, list[0].Error(), "all: %v", err)
		})
	}
}

// TestLowerMMA checks the statement an MMA becomes (its fragments as places
// of the local arrays, its precision, the kernel marked as having
// barriers) and the built-in PackHalves becomes.
func TestLowerMMA(t *testing.T) {
	src := mmaKernel("//gpu:maxthreads 128", "for j := 0; j < 2; j++ {\n\t\tkernel.MMA(&acc[j], &a, &b, kernel.PrecisionFloat16)\n\t}",
		"a[1] = kernel.PackHalves(acc[1][0], 2, kernel.PrecisionBFloat16)\n\ta[2] = kernel.PackHalves(1, acc[0][3], kernel.PrecisionFloat16)")
	m, err := load(src)
	require.NoError(t, err)
	k := m.Funcs[len(m.Funcs)-1]
	assert.True(t, k.Barriers)
	assert.Equal(t, 128, k.MaxThreads)
	var mmas []*ir.MMA
	var packs []*ir.CallBuiltin
	ir.WalkStmts(k.Body, func(s ir.Stmt) {
		if x, ok := s.(*ir.MMA); ok {
			mmas = append(mmas, x)
		}
	}, func(e ir.Expr) {
		if x, ok := e.(*ir.CallBuiltin); ok && (x.Builtin == ir.PackHalvesBFloat16 || x.Builtin == ir.PackHalvesFloat16) {
			packs = append(packs, x)
		}
	})
	require.Len(t, mmas, 1)
	s := mmas[0]
	assert.Equal(t, ir.PrecisionFloat16, s.Precision)
	assert.Equal(t, ir.Pos{File: "t.go", Line: 14, Col: 3}, s.Pos)
	c, ok := s.C.(*ir.Index)
	require.True(t, ok, "c is an element of acc: %T", s.C)
	assert.Equal(t, "acc", c.X.(*ir.Ref).Var.Name)
	assert.Equal(t, &ir.Array{Elem: ir.F32, Len: 4}, c.Type)
	assert.Equal(t, "j", c.Index.(*ir.Ref).Var.Name)
	assert.Equal(t, "a", s.A.(*ir.Ref).Var.Name)
	assert.Equal(t, "b", s.B.(*ir.Ref).Var.Name)
	require.Len(t, packs, 2)
	assert.Equal(t, []ir.Builtin{ir.PackHalvesBFloat16, ir.PackHalvesFloat16}, []ir.Builtin{packs[0].Builtin, packs[1].Builtin})
	for _, p := range packs {
		assert.Equal(t, ir.U32, p.Type)
		require.Len(t, p.Args, 2)
		assert.Equal(t, ir.F32, p.Args[0].ExprType())
		assert.Equal(t, ir.F32, p.Args[1].ExprType())
	}
}
