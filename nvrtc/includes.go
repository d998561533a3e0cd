package nvrtc

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/anygpu/gpu/internal/dl"
)

// EnvInclude names the CUDA header directories to use instead of searching
// for them: a list separated by the system's path list separator (':' on
// Unix, ';' on Windows).
const EnvInclude = "ANYGPU_CUDA_INCLUDE"

// marker is the header whose presence makes a directory a CUDA include
// directory: every toolkit and both header wheels (nvidia/cuda_runtime for
// CUDA 12, nvidia/cu13 for CUDA 13) have it.
const marker = "cuda_fp16.h"

// includeDirs are the CUDA header directories NVRTC gets after the
// program's own include paths, so that <cuda_fp16.h>, <cuda_bf16.h>,
// <cooperative_groups.h> and (CUDA 13) <cuda/std/...> resolve with no
// options. libFile is the NVRTC library file loaded ("" when unknown): the
// headers of its own installation come first, so headers and compiler agree
// on the version. The search, in order, takes the first directory holding
// cuda_fp16.h among:
//
//  1. $ANYGPU_CUDA_INCLUDE, alone when set (every listed directory, as is);
//  2. the include directory of the NVRTC installation: <lib>/../include,
//     and for the CUDA 12 wheels (nvidia/cuda_nvrtc/lib) the sibling
//     nvidia/cuda_runtime/include;
//  3. $CUDA_HOME/include, $CUDA_PATH/include;
//  4. /usr/local/cuda/include, then /usr/local/cuda-X.Y/include newest
//     first (not on Windows);
//  5. the Python wheels' site-packages/nvidia/cu13/include and
//     nvidia/cuda_runtime/include.
//
// The chosen directory comes with its CCCL headers (<dir>/cccl, CUDA 13) and,
// for the CUDA 12 wheels, nvidia/cuda_cccl/include. None found: nil, and
// programs that include CUDA headers fail to compile with NVRTC's message.
func (e searchEnv) includeDirs(libFile string) []string {
	if v := strings.TrimSpace(e.getenv(EnvInclude)); v != "" {
		var out []string
		for _, d := range filepath.SplitList(v) {
			if d = strings.TrimSpace(d); d != "" {
				out = append(out, d)
			}
		}
		return out
	}
	var cands []string
	if libFile != "" {
		lib := filepath.Dir(libFile)
		if e.goos == "windows" && filepath.Base(lib) == "x86_64" { // nvidia/cu13/bin/x86_64
			lib = filepath.Dir(lib)
		}
		root := filepath.Dir(lib)
		cands = append(cands, filepath.Join(root, "include"), filepath.Join(filepath.Dir(root), "cuda_runtime", "include"))
	}
	d := e.shared()
	cands = append(cands, d.EnvDirs([]string{"CUDA_HOME", "CUDA_PATH"}, "include")...)
	if e.goos != "windows" {
		cands = append(cands, dl.Join(d.ToolkitDirs(), "include")...)
	}
	cands = append(cands, dl.Join(d.SitePackages(false), filepath.Join("nvidia", "cu13", "include"), filepath.Join("nvidia", "cuda_runtime", "include"))...)
	for _, c := range cands {
		if !isFile(filepath.Join(c, marker)) {
			continue
		}
		out := []string{c}
		for _, extra := range []string{filepath.Join(c, "cccl"), filepath.Join(filepath.Dir(filepath.Dir(c)), "cuda_cccl", "include")} {
			if isDir(extra) {
				out = append(out, extra)
			}
		}
		return out
	}
	return nil
}

func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && !fi.IsDir()
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// CUDAIncludePaths are the CUDA header directories the compiler adds after
// Options.IncludePaths (see Options.NoCUDAIncludes), for the NVRTC this
// process loads; nil when none is found or NVRTC is unavailable.
func CUDAIncludePaths() []string {
	l, err := load()
	if err != nil {
		return nil
	}
	return l.includes()
}

// includes is l's CUDA header directories, searched once.
func (l *library) includes() []string {
	l.incOnce.Do(func() { l.inc = defaultSearchEnv().includeDirs(l.file) })
	return l.inc
}
