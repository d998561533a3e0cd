package collective

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// EnvLibrary names an explicit NCCL library to load instead of searching.
const EnvLibrary = "ANYGPU_NCCL_LIBRARY"

// soname is the NCCL library's file name: NCCL 2.x keeps one soname.
const soname = "libnccl.so.2"

// searchEnv is what the library search reads from the system; tests replace
// it with fake directories.
type searchEnv struct {
	getenv func(string) string
	home   string
	// root is prepended to the fixed system directories; "" in production.
	root string
}

func defaultSearchEnv() searchEnv {
	home, _ := os.UserHomeDir()
	return searchEnv{getenv: os.Getenv, home: home}
}

// candidates lists what the loader tries, in order:
//
//  1. ANYGPU_NCCL_LIBRARY, alone when set;
//  2. libnccl.so.2 found by the system's search (LD_LIBRARY_PATH, the ld.so
//     cache: NVIDIA's libnccl2 package);
//  3. $NCCL_HOME/lib, $CUDA_HOME/lib64, /usr/local/cuda/lib64 and
//     /usr/local/cuda-X.Y/lib64 (newest first);
//  4. the nvidia-nccl-cu13 / -cu12 Python wheels (nvidia/nccl/lib, which
//     PyTorch installs) in the site-packages of $VIRTUAL_ENV, $CONDA_PREFIX,
//     every python3 on $PATH (a virtual environment's bin), ~/.local and the
//     system Pythons.
//
// Directory candidates are listed only when the file exists.
func (e searchEnv) candidates() []string {
	if p := strings.TrimSpace(e.getenv(EnvLibrary)); p != "" {
		return []string{p}
	}
	out := []string{soname}
	seen := map[string]bool{}
	add := func(dir string) {
		p := filepath.Join(dir, soname)
		if seen[p] {
			return
		}
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			seen[p] = true
			out = append(out, p)
		}
	}
	if d := strings.TrimSpace(e.getenv("NCCL_HOME")); d != "" {
		add(filepath.Join(d, "lib"))
		add(filepath.Join(d, "lib64"))
	}
	for _, env := range []string{"CUDA_HOME", "CUDA_PATH"} {
		if d := strings.TrimSpace(e.getenv(env)); d != "" {
			add(filepath.Join(d, "lib64"))
			add(filepath.Join(d, "lib"))
		}
	}
	base := filepath.Join(e.root, "/usr/local")
	add(filepath.Join(base, "cuda", "lib64"))
	versioned, _ := filepath.Glob(filepath.Join(base, "cuda-*"))
	sort.Sort(sort.Reverse(sort.StringSlice(versioned)))
	for _, d := range versioned {
		add(filepath.Join(d, "lib64"))
	}
	for _, sp := range e.sitePackages() {
		add(filepath.Join(sp, "nvidia", "nccl", "lib"))
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
			glob(filepath.Join(d, "lib", "python3*", "site-packages"))
		}
	}
	// A virtual environment on PATH without VIRTUAL_ENV set (a container
	// image's /opt/venv/bin first on PATH).
	for _, dir := range filepath.SplitList(e.getenv("PATH")) {
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
	if e.home != "" {
		glob(filepath.Join(e.home, ".local", "lib", "python3*", "site-packages"))
	}
	glob(filepath.Join(e.root, "/usr/local/lib", "python3*", "dist-packages"))
	glob(filepath.Join(e.root, "/usr/local/lib", "python3*", "site-packages"))
	out = append(out, filepath.Join(e.root, "/usr/lib/python3/dist-packages"))
	glob(filepath.Join(e.root, "/usr/lib", "python3*", "site-packages"))
	return out
}
