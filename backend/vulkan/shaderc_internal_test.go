//go:build (darwin || freebsd || linux || netbsd || windows) && (amd64 || arm64)

package vulkan

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/errors"
)

const glslcTestSource = `#version 450
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) buffer Y { float y[]; };
void main() { y[gl_GlobalInvocationID.x] = 1.0; }
`

// TestGLSLCFailures runs GLSL through external compilers that fail: one
// that exits with an error (with or without output) rejected the source,
// Compilation with its output; one that cannot run or writes no SPIR-V is
// NotSupported, naming its path and ANYGPU_GLSLC; never Internal.
func TestGLSLCFailures(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the fake compilers are shell scripts")
	}
	dir := t.TempDir()
	script := func(name, body string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), mode))
		return p
	}
	falsePath, err := exec.LookPath("false")
	require.NoError(t, err)
	truePath, err := exec.LookPath("true")
	require.NoError(t, err)
	for _, tc := range []struct {
		name    string
		glslc   string
		want    errors.Category
		contain []string // in the message or the log
	}{
		{"false", falsePath, errors.Compilation, []string{falsePath, "exit status 1"}},
		{"error on stderr", script("glslc-err", "echo '<stdin>:3: error: undeclared identifier' >&2; exit 2", 0o755), errors.Compilation, []string{"undeclared identifier", "exit status 2"}},
		{"error on stdout", script("glslc-out", "echo 'shader rejected'; exit 1", 0o755), errors.Compilation, []string{"shader rejected"}},
		{"not executable", script("glslc-noexec", "exit 0", 0o644), errors.NotSupported, []string{"glslc-noexec", EnvGLSLC}},
		{"missing", filepath.Join(dir, "absent"), errors.NotSupported, []string{"absent", EnvGLSLC}},
		{"writes no SPIR-V", truePath, errors.NotSupported, []string{truePath, EnvGLSLC}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := compileWithGLSLC(tc.glslc, glslcTestSource, []string{"k"}, backend.CompileOptions{}, "-O", "vulkan1.1")
			require.Error(t, err)
			assert.Equal(t, tc.want, errors.CategoryOf(err), "%v", err)
			text := err.Error() + "\n" + errors.LogOf(err)
			for _, c := range tc.contain {
				assert.Contains(t, text, c)
			}
			if tc.want == errors.Compilation {
				assert.NotEmpty(t, errors.LogOf(err))
			}
		})
	}
}

// TestGLSLCFromEnvironment compiles GLSL in a child process that cannot
// load libshaderc and has ANYGPU_GLSLC=/bin/false (libshaderc is loaded once
// per process, so the child is needed): Compilation, not Internal.
func TestGLSLCFromEnvironment(t *testing.T) {
	if os.Getenv("ANYGPU_TEST_GLSLC_CHILD") == "1" {
		_, err := compileGLSL(backend.Source{Name: "k", GLSL: glslcTestSource}, backend.CompileOptions{}, 0)
		require.Error(t, err)
		require.Equal(t, errors.Compilation, errors.CategoryOf(err), "%v", err)
		require.Contains(t, err.Error(), os.Getenv(EnvGLSLC))
		return
	}
	if runtime.GOOS == "windows" {
		t.Skip("no /bin/false")
	}
	falsePath, err := exec.LookPath("false")
	require.NoError(t, err)
	cmd := exec.Command(os.Args[0], "-test.run=^TestGLSLCFromEnvironment$", "-test.count=1")
	cmd.Env = append(os.Environ(), "ANYGPU_TEST_GLSLC_CHILD=1", EnvGLSLC+"="+falsePath, EnvShaderc+"="+filepath.Join(t.TempDir(), "libshaderc-absent.so"))
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
}
