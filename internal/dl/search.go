package dl

import (
	"os"
	"path/filepath"
	"strings"
)

// Env is what a library search reads from the system; tests replace it
// with fake directories.
type Env struct {
	// GOOS selects the directory layout: Windows's for "windows", Unix's
	// for any other value.
	GOOS string
	// Getenv reads an environment variable (os.Getenv in production).
	Getenv func(string) string
	// Home is the user's home directory, "" when unknown.
	Home string
	// Root is prepended to the fixed system directories (/usr/local/cuda,
	// /usr/lib/python3, ...); "" in production.
	Root string
}

// Search lists the candidates for a library, in the order to try them:
// the value of the environment variable override alone when it is set
// (surrounding space trimmed); else names, for the system's own search,
// then dir/name for each directory that dirs returns and each of names, in
// that order, but only where that is a file, and once. dirs is called only
// when there is no override.
func (e Env) Search(override string, names []string, dirs func() []string) []string {
	if p := strings.TrimSpace(e.Getenv(override)); p != "" {
		return []string{p}
	}
	out := append([]string(nil), names...)
	seen := map[string]bool{}
	for _, dir := range dirs() {
		for _, n := range names {
			p := filepath.Join(dir, n)
			if seen[p] {
				continue
			}
			if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	return out
}

// EnvDirs joins the value of each environment variable of vars that is set
// (surrounding space trimmed) with each of subs: the directories under
// $CUDA_HOME and the like, in the order of vars, then subs.
func (e Env) EnvDirs(vars []string, subs ...string) []string {
	var dirs []string
	for _, v := range vars {
		if d := strings.TrimSpace(e.Getenv(v)); d != "" {
			dirs = append(dirs, d)
		}
	}
	return Join(dirs, subs...)
}

// Join joins each of dirs with each of subs, in the order of dirs, then
// subs.
func Join(dirs []string, subs ...string) []string {
	out := make([]string, 0, len(dirs)*len(subs))
	for _, d := range dirs {
		for _, s := range subs {
			out = append(out, filepath.Join(d, s))
		}
	}
	return out
}
