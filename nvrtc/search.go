package nvrtc

import (
	"os"
	"path/filepath"
	"runtime"

	"github.com/anygpu/gpu/internal/dl"
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

// shared is e as the shared search reads it.
func (e searchEnv) shared() dl.Env {
	return dl.Env{GOOS: e.goos, Getenv: e.getenv, Home: e.home, Root: e.root}
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
	return e.shared().Search(EnvLibrary, e.sonames(), e.dirs)
}

// dirs are the directories of steps 3 to 5 of candidates.
func (e searchEnv) dirs() []string {
	d := e.shared()
	libDirs := []string{"lib64", "lib"}
	if e.goos == "windows" {
		libDirs = []string{"bin", filepath.Join("bin", "x64"), filepath.Join("bin", "x86_64")}
	}
	out := d.EnvDirs([]string{"CUDA_HOME", "CUDA_PATH"}, libDirs...)
	if e.goos != "windows" {
		out = append(out, dl.Join(d.ToolkitDirs(), libDirs...)...)
	}
	return append(out, dl.Join(d.SitePackages(false), wheelDirs(e.goos)...)...)
}

// wheelDirs are where NVIDIA's Python wheels put libnvrtc inside site-packages.
func wheelDirs(goos string) []string {
	if goos == "windows" {
		return []string{filepath.Join("nvidia", "cu13", "bin", "x86_64"), filepath.Join("nvidia", "cu13", "bin"), filepath.Join("nvidia", "cuda_nvrtc", "bin")}
	}
	return []string{filepath.Join("nvidia", "cu13", "lib"), filepath.Join("nvidia", "cuda_nvrtc", "lib")}
}
