package nvtx

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu/internal/dl"
)

func envOf(goos string, vars map[string]string) dl.Env {
	return dl.Env{GOOS: goos, Getenv: func(k string) string { return vars[k] }}
}

func TestCandidates(t *testing.T) {
	root := t.TempDir()
	lib := filepath.Join(root, "lib64", "libnvToolsExt.so.1")
	require.NoError(t, os.MkdirAll(filepath.Dir(lib), 0o755))
	require.NoError(t, os.WriteFile(lib, nil, 0o644))
	cases := []struct {
		name string
		env  map[string]string
		goos string
		want []string
	}{
		{"override alone", map[string]string{EnvLibrary: " /opt/nvtx.so "}, "linux", []string{"/opt/nvtx.so"}},
		{"names then CUDA_HOME", map[string]string{"CUDA_HOME": root}, "linux", []string{"libnvToolsExt.so.1", "libnvToolsExt.so", "libnvtx3interop.so.1", lib}},
		{"windows", nil, "windows", []string{"nvToolsExt64_1.dll"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			env := envOf(c.goos, c.env)
			env.Root = t.TempDir() // no toolkit under /usr/local
			assert.Equal(t, c.want, candidates(env))
		})
	}
}

func TestLoadMissing(t *testing.T) {
	_, err := loadFrom([]string{filepath.Join(t.TempDir(), "libnvToolsExt.so.1")})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "nvtx: ")
	assert.Contains(t, err.Error(), "libnvToolsExt.so.1")
}

// Where the library is installed (the GPU machine), ranges go through it.
func TestStartEnd(t *testing.T) {
	lib, err := Load()
	if err != nil {
		t.Skip(err)
	}
	outer := lib.Start("anygpu outer")
	inner := lib.Start("anygpu inner")
	lib.End(inner)
	lib.End(outer)
	t.Log("NVTX library:", lib.Path)
}
