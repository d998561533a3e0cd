package cublaslt

import (
	"os"
	"path/filepath"
	"runtime"

	"github.com/anygpu/gpu/internal/dl"
)

// EnvLibrary names an explicit cuBLASLt library to load instead of
// searching.
const EnvLibrary = "ANYGPU_CUBLASLT_LIBRARY"

// searchEnv is what the library search reads from the system; tests replace
// it with fake directories.
type searchEnv struct {
	goos   string
	getenv func(string) string
	home   string
	root   string // prepended to the fixed system directories; "" in production
}

func defaultSearchEnv() searchEnv {
	home, _ := os.UserHomeDir()
	return searchEnv{goos: runtime.GOOS, getenv: os.Getenv, home: home}
}

// shared is e as the shared search reads it.
func (e searchEnv) shared() dl.Env {
	return dl.Env{GOOS: e.goos, Getenv: e.getenv, Home: e.home, Root: e.root}
}

// sonames are the cuBLASLt file names, newest first: each CUDA major version
// has its own.
func (e searchEnv) sonames() []string {
	if e.goos == "windows" {
		return []string{"cublasLt64_13.dll", "cublasLt64_12.dll"}
	}
	return []string{"libcublasLt.so.13", "libcublasLt.so.12"}
}

// candidates lists what Load tries, in order:
//
//  1. ANYGPU_CUBLASLT_LIBRARY, alone when set;
//  2. the sonames libcublasLt.so.13 and libcublasLt.so.12, found by the
//     system's search (LD_LIBRARY_PATH, the ld.so cache, RUNPATH);
//  3. $CUDA_HOME and $CUDA_PATH (lib64, targets/x86_64-linux/lib, lib; bin
//     on Windows);
//  4. /usr/local/cuda, then /usr/local/cuda-X.Y newest first (the same
//     subdirectories);
//  5. NVIDIA's Python wheels: nvidia/cu13/lib (CUDA 13's nvidia-cublas) and
//     nvidia/cublas/lib (CUDA 12's nvidia-cublas-cu12) in the site-packages
//     of $VIRTUAL_ENV, $CONDA_PREFIX, the virtual environments on $PATH,
//     ~/.local and the system Pythons, where PyTorch's wheels install it.
//
// Directory candidates are listed only where the file exists.
func (e searchEnv) candidates() []string {
	return e.shared().Search(EnvLibrary, e.sonames(), e.dirs)
}

// dirs are the directories of steps 3 to 5 of candidates.
func (e searchEnv) dirs() []string {
	d := e.shared()
	libDirs := []string{"lib64", filepath.Join("targets", "x86_64-linux", "lib"), filepath.Join("targets", "sbsa-linux", "lib"), "lib"}
	if e.goos == "windows" {
		libDirs = []string{"bin", filepath.Join("bin", "x64"), filepath.Join("bin", "x86_64")}
	}
	out := d.EnvDirs([]string{"CUDA_HOME", "CUDA_PATH"}, libDirs...)
	if e.goos != "windows" {
		out = append(out, dl.Join(d.ToolkitDirs(), libDirs...)...)
	}
	return append(out, dl.Join(d.SitePackages(true), wheelDirs(e.goos)...)...)
}

// wheelDirs are where NVIDIA's Python wheels put cuBLASLt inside
// site-packages.
func wheelDirs(goos string) []string {
	if goos == "windows" {
		return []string{filepath.Join("nvidia", "cu13", "bin", "x86_64"), filepath.Join("nvidia", "cu13", "bin"), filepath.Join("nvidia", "cublas", "bin")}
	}
	return []string{filepath.Join("nvidia", "cu13", "lib"), filepath.Join("nvidia", "cublas", "lib")}
}
