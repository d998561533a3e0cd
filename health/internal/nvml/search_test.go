package nvml

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu/internal/dl"
)

func TestCandidates(t *testing.T) {
	root := t.TempDir()
	wsl := filepath.Join(root, "usr", "lib", "wsl", "lib")
	require.NoError(t, os.MkdirAll(wsl, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(wsl, "libnvidia-ml.so.1"), nil, 0o644))
	win := filepath.Join(root, "Windows")
	require.NoError(t, os.MkdirAll(filepath.Join(win, "System32"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(win, "System32", "nvml.dll"), nil, 0o644))
	vars := func(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }
	tests := []struct {
		name string
		env  dl.Env
		want []string
	}{
		{"override alone", dl.Env{GOOS: "linux", Root: root, Getenv: vars(map[string]string{EnvLibrary: " /opt/x/libnvidia-ml.so.1 "})},
			[]string{"/opt/x/libnvidia-ml.so.1"}},
		{"linux: soname, then WSL", dl.Env{GOOS: "linux", Root: root, Getenv: vars(nil)},
			[]string{"libnvidia-ml.so.1", filepath.Join(wsl, "libnvidia-ml.so.1")}},
		{"windows: name, then System32", dl.Env{GOOS: "windows", Getenv: vars(map[string]string{"WINDIR": win})},
			[]string{"nvml.dll", filepath.Join(win, "System32", "nvml.dll")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { assert.Equal(t, tt.want, Candidates(tt.env)) })
	}
}

func TestUnavailable(t *testing.T) {
	assert.Contains(t, Unavailable("darwin"), "NVML is not available on darwin")
	if dl.Supported {
		assert.Empty(t, Unavailable("linux"))
		assert.Empty(t, Unavailable("windows"))
	}
}
