package cuda

import (
	"fmt"
	"strings"
	"testing"

	"github.com/anygpu/gpu/kernel/internal/ir"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// numbered is src with line numbers, for failure messages.
func numbered(src string) string {
	var b strings.Builder
	for i, l := range strings.Split(src, "\n") {
		fmt.Fprintf(&b, "%4d  %s\n", i+1, l)
	}
	return b.String()
}

func TestSaxpy(t *testing.T) {
	src, err := Emit(&ir.Module{Funcs: []*ir.Func{saxpy()}})
	require.NoError(t, err)
	assert.Contains(t, src, `extern "C" __global__ void Saxpy(float* y, float* x, unsigned n, float a) {`)
	assert.Contains(t, src, "unsigned i = blockIdx.x * blockDim.x + threadIdx.x;")
	assert.Contains(t, src, "if (i < n) {")
	assert.Contains(t, src, "y[i] = (a * x[i]) + y[i];")
	assert.NotContains(t, src, "anygpu_", "saxpy needs no helper")
	clangCheck(t, src)
}

// TestPragmaUnroll: a loop with a constant trip count the optimizer left
// rolled asks NVRTC to unroll it; others do not.
func TestPragmaUnroll(t *testing.T) {
	mk := func(trips int) *ir.Module {
		i := &ir.Var{Name: "i", Type: ir.U32, Class: ir.Local}
		zero, end, one := &ir.Const{Type: ir.U32}, &ir.Const{Type: ir.U32, Uint: 16}, &ir.Const{Type: ir.U32, Uint: 1}
		loop := &ir.For{
			Init:  &ir.Decl{Var: i, Init: zero},
			Cond:  &ir.Binary{Op: ir.Lt, X: &ir.Ref{Var: i}, Y: end, Type: ir.Bool},
			Post:  &ir.Assign{Place: &ir.Ref{Var: i}, Value: &ir.Binary{Op: ir.Add, X: &ir.Ref{Var: i}, Y: one, Type: ir.U32}},
			Trips: trips,
		}
		return &ir.Module{Funcs: []*ir.Func{{Name: "K", Kernel: true, Body: []ir.Stmt{loop}}}}
	}
	src, err := Emit(mk(16))
	require.NoError(t, err, "%v", err)
	assert.Contains(t, src, "#pragma unroll\n\tfor (unsigned i = 0u; i < 16u; i = i + 1u) {")
	clangCheck(t, src)
	src, err = Emit(mk(0))
	require.NoError(t, err)
	assert.NotContains(t, src, "#pragma")
	src, err = Emit(mk(maxPragmaUnroll + 1))
	require.NoError(t, err)
	assert.NotContains(t, src, "#pragma", "too long to unroll")
}

// TestLaunchBounds: //gpu:maxthreads N becomes __launch_bounds__(N), and
// with //gpu:mingroups M, __launch_bounds__(N, M).
func TestLaunchBounds(t *testing.T) {
	tests := []struct {
		max, min int
		want     string
	}{
		{512, 0, "__launch_bounds__(512) "},
		{128, 3, "__launch_bounds__(128, 3) "},
	}
	for _, tc := range tests {
		k := saxpy()
		k.MaxThreads, k.MinGroups = tc.max, tc.min
		src, err := Emit(&ir.Module{Funcs: []*ir.Func{k}})
		require.NoError(t, err)
		assert.Contains(t, src, `extern "C" __global__ void `+tc.want+`Saxpy(float* y, float* x, unsigned n, float a) {`)
		clangCheck(t, src)
		nvrtcCheck(t, src)
	}
}
