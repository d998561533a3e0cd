package dl

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestToolkitDirs(t *testing.T) {
	root := t.TempDir()
	base := filepath.Join(root, "usr", "local")
	for _, d := range []string{"cuda-12.9", "cuda-9.2", "cuda-12.10", "cuda-11.8"} {
		require.NoError(t, os.MkdirAll(filepath.Join(base, d), 0o755))
	}
	e := fakeEnv(root, nil)
	want := []string{"cuda", "cuda-12.10", "cuda-12.9", "cuda-11.8", "cuda-9.2"}
	for i, d := range want {
		want[i] = filepath.Join(base, d)
	}
	assert.Equal(t, want, e.ToolkitDirs(), "/usr/local/cuda first, then newest first, numerically")
}

func TestVersionLess(t *testing.T) {
	assert.True(t, versionLess("cuda-12.9", "cuda-12.10"))
	assert.False(t, versionLess("cuda-12.10", "cuda-12.9"))
	assert.True(t, versionLess("cuda-12", "cuda-12.0"), "fewer parts first")
	assert.True(t, versionLess("cuda-x", "cuda-y"), "no version: by name")
	assert.Equal(t, []int{12, 4}, versionOf("/usr/local/cuda-12.4"))
	assert.Nil(t, versionOf("/usr/local/cuda"))
}
