package dl

import (
	"path/filepath"
	"sort"
	"strings"
)

// SitePackages lists the Python package directories worth looking in for a
// library that NVIDIA ships as a Python wheel, in order: those of
// $VIRTUAL_ENV and $CONDA_PREFIX; with fromPath, those of every virtual
// environment whose bin directory holding a python3 is on $PATH (a
// container image's /opt/venv/bin, with no VIRTUAL_ENV set); then, on Unix,
// ~/.local's and the system Pythons'. Within one place the newest Python
// comes first.
func (e Env) SitePackages(fromPath bool) []string {
	var out []string
	glob := func(pattern string) {
		m, _ := filepath.Glob(pattern)
		sort.Sort(sort.Reverse(sort.StringSlice(m))) // newest Python first
		out = append(out, m...)
	}
	for _, env := range []string{"VIRTUAL_ENV", "CONDA_PREFIX"} {
		if d := strings.TrimSpace(e.Getenv(env)); d != "" {
			if e.GOOS == "windows" {
				out = append(out, filepath.Join(d, "Lib", "site-packages"))
			} else {
				glob(filepath.Join(d, "lib", "python3*", "site-packages"))
			}
		}
	}
	if e.GOOS == "windows" {
		return out
	}
	if fromPath {
		for _, dir := range filepath.SplitList(e.Getenv("PATH")) {
			if dir == "" || filepath.Base(dir) != "bin" {
				continue
			}
			if m, _ := filepath.Glob(filepath.Join(dir, "python3*")); len(m) == 0 {
				continue
			}
			prefix := filepath.Dir(dir)
			if prefix == "/" || prefix == "/usr" {
				continue // the system Python: below
			}
			glob(filepath.Join(prefix, "lib", "python3*", "site-packages"))
		}
	}
	if e.Home != "" {
		glob(filepath.Join(e.Home, ".local", "lib", "python3*", "site-packages"))
	}
	glob(filepath.Join(e.Root, "/usr/local/lib", "python3*", "dist-packages"))
	glob(filepath.Join(e.Root, "/usr/local/lib", "python3*", "site-packages"))
	out = append(out, filepath.Join(e.Root, "/usr/lib/python3/dist-packages"))
	glob(filepath.Join(e.Root, "/usr/lib", "python3*", "site-packages"))
	return out
}
