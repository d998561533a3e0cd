package collective

import (
	"os"
	"path/filepath"

	"github.com/anygpu/gpu/internal/dl"
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

// shared is e as the shared search reads it: with the Unix layout always,
// NCCL being a Linux library.
func (e searchEnv) shared() dl.Env {
	return dl.Env{Getenv: e.getenv, Home: e.home, Root: e.root}
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
	return e.shared().Search(EnvLibrary, []string{soname}, e.dirs)
}

// dirs are the directories of steps 3 and 4 of candidates.
func (e searchEnv) dirs() []string {
	d := e.shared()
	out := d.EnvDirs([]string{"NCCL_HOME"}, "lib", "lib64")
	out = append(out, d.EnvDirs([]string{"CUDA_HOME", "CUDA_PATH"}, "lib64", "lib")...)
	out = append(out, dl.Join(d.ToolkitDirs(), "lib64")...)
	return append(out, dl.Join(d.SitePackages(true), filepath.Join("nvidia", "nccl", "lib"))...)
}
