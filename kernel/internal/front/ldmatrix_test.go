package front

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu/kernel/internal/ir"
)

// ldmKernel is a kernel with fragments f and f2 and a shared array tile
// around one statement; directive is the line above //gpu:kernel (the
// call is on line 14).
func ldmKernel(directive, decls, call string) string {
	return directive + "\n//gpu:kernel\nfunc K(y []float32, w []uint32, n uint32) {\n\tvar f [4]uint32\n\tvar f2 [2]uint32\n\ttile := kernel.Shared[[256]uint32]()\n\t" +
		decls + "\n\t" + call + "\n\ty[kernel.ThreadIndex()] = float32(f[0] + f2[0] + tile[0])\n}"
}

// TestRejectLoadMatrices checks the errors of misused LoadMatrices and
// CopyAsync calls, at their positions.
func TestRejectLoadMatrices(t *testing.T) {
	const max = "//gpu:maxthreads 64"
	const ok = "kernel.LoadMatrices4(&f, tile, n, false)"
	tests := []struct {
		name, src, want string
	}{
		{"no maxthreads", ldmKernel("// none", "", ok), "t.go:14:2: kernel.LoadMatrices4 in a kernel without //gpu:maxthreads is not allowed; declare //gpu:maxthreads N above the kernel, N a multiple of 32 (256, say), and launch it with groups of a multiple of 32 threads, at most N"},
		{"maxthreads not a multiple of 32", ldmKernel("//gpu:maxthreads 48", "", "kernel.LoadMatrices2(&f2, tile, n, true)"), "t.go:14:2: kernel.LoadMatrices2 in a kernel whose //gpu:maxthreads is not a multiple of 32 is not allowed; declare //gpu:maxthreads N above the kernel, N a multiple of 32 (256, say), and launch it with groups of a multiple of 32 threads, at most N"},
		{"trans not constant", ldmKernel(max, "", "kernel.LoadMatrices4(&f, tile, n, n > 1)"), "t.go:14:36: kernel.LoadMatrices4's trans must be a constant; write true or false (or a boolean constant)"},
		{"frag a shared array", ldmKernel(max, "s := kernel.Shared[[4]uint32]()", "kernel.LoadMatrices4(s, tile, n, false)"), "t.go:14:23: kernel.LoadMatrices4's frag must be the address of a local [4]uint32 array; pass the address of a local [4]uint32 array, or of one in a local array of them: &frag or &frags[i]"},
		{"an index with a call", ldmKernel(max, "var fs [2][4]uint32", "kernel.LoadMatrices4(&fs[idx(n)], tile, n, false)") + "\nfunc idx(n uint32) uint32 { return n & 1 }",
			"t.go:14:23: a call or an atomic in the index of kernel.LoadMatrices4's frag is not allowed; compute the index in a statement before and index with the local"},
		{"src a local array", ldmKernel(max, "var l [64]uint32", "kernel.LoadMatrices4(&f, &l, n, false)"), "t.go:14:27: kernel.LoadMatrices4's src must be a shared uint32 array; pass a kernel.Shared[[N]uint32]() array of the kernel by its name"},
		{"src a shared float32 array", ldmKernel(max, "fs := kernel.Shared[[64]float32]()", "kernel.LoadMatrices4(&f, fs, n, false)"), "t.go:14:27: kernel.LoadMatrices4 of shared array fs is not allowed: it is not a [N]uint32; declare it as a one-dimensional uint32 array: fs := kernel.Shared[[1024]uint32]()"},
		{"src a buffer", ldmKernel(max, "", "kernel.LoadMatrices4(&f, &w, n, false)"), "t.go:14:27: kernel.LoadMatrices4's src must be a shared uint32 array; pass a kernel.Shared[[N]uint32]() array of the kernel by its name"},
		{"under a varying if", ldmKernel(max, "", "if kernel.ThreadX() < 16 {\n\t\t"+ok+"\n\t}"), "t.go:15:3: kernel.LoadMatrices4 inside the if at 14:2, whose condition varies between the threads of a group: it reads kernel.ThreadX() at 14:5; every thread of a group must call kernel.LoadMatrices4 together (as it does a Barrier): make the condition depend only on parameters, constants and group indices and sizes, or move the call out"},
		{"in a loop whose bound varies", ldmKernel(max, "", "for i := uint32(0); i < kernel.ThreadX(); i++ {\n\t\tkernel.LoadMatrices2(&f2, tile, i, true)\n\t}"), "t.go:15:3: kernel.LoadMatrices2 inside the for loop at 14:2, whose condition varies between the threads of a group: it reads kernel.ThreadX() at 14:26; every thread of a group must call kernel.LoadMatrices2 together (as it does a Barrier): make the condition depend only on parameters, constants and group indices and sizes, or move the call out"},
		{"in a helper", "func h() uint32 {\n\tvar f [4]uint32\n\tvar l [64]uint32\n\tkernel.LoadMatrices4(&f, &l, 0, false)\n\treturn f[0]\n}\n//gpu:kernel\n//gpu:maxthreads 64\nfunc K(y []uint32) { y[0] = h() }",
			"t.go:10:2: kernel.LoadMatrices4 in a helper is not allowed; call it in the kernel, at a point every thread of the group reaches"},
		{"CopyAsync to a local array", ldmKernel(max, "", "kernel.CopyAsync(&f, 0, y, n)"), "t.go:14:19: kernel.CopyAsync's dst must be a shared uint32 array; pass a kernel.Shared[[N]uint32]() array of the kernel by its name"},
		{"CopyAsync to a buffer", ldmKernel(max, "", "kernel.CopyAsync(&w, 0, y, n)"), "t.go:14:19: kernel.CopyAsync's dst must be a shared uint32 array; pass a kernel.Shared[[N]uint32]() array of the kernel by its name"},
		{"CopyAsync from a shared array", ldmKernel(max, "", "kernel.CopyAsync(tile, 0, tile[:], n)"), "t.go:14:28: kernel.CopyAsync of this is not allowed; pass a []float32 parameter of the kernel"},
		{"CopyAsyncWait not constant", ldmKernel(max, "", "kernel.CopyAsyncWait(n)"), "t.go:14:23: kernel.CopyAsyncWait's count must be a constant; write a constant: kernel.CopyAsyncWait(1)"},
		{"CopyAsyncWait too many", ldmKernel(max, "", "kernel.CopyAsyncWait(8)"), "t.go:14:23: kernel.CopyAsyncWait's count must be 0 to 7; wait for at most 7 pending batches"},
		{"CopyAsync in a helper", "func h() {\n\tkernel.CopyAsyncCommit()\n}\n//gpu:kernel\nfunc K(y []float32) { h() }",
			"t.go:8:2: kernel.CopyAsyncCommit in a helper is not allowed; call it in the kernel"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := load(tt.src)
			list := errorsOf(t, err)
			assert.Equal(t, tt.want, list[0].Error(), "all: %v", err)
		})
	}
}

// TestLowerLoadMatrices checks the statements LoadMatrices and CopyAsync
// become: the fragment as a place of the local array, the shared array,
// trans, the kernel marked as having barriers; CopyAsync under a varying
// condition, its buffer and shared array; Commit and Wait(n).
func TestLowerLoadMatrices(t *testing.T) {
	src := ldmKernel("//gpu:maxthreads 128", "var fs [2][2]uint32\n\tfor j := 0; j < 2; j++ {\n\t\tkernel.LoadMatrices2(&fs[j], tile, n+uint32(j), true)\n\t}",
		"if kernel.ThreadX() < 3 {\n\t\tkernel.CopyAsync(tile, kernel.ThreadX(), w, n)\n\t}\n\tkernel.CopyAsyncCommit()\n\tkernel.CopyAsyncWait(2)")
	m, err := load(src)
	require.NoError(t, err)
	k := m.Funcs[len(m.Funcs)-1]
	assert.True(t, k.Barriers)
	var loads []*ir.LoadMatrices
	var copies []*ir.CopyAsync
	var commits, waits int
	ir.WalkStmts(k.Body, func(s ir.Stmt) {
		switch x := s.(type) {
		case *ir.LoadMatrices:
			loads = append(loads, x)
		case *ir.CopyAsync:
			copies = append(copies, x)
		case *ir.CopyAsyncCommit:
			commits++
		case *ir.CopyAsyncWait:
			assert.Equal(t, 2, x.N)
			waits++
		}
	}, nil)
	require.Len(t, loads, 1)
	s := loads[0]
	assert.Equal(t, 2, s.N)
	assert.True(t, s.Trans)
	assert.Equal(t, "tile", s.Src.Var.Name)
	f, ok := s.Frag.(*ir.Index)
	require.True(t, ok, "frag is an element of fs: %T", s.Frag)
	assert.Equal(t, "fs", f.X.(*ir.Ref).Var.Name)
	assert.Equal(t, &ir.Array{Elem: ir.U32, Len: 2}, f.Type)
	assert.Equal(t, ir.U32, s.At.ExprType())
	require.Len(t, copies, 1)
	assert.Equal(t, "tile", copies[0].Dst.Var.Name)
	assert.Equal(t, "w", copies[0].Src.Var.Name)
	assert.Equal(t, 1, commits)
	assert.Equal(t, 1, waits)
}
