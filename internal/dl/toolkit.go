package dl

import (
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// ToolkitDirs are the CUDA toolkit's Unix installation directories:
// /usr/local/cuda, then /usr/local/cuda-X.Y newest first (numerically:
// cuda-12.10 before cuda-12.9).
func (e Env) ToolkitDirs() []string {
	base := filepath.Join(e.Root, "/usr/local")
	out := []string{filepath.Join(base, "cuda")}
	matches, _ := filepath.Glob(filepath.Join(base, "cuda-*"))
	sort.Slice(matches, func(i, j int) bool { return versionLess(matches[j], matches[i]) })
	return append(out, matches...)
}

// versionLess orders paths ending in a version ("cuda-12.10" after
// "cuda-12.9") numerically.
func versionLess(a, b string) bool {
	va, vb := versionOf(a), versionOf(b)
	for i := 0; i < len(va) && i < len(vb); i++ {
		if va[i] != vb[i] {
			return va[i] < vb[i]
		}
	}
	if len(va) != len(vb) {
		return len(va) < len(vb)
	}
	return a < b
}

// versionOf is the dotted version after the last '-' of p's base name,
// up to its first part that is not a number.
func versionOf(p string) []int {
	base := filepath.Base(p)
	if i := strings.LastIndexByte(base, '-'); i >= 0 {
		base = base[i+1:]
	}
	var out []int
	for _, f := range strings.Split(base, ".") {
		n, err := strconv.Atoi(f)
		if err != nil {
			break
		}
		out = append(out, n)
	}
	return out
}
