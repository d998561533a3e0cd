package opengl

import (
	"strings"
	"testing"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/kernels"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPrepare(t *testing.T) {
	src := "// comment\n#version 430\nlayout(local_size_x = 1) in;\nvoid main() {}\n"
	got := prepare(src, "k", map[string]string{"B": "2", "A": ""}, &backend.Dim3{X: 8}, true)
	want := "// comment\n#version 430\n" +
		"#define ANYGPU_KERNEL_k 1\n#define A\n#define B 2\n" +
		"#define ANYGPU_BLOCK_X 8\n#define ANYGPU_BLOCK_Y 1\n#define ANYGPU_BLOCK_Z 1\n" +
		"#pragma optimize(off)\n#pragma debug(on)\n" +
		"#line 3\nlayout(local_size_x = 1) in;\nvoid main() {}\n"
	assert.Equal(t, want, got)

	// No #version: one is put first, and line 1 stays line 1.
	got = prepare("void main() {}", "k", nil, nil, false)
	assert.Equal(t, "#version 430\n#define ANYGPU_KERNEL_k 1\n#line 1\nvoid main() {}", got)

	// A #version line without a newline at the end of the text.
	got = prepare("#version 450", "k", nil, nil, false)
	assert.Equal(t, "#version 450\n#define ANYGPU_KERNEL_k 1\n#line 2\n", got)
}

func TestEntryPoints(t *testing.T) {
	assert.Equal(t, []string{"solo"}, entryPoints(backend.Source{Name: "solo", GLSL: "x"}))
	assert.Equal(t, []string{"a", "b"}, entryPoints(backend.Source{Name: "m", Params: map[string][]backend.ArgKind{"b": nil, "a": nil}}))
}

func TestIdentifiersAndDefines(t *testing.T) {
	for _, s := range []string{"a", "_x", "axpy2", "reduce_sum", "ABC"} {
		assert.True(t, isIdent(s), s)
	}
	for _, s := range []string{"", "2a", "a-b", "a b", "ä"} {
		assert.False(t, isIdent(s), s)
	}
	require.NoError(t, checkDefines(map[string]string{"N": "4", "FLAG": ""}))
	assert.Error(t, checkDefines(map[string]string{"1N": "4"}))
	assert.Error(t, checkDefines(map[string]string{"N": "4\n#define X"}))
	assert.True(t, strings.HasPrefix(kernelMacro("fill"), "ANYGPU_KERNEL_"))
}

func TestBuiltinGLSL(t *testing.T) {
	src := kernels.Source()
	require.True(t, strings.HasPrefix(src.GLSL, "#version 430\n"))
	for _, op := range kernels.Ops() {
		assert.Contains(t, src.GLSL, kernelMacro(op), "a section for %s", op)
	}
	assert.Contains(t, src.GLSL, BlockMacroX)
	assert.NotContains(t, src.GLSL, "`")
}
