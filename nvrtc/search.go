package nvrtc

import (
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
)

// EnvLibrary names an explicit NVRTC library to load instead of searching.
const EnvLibrary = "ANYGPU_NVRTC_LIBRARY"

// searchEnv is what the library search reads from the system; tests replace
// it with fake directories.
type searchEnv struct {
	goos   string
	getenv func(string) string
	home   string
	// root is prepended to the fixed system directories (/usr/local/cuda,
	// /usr/lib/python3, ...); "" in production.
	root string
}

func defaultSearchEnv() searchEnv {
	home, _ := os.UserHomeDir()
	return searchEnv{goos: runtime.GOOS, getenv: os.Getenv, home: home}
}

// sonames are the NVRTC library file names, newest first: each CUDA major
// version has its own soname.
func (e searchEnv) sonames() []string {
	if e.goos == "windows" {
		return []string{"nvrtc64_130_0.dll", "nvrtc64_120_0.dll", "nvrtc64_120_0.alt.dll", "nvrtc64_112_0.dll"}
	}
	return []string{"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so.11.2"}
}

// candidates lists what Load tries, in order:
//
//  1. ANYGPU_NVRTC_LIBRARY, alone when set;
//  2. the sonames libnvrtc.so.13 and libnvrtc.so.12, found by the system's
//     search (LD_LIBRARY_PATH, the ld.so cache, RUNPATH);
//  3. $CUDA_HOME and $CUDA_PATH (lib64, lib; bin on Windows);
//  4. /usr/local/cuda, then /usr/local/cuda-X.Y newest first;
//  5. the NVIDIA Python wheels: nvidia/cu13/lib and nvidia/cuda_nvrtc/lib of
//     the site-packages of $VIRTUAL_ENV, $CONDA_PREFIX, ~/.local and the
//     system Pythons.
//
// Directory candidates are listed only when the file exists.
func (e searchEnv) candidates() []string {
	if p := strings.TrimSpace(e.getenv(EnvLibrary)); p != "" {
		return []string{p}
	}
	names := e.sonames()
	out := append([]string(nil), names...)
	seen := map[string]bool{}
	add := func(dir string) {
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
	libDirs := []string{"lib64", "lib"}
	if e.goos == "windows" {
		libDirs = []string{"bin", filepath.Join("bin", "x64"), filepath.Join("bin", "x86_64")}
	}
	for _, env := range []string{"CUDA_HOME", "CUDA_PATH"} {
		if d := strings.TrimSpace(e.getenv(env)); d != "" {
			for _, l := range libDirs {
				add(filepath.Join(d, l))
			}
		}
	}
	if e.goos != "windows" {
		for _, d := range e.toolkitDirs() {
			for _, l := range libDirs {
				add(filepath.Join(d, l))
			}
		}
	}
	for _, sp := range e.sitePackages() {
		for _, sub := range wheelDirs(e.goos) {
			add(filepath.Join(sp, sub))
		}
	}
	return out
}

// wheelDirs are where NVIDIA's Python wheels put libnvrtc inside site-packages.
func wheelDirs(goos string) []string {
	if goos == "windows" {
		return []string{filepath.Join("nvidia", "cu13", "bin", "x86_64"), filepath.Join("nvidia", "cu13", "bin"), filepath.Join("nvidia", "cuda_nvrtc", "bin")}
	}
	return []string{filepath.Join("nvidia", "cu13", "lib"), filepath.Join("nvidia", "cuda_nvrtc", "lib")}
}

// toolkitDirs are /usr/local/cuda, then /usr/local/cuda-X.Y, newest first.
func (e searchEnv) toolkitDirs() []string {
	base := filepath.Join(e.root, "/usr/local")
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

// sitePackages lists the Python package directories worth looking in.
func (e searchEnv) sitePackages() []string {
	var out []string
	glob := func(pattern string) {
		m, _ := filepath.Glob(pattern)
		sort.Sort(sort.Reverse(sort.StringSlice(m))) // newest Python first
		out = append(out, m...)
	}
	for _, env := range []string{"VIRTUAL_ENV", "CONDA_PREFIX"} {
		if d := strings.TrimSpace(e.getenv(env)); d != "" {
			if e.goos == "windows" {
				out = append(out, filepath.Join(d, "Lib", "site-packages"))
			} else {
				glob(filepath.Join(d, "lib", "python3*", "site-packages"))
			}
		}
	}
	if e.goos == "windows" {
		return out
	}
	if e.home != "" {
		glob(filepath.Join(e.home, ".local", "lib", "python3*", "site-packages"))
	}
	glob(filepath.Join(e.root, "/usr/local/lib", "python3*", "dist-packages"))
	glob(filepath.Join(e.root, "/usr/local/lib", "python3*", "site-packages"))
	out = append(out, filepath.Join(e.root, "/usr/lib/python3/dist-packages"))
	glob(filepath.Join(e.root, "/usr/lib", "python3.*", "site-packages"))
	return out
}
