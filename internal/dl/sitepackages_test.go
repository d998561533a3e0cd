package dl

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSitePackages(t *testing.T) {
	root := t.TempDir()
	mk := func(rel string) string {
		p := filepath.Join(root, rel)
		require.NoError(t, os.MkdirAll(p, 0o755))
		return p
	}
	venv311 := mk("venv/lib/python3.11/site-packages")
	venv312 := mk("venv/lib/python3.12/site-packages")
	conda := mk("conda/lib/python3.10/site-packages")
	onPath := mk("opt/tools/lib/python3.12/site-packages")
	touch(t, filepath.Join(root, "opt/tools/bin/python3"))
	mk("opt/nopython/lib/python3.12/site-packages") // its bin holds no python3
	user := mk("home/.local/lib/python3.11/site-packages")
	localDist := mk("usr/local/lib/python3.12/dist-packages")
	localSite := mk("usr/local/lib/python3.12/site-packages")
	system := mk("usr/lib/python3.12/site-packages")

	env := map[string]string{
		"VIRTUAL_ENV":  filepath.Join(root, "venv"),
		"CONDA_PREFIX": filepath.Join(root, "conda"),
		"PATH": filepath.Join(root, "opt/tools/bin") + string(os.PathListSeparator) +
			filepath.Join(root, "opt/nopython/bin") + string(os.PathListSeparator) + "/usr/bin",
	}
	e := fakeEnv(root, env)
	debian := filepath.Join(root, "usr/lib/python3/dist-packages")
	assert.Equal(t, []string{venv312, venv311, conda, user, localDist, localSite, debian, system}, e.SitePackages(false))
	assert.Equal(t, []string{venv312, venv311, conda, onPath, user, localDist, localSite, debian, system}, e.SitePackages(true),
		"a virtual environment on PATH after $CONDA_PREFIX")

	w := Env{GOOS: "windows", Getenv: func(k string) string { return env[k] }, Home: e.Home, Root: root}
	assert.Equal(t, []string{
		filepath.Join(root, "venv", "Lib", "site-packages"),
		filepath.Join(root, "conda", "Lib", "site-packages"),
	}, w.SitePackages(true), "Windows: the environments' own only")
}
