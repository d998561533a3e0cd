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

func TestDeriveES(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
	}{
		{name: "version first", in: "#version 430\nlayout(local_size_x = 1) in;\nvoid main() {}\n",
			want: "#version 310 es\n" + esPrologue + "#line 2\nlayout(local_size_x = 1) in;\nvoid main() {}\n"},
		{name: "comment before the version", in: "// k\n#version 430 core\nvoid main() {}\n",
			want: "// k\n#version 310 es\n" + esPrologue + "#line 3\nvoid main() {}\n"},
		{name: "no version", in: "void main() {}\n",
			want: "#version 310 es\n" + esPrologue + "#line 1\nvoid main() {}\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := deriveES(tc.in)
			assert.Equal(t, tc.want, got)
			// prepare keeps the kernel macro right after the ES version line.
			assert.Contains(t, prepare(got, "k", nil, nil, false), "#version 310 es\n#define ANYGPU_KERNEL_k 1\n")
		})
	}
	for _, line := range strings.Split(strings.TrimSpace(esPrologue), "\n") {
		assert.Regexp(t, `^precision highp \w+;$`, line)
	}
}

func TestDialectOf(t *testing.T) {
	const glsl, es = "#version 430\nvoid main() {}\n", "#version 310 es\nvoid main() {}\n"
	for _, tc := range []struct {
		name             string
		src              backend.Source
		es, esCompatible bool
		want             dialect // zero: none
	}{
		{name: "GL takes GLSL", src: backend.Source{GLSL: glsl, GLSLES: es},
			want: dialect{text: glsl, lang: "GLSL", field: "Source.GLSL"}},
		{name: "GL takes GLSL ES where compatible", src: backend.Source{GLSLES: es}, esCompatible: true,
			want: dialect{text: es, lang: "GLSL ES", field: "Source.GLSLES"}},
		{name: "GL without GLSL", src: backend.Source{GLSLES: es, WGSL: "x"}},
		{name: "ES takes GLSL ES", src: backend.Source{GLSL: glsl, GLSLES: es}, es: true,
			want: dialect{text: es, lang: "GLSL ES", field: "Source.GLSLES"}},
		{name: "ES derives from GLSL", src: backend.Source{GLSL: glsl}, es: true,
			want: dialect{text: deriveES(glsl), lang: "GLSL ES", field: "Source.GLSL", derived: true}},
		{name: "ES text without a version", src: backend.Source{GLSLES: "void main() {}\n"}, es: true,
			want: dialect{text: "#version 310 es\n#line 1\nvoid main() {}\n", lang: "GLSL ES", field: "Source.GLSLES"}},
		{name: "ES with neither", src: backend.Source{GLSL: " \n", WGSL: "x"}, es: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := dialectOf(tc.src, tc.es, tc.esCompatible)
			assert.Equal(t, tc.want != dialect{}, ok)
			assert.Equal(t, tc.want, got)
		})
	}
}
