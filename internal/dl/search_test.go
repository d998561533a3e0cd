package dl

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// touch creates an empty file at p and the directories above it.
func touch(t *testing.T, p string) string {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, nil, 0o644))
	return p
}

// fakeEnv is an Env over the variables of env and directories under root.
func fakeEnv(root string, env map[string]string) Env {
	return Env{GOOS: "linux", Getenv: func(k string) string { return env[k] }, Home: filepath.Join(root, "home"), Root: root}
}

func TestSearch(t *testing.T) {
	root := t.TempDir()
	a, b := filepath.Join(root, "a"), filepath.Join(root, "b")
	aNew := touch(t, filepath.Join(a, "libx.so.2"))
	bOld := touch(t, filepath.Join(b, "libx.so.1"))
	bNew := touch(t, filepath.Join(b, "libx.so.2"))
	// A directory named like the library is not a candidate.
	require.NoError(t, os.MkdirAll(filepath.Join(a, "libx.so.1"), 0o755))

	env := map[string]string{}
	e := fakeEnv(root, env)
	names := []string{"libx.so.2", "libx.so.1"}
	dirs := func() []string { return []string{a, filepath.Join(root, "none"), b, a} }
	assert.Equal(t, []string{"libx.so.2", "libx.so.1", aNew, bNew, bOld}, e.Search("X_LIBRARY", names, dirs),
		"names first, then each directory's existing files once, in order")

	env["X_LIBRARY"] = "  /somewhere/libx.so  "
	called := false
	got := e.Search("X_LIBRARY", names, func() []string { called = true; return nil })
	assert.Equal(t, []string{"/somewhere/libx.so"}, got, "the override alone")
	assert.False(t, called, "no directory search with an override")
}

func TestEnvDirs(t *testing.T) {
	e := fakeEnv("", map[string]string{"A_HOME": "/a", "B_HOME": "  ", "C_HOME": " /c "})
	assert.Equal(t, []string{"/a/lib64", "/a/lib", "/c/lib64", "/c/lib"},
		e.EnvDirs([]string{"A_HOME", "B_HOME", "C_HOME", "D_HOME"}, "lib64", "lib"))
	assert.Empty(t, e.EnvDirs([]string{"D_HOME"}, "lib"))
}

func TestJoin(t *testing.T) {
	assert.Equal(t, []string{"/x/a", "/x/b/c", "/y/a", "/y/b/c"}, Join([]string{"/x", "/y"}, "a", "b/c"))
	assert.Empty(t, Join(nil, "a"))
}
