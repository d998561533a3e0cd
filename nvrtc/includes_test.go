package nvrtc

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/anygpu/gpu/errors"
	"github.com/anygpu/gpu/internal/fakenvrtc"
	"github.com/stretchr/testify/require"
)

// TestIncludeSearch builds fake installations and checks which CUDA header
// directories the compiler adds.
func TestIncludeSearch(t *testing.T) {
	type layout struct {
		name    string
		env     map[string]string
		files   []string // relative to the root; headers are created empty
		dirs    []string // directories to create, relative to the root
		libFile string   // the loaded NVRTC, relative to the root ("" unknown)
		want    []string // relative to the root
	}
	for _, tc := range []layout{
		{name: "nothing installed"},
		{name: "the toolkit in /usr/local/cuda, with CUDA 13's cccl",
			files: []string{"usr/local/cuda/include/cuda_fp16.h"}, dirs: []string{"usr/local/cuda/include/cccl"},
			want: []string{"usr/local/cuda/include", "usr/local/cuda/include/cccl"}},
		{name: "the newest versioned toolkit when /usr/local/cuda has no headers",
			files: []string{"usr/local/cuda-12.9/include/cuda_fp16.h", "usr/local/cuda-12.10/include/cuda_fp16.h"},
			want:  []string{"usr/local/cuda-12.10/include"}},
		{name: "CUDA_HOME before /usr/local/cuda", env: map[string]string{"CUDA_HOME": "opt/cuda"},
			files: []string{"opt/cuda/include/cuda_fp16.h", "usr/local/cuda/include/cuda_fp16.h"},
			want:  []string{"opt/cuda/include"}},
		{name: "CUDA_PATH when CUDA_HOME has no headers", env: map[string]string{"CUDA_HOME": "nowhere", "CUDA_PATH": "opt/cuda"},
			files: []string{"opt/cuda/include/cuda_fp16.h"}, want: []string{"opt/cuda/include"}},
		{name: "the loaded NVRTC's own toolkit first", env: map[string]string{"CUDA_HOME": "opt/cuda"},
			files:   []string{"opt/cuda/include/cuda_fp16.h", "usr/local/cuda-13.0/include/cuda_fp16.h", "usr/local/cuda-13.0/lib64/libnvrtc.so.13"},
			libFile: "usr/local/cuda-13.0/lib64/libnvrtc.so.13", want: []string{"usr/local/cuda-13.0/include"}},
		{name: "CUDA 13 wheel: nvidia/cu13/include and its cccl", env: map[string]string{"VIRTUAL_ENV": "venv"},
			files:   []string{"venv/lib/python3.12/site-packages/nvidia/cu13/include/cuda_fp16.h", "venv/lib/python3.12/site-packages/nvidia/cu13/lib/libnvrtc.so.13"},
			dirs:    []string{"venv/lib/python3.12/site-packages/nvidia/cu13/include/cccl"},
			libFile: "venv/lib/python3.12/site-packages/nvidia/cu13/lib/libnvrtc.so.13",
			want:    []string{"venv/lib/python3.12/site-packages/nvidia/cu13/include", "venv/lib/python3.12/site-packages/nvidia/cu13/include/cccl"}},
		{name: "CUDA 12 wheels: cuda_runtime/include beside cuda_nvrtc, with cuda_cccl", env: map[string]string{"VIRTUAL_ENV": "venv"},
			files: []string{"venv/lib/python3.11/site-packages/nvidia/cuda_runtime/include/cuda_fp16.h",
				"venv/lib/python3.11/site-packages/nvidia/cuda_nvrtc/include/nvrtc.h",
				"venv/lib/python3.11/site-packages/nvidia/cuda_nvrtc/lib/libnvrtc.so.12"},
			dirs:    []string{"venv/lib/python3.11/site-packages/nvidia/cuda_cccl/include"},
			libFile: "venv/lib/python3.11/site-packages/nvidia/cuda_nvrtc/lib/libnvrtc.so.12",
			want:    []string{"venv/lib/python3.11/site-packages/nvidia/cuda_runtime/include", "venv/lib/python3.11/site-packages/nvidia/cuda_cccl/include"}},
		{name: "wheels found without the library's path", env: map[string]string{"VIRTUAL_ENV": "venv"},
			files: []string{"venv/lib/python3.12/site-packages/nvidia/cu13/include/cuda_fp16.h"},
			want:  []string{"venv/lib/python3.12/site-packages/nvidia/cu13/include"}},
		{name: "the override alone, every directory as is", env: map[string]string{EnvInclude: "a" + string(os.PathListSeparator) + " b "},
			files: []string{"usr/local/cuda/include/cuda_fp16.h"}, want: []string{"a", "b"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			for _, f := range tc.files {
				touch(t, filepath.Join(root, f))
			}
			for _, d := range tc.dirs {
				require.NoError(t, os.MkdirAll(filepath.Join(root, d), 0o755))
			}
			env := map[string]string{}
			for k, v := range tc.env {
				if k == EnvInclude {
					env[k] = v
					continue
				}
				env[k] = filepath.Join(root, v)
			}
			e := searchEnv{goos: "linux", getenv: func(k string) string { return env[k] }, home: filepath.Join(root, "home"), root: root}
			lib := ""
			if tc.libFile != "" {
				lib = filepath.Join(root, tc.libFile)
			}
			var want []string
			for _, w := range tc.want {
				if tc.env[EnvInclude] != "" {
					want = append(want, w)
				} else {
					want = append(want, filepath.Join(root, w))
				}
			}
			require.Equal(t, want, e.includeDirs(lib))
		})
	}
}

// fakeNVRTC points the package at a freshly built fake NVRTC (its own path,
// so it is loaded afresh) and returns the file its compiles are logged to.
func fakeNVRTC(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	path, err := fakenvrtc.Build(dir)
	if err != nil {
		t.Skipf("cannot build the fake NVRTC: %v", err)
	}
	t.Setenv(EnvLibrary, path)
	log := filepath.Join(dir, "compiles.log")
	t.Setenv("FAKENVRTC_LOG", log)
	return log
}

// compiles reads the fake NVRTC's log: one entry per compile, its options.
func compiles(t *testing.T, log string) [][]string {
	data, err := os.ReadFile(log)
	if os.IsNotExist(err) {
		return nil
	}
	require.NoError(t, err)
	var out [][]string
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		out = append(out, strings.Split(line, "|")[1:])
	}
	return out
}

func write(t *testing.T, path, text string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
}

// TestHeaderDependencies: the CUDA header directories reach NVRTC after the
// program's own, and the kernel cache misses whenever a header the program
// includes changes, appears or goes away, and only then.
func TestHeaderDependencies(t *testing.T) {
	log := fakeNVRTC(t)
	root := t.TempDir()
	cudaInc, user, early := filepath.Join(root, "cuda", "include"), filepath.Join(root, "user"), filepath.Join(root, "early")
	t.Setenv(EnvInclude, cudaInc)
	write(t, filepath.Join(cudaInc, "cuda_fp16.h"), "#pragma once\n#include \"cuda_fp16.hpp\"\n")
	write(t, filepath.Join(cudaInc, "cuda_fp16.hpp"), "// half\n")
	write(t, filepath.Join(user, "mine.h"), "#define SCALE 2\n#include <sub/deep.h>\n")
	write(t, filepath.Join(user, "sub", "deep.h"), "#define DEEP 1\n")
	src := "#include <cuda_fp16.h>\n#include \"mine.h\"\n#if __has_include(<maybe.h>)\n#endif\nextern \"C\" __global__ void k(float* x) {}\n"
	c := NewCompiler(OpenCache(t.TempDir()))
	o := Options{Arch: "sm_90", IncludePaths: []string{early, user}}

	r, err := c.Compile(src, o)
	require.NoError(t, err)
	require.False(t, r.Cached)
	got := compiles(t, log)
	require.Len(t, got, 1)
	require.Equal(t, []string{"--gpu-architecture=sm_90", "--include-path=" + early, "--include-path=" + user, "--include-path=" + cudaInc}, got[0],
		"the program's include paths first, then the CUDA headers")
	var found []string
	for _, d := range r.Dependencies {
		if d.Exists {
			found = append(found, d.Path)
		}
	}
	require.Equal(t, []string{filepath.Join(cudaInc, "cuda_fp16.h"), filepath.Join(cudaInc, "cuda_fp16.hpp"),
		filepath.Join(user, "mine.h"), filepath.Join(user, "sub", "deep.h")}, found)

	n := 1
	for _, step := range []struct {
		name    string
		change  func()
		compile bool
	}{
		{"nothing changed: a hit", func() {}, false},
		{"a hit after the memory copy is dropped (disk)", func() { c.Cache().ForgetMemory() }, false},
		{"an included header edited", func() { write(t, filepath.Join(user, "mine.h"), "#define SCALE 3\n#include <sub/deep.h>\n") }, true},
		{"a header included by a header edited", func() { write(t, filepath.Join(user, "sub", "deep.h"), "#define DEEP 2\n") }, true},
		{"a CUDA header edited", func() { write(t, filepath.Join(cudaInc, "cuda_fp16.hpp"), "// half, v2\n") }, true},
		{"a header appears earlier in the search, shadowing one", func() { write(t, filepath.Join(early, "mine.h"), "#define SCALE 4\n") }, true},
		{"a header that __has_include probes appears", func() { write(t, filepath.Join(user, "maybe.h"), "\n") }, true},
		{"the shadowing header goes away", func() { require.NoError(t, os.Remove(filepath.Join(early, "mine.h"))) }, true},
		{"a file no include reaches changes: a hit", func() { write(t, filepath.Join(user, "unrelated.h"), "x") }, false},
	} {
		step.change()
		c.Cache().ForgetMemory()
		r, err := c.Compile(src, o)
		require.NoError(t, err, step.name)
		if step.compile {
			n++
		}
		require.Len(t, compiles(t, log), n, step.name)
		require.Equal(t, !step.compile, r.Cached, step.name)
		require.Empty(t, r.Uncached)
	}

	// A computed include cannot be followed: compiled every time, saying why.
	computed := "#define HDR <mine.h>\n#include HDR\nextern \"C\" __global__ void k() {}\n"
	for i := 0; i < 2; i++ {
		r, err := c.Compile(computed, o)
		require.NoError(t, err)
		require.False(t, r.Cached)
		require.Contains(t, r.Uncached, "computed #include HDR")
	}
	require.Len(t, compiles(t, log), n+2)

	// NoCUDAIncludes leaves the CUDA headers out.
	_, err = c.Compile(src, Options{Arch: "sm_90", NoCUDAIncludes: true, NoCache: true})
	require.NoError(t, err)
	all := compiles(t, log)
	require.Equal(t, []string{"--gpu-architecture=sm_90"}, all[len(all)-1])
}

// TestDependencyChanged: the cheap check a module cache makes before it
// serves a compiled program again.
func TestDependencyChanged(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "h.h")
	write(t, p, "a")
	deps, why := dependencies(`#include "h.h"`+"\n#include <absent.h>\n", nil, []string{dir})
	require.Empty(t, why)
	cwd, _ := os.Getwd()
	require.Len(t, deps, 3, "h.h, looked for in the working directory first (quoted), then in dir; absent.h in dir")
	byPath := map[string]Dependency{}
	for _, d := range deps {
		require.False(t, d.Changed(), d.Path)
		byPath[d.Path] = d
	}
	// The dependencies come sorted by path, so where the working directory
	// sits relative to the temporary one decides the order: look them up.
	require.Contains(t, byPath, filepath.Join(cwd, "h.h"))
	require.Contains(t, byPath, p)
	require.Contains(t, byPath, filepath.Join(dir, "absent.h"))
	write(t, p, "bb")
	require.True(t, byPath[p].Changed(), "edited")
	write(t, filepath.Join(dir, "absent.h"), "")
	require.True(t, byPath[filepath.Join(dir, "absent.h")].Changed(), "created")
	require.NoError(t, os.Chtimes(p, time.Now(), time.Now().Add(time.Hour)))
	require.True(t, byPath[p].Changed())

	// A same-size edit within the file system's timestamp granularity
	// keeps the modification time: a record of a file modified just before
	// it was read is checked by contents.
	write(t, p, "ac")
	recent, why := dependencies("#include <h.h>\n", nil, []string{dir})
	require.Empty(t, why)
	require.False(t, recent[0].Changed())
	write(t, p, "ad")
	require.NoError(t, os.Chtimes(p, recent[0].ModTime, recent[0].ModTime))
	require.True(t, recent[0].Changed(), "caught by contents")
	again, _ := dependencies("#include <h.h>\n// again\n", nil, []string{dir})
	require.NotEqual(t, recent[0].Hash, again[0].Hash, "the process's memo of a racy file is not trusted either")
}

// TestFakeCompileErrors: the fake NVRTC's compile error reaches the caller
// as a Compilation error with the log, and name expressions come back
// lowered.
func TestFakeCompileErrors(t *testing.T) {
	fakeNVRTC(t)
	c := NewCompiler(nil)
	_, err := c.Compile("#error nope\n", Options{Arch: "sm_90", Name: "bad.cu"})
	require.Equal(t, errors.Compilation, errors.CategoryOf(err))
	require.Contains(t, errors.LogOf(err), "#error nope")
	r, err := c.Compile("template <int N> __global__ void k() {}", Options{Arch: "sm_90", NameExpressions: []string{"k<1>", "k<2>"}})
	require.NoError(t, err)
	require.Equal(t, map[string]string{"k<1>": "_Zk1", "k<2>": "_Zk2"}, r.LoweredNames)
	require.Contains(t, string(r.Image()), ".entry _Zk2")
}

// TestFlagIncludes: include directories and pre-included headers given as
// raw flags are followed too, in every spelling NVRTC takes.
func TestFlagIncludes(t *testing.T) {
	for _, tc := range []struct {
		flags     []string
		dirs, pre []string
	}{
		{[]string{"--include-path=/a", "-I/b", "-I=/c", "-I", "/d", "--include-path", "/e"}, []string{"/a", "/b", "/c", "/d", "/e"}, nil},
		{[]string{"--pre-include=p.h", "-include", "q.h", "-include=r.h", "--pre-include", "s.h"}, nil, []string{"p.h", "q.h", "r.h", "s.h"}},
		{[]string{"-w", "--std=c++17", "-DINCLUDE=1", "-I"}, nil, nil},
	} {
		dirs, pre := flagIncludes(tc.flags)
		require.Equal(t, tc.dirs, dirs, "%v", tc.flags)
		require.Equal(t, tc.pre, pre, "%v", tc.flags)
	}

	log := fakeNVRTC(t)
	dir := t.TempDir()
	write(t, filepath.Join(dir, "flag.h"), "#define A 1\n")
	write(t, filepath.Join(dir, "pre.h"), "#define B 1\n")
	c := NewCompiler(OpenCache(t.TempDir()))
	o := Options{Arch: "sm_90", NoCUDAIncludes: true, Flags: []string{"-I" + dir, "-include", "pre.h"}}
	src := "#include <flag.h>\nextern \"C\" __global__ void k() {}\n"
	for i, change := range []func(){
		func() {},
		func() { write(t, filepath.Join(dir, "flag.h"), "#define A 2 // edited\n") },
		func() { write(t, filepath.Join(dir, "pre.h"), "#define B 2 // edited\n") },
	} {
		change()
		c.Cache().ForgetMemory()
		r, err := c.Compile(src, o)
		require.NoError(t, err)
		require.False(t, r.Cached, "step %d: a header found through Flags changed", i)
		require.Len(t, compiles(t, log), i+1)
	}
	r, err := c.Compile(src, o)
	require.NoError(t, err)
	require.True(t, r.Cached)
}
