package naga_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/backend/opengl"
	"github.com/anygpu/gpu/internal/testreq"
	"github.com/anygpu/gpu/kernel/internal/emit/naga"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestGLSLText checks the shape the OpenGL backend relies on: the version
// first, one section per kernel with #ifndef defaults of the block macros and
// the layout that reads them, the SSBO and uniform bindings of the ABI, and
// the same text from one call to the next.
func TestGLSLText(t *testing.T) {
	for _, tc := range []struct {
		name    string
		emit    func(map[string]string) (string, error)
		version string
	}{
		{"glsl", naga.GLSL, "#version 430\n"},
		{"glsl es", naga.GLSLES, "#version 310 es\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text, err := tc.emit(modules())
			require.NoError(t, err)
			again, err := tc.emit(modules())
			require.NoError(t, err)
			assert.Equal(t, text, again, "the text is not deterministic")
			assert.True(t, strings.HasPrefix(text, tc.version), "text starts %q", text[:min(len(text), 40)])
			assert.Equal(t, 1, strings.Count(text, "#version"))
			for _, k := range testKernels {
				section := sectionOf(t, text, k.name)
				assert.Contains(t, section, "#ifndef ANYGPU_BLOCK_Y\n#define ANYGPU_BLOCK_Y "+itoa(k.blocks[0].Y)+"\n")
				assert.Contains(t, section, "#ifndef ANYGPU_BLOCK_Z\n#define ANYGPU_BLOCK_Z "+itoa(k.blocks[0].Norm().Z)+"\n")
				assert.Contains(t, section, "#ifndef ANYGPU_BLOCK_X\n#define ANYGPU_BLOCK_X "+itoa(k.blocks[0].X)+"\n")
				assert.Contains(t, section, "layout(local_size_x = ANYGPU_BLOCK_X, local_size_y = ANYGPU_BLOCK_Y, local_size_z = ANYGPU_BLOCK_Z) in;")
				nbuf := 0
				for _, p := range k.params {
					if p == backend.ArgBuffer {
						nbuf++
					}
				}
				for i := 0; i < nbuf; i++ {
					assert.Contains(t, section, "layout(std430, binding = "+itoa(i)+") buffer ")
				}
				if nbuf < len(k.params) {
					assert.Contains(t, section, "layout(std140, binding = "+itoa(nbuf)+") uniform ")
				} else {
					assert.NotContains(t, section, " uniform ", "a kernel without scalars has no uniform block")
				}
				assert.NotContains(t, section, "2053", "a sentinel is left in the text")
				if strings.Contains(tc.version, "es") {
					assert.Contains(t, section, "precision highp float;")
				}
			}
		})
	}
}

// sectionOf returns the text of kernel name's #ifdef section.
func sectionOf(t *testing.T, text, name string) string {
	t.Helper()
	start := strings.Index(text, "#ifdef ANYGPU_KERNEL_"+name+"\n")
	require.GreaterOrEqual(t, start, 0, "no section for %s", name)
	end := strings.Index(text[start:], "#endif // ANYGPU_KERNEL_"+name+"\n")
	require.Greater(t, end, 0, "section %s does not end", name)
	return text[start : start+end]
}

// TestGLSLRunsOnOpenGL runs every kernel through backend/opengl (llvmpipe
// here) with two block sizes: the backend recompiles with the block macros.
func TestGLSLRunsOnOpenGL(t *testing.T) {
	testreq.SkipUnlessAvailable(t, opengl.Driver{})
	text, err := naga.GLSL(modules())
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dev, err := gpu.OpenDriver(ctx, opengl.Driver{}, 0)
	require.NoError(t, err)
	defer dev.Close()
	runAll(t, dev, gpu.Source{Name: "naga_glsl", GLSL: text})
}

// TestGLSLESCompiles compiles every kernel's section of the GLSL ES text
// with glslc (the OpenGL backend opens no ES context yet), at the default
// block and at another.
func TestGLSLESCompiles(t *testing.T) {
	glslc, err := exec.LookPath("glslc")
	if err != nil {
		t.Skipf("no glslc to compile GLSL ES with: %v", err)
	}
	text, err := naga.GLSLES(modules())
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "kernels.comp")
	require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	for _, k := range testKernels {
		t.Run(k.name, func(t *testing.T) {
			for _, defs := range [][]string{nil, {"-DANYGPU_BLOCK_X=" + itoa(k.blocks[1].X), "-DANYGPU_BLOCK_Y=" + itoa(k.blocks[1].Y)}} {
				args := append([]string{"-fshader-stage=compute", "--target-env=opengl", "-DANYGPU_KERNEL_" + k.name, "-o", os.DevNull, path}, defs...)
				out, err := exec.Command(glslc, args...).CombinedOutput()
				require.NoError(t, err, "glslc %s: %s", strings.Join(args, " "), out)
			}
		})
	}
}
