package nvrtc

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"testing"

	"github.com/anygpu/gpu/errors"
	"github.com/anygpu/gpu/internal/fakenvrtc"
	"github.com/stretchr/testify/require"
)

// The promise of the version stamp: a new process's kernel-cache hit does
// not load NVRTC, wherever CUDA headers are installed, and is never stale.

// TestWarmHitWithoutLoading: with a version stamp whose library file is
// unchanged, a cache hit is served without loading NVRTC at all (here the
// library cannot even load), also where CUDA headers are installed beside
// the library (as on a machine with CUDA), and the key still covers those
// headers: an edited one is no stale hit.
func TestWarmHitWithoutLoading(t *testing.T) {
	dir := t.TempDir()
	cudaRoot := filepath.Join(dir, "cuda")
	fakeLib := filepath.Join(cudaRoot, "lib64", "libnvrtc.so.13")
	cudaInc := filepath.Join(cudaRoot, "include")
	write(t, fakeLib, "stand-in")
	write(t, filepath.Join(cudaInc, "cuda_fp16.h"), "#pragma once\n#include \"cuda_fp16.hpp\"\n")
	write(t, filepath.Join(cudaInc, "cuda_fp16.hpp"), "// half\n")
	require.NoError(t, os.MkdirAll(filepath.Join(cudaInc, "cccl"), 0o755))
	t.Setenv(EnvInclude, "")
	t.Setenv(EnvLibrary, filepath.Join(dir, "missing", "libnvrtc.so.13"))
	lib := &library{file: fakeLib, major: 13, minor: 0}
	require.Equal(t, []string{cudaInc, filepath.Join(cudaInc, "cccl")}, lib.includes(),
		"the CUDA headers beside the library are found, whatever this machine has installed")
	c := NewCompiler(OpenCache(filepath.Join(dir, "cache")))
	c.Cache().rememberVersion(lib)
	st, ok := c.Cache().knownVersion()
	require.True(t, ok)
	require.Equal(t, [2]int{13, 0}, [2]int{st.Major, st.Minor})

	plain := `extern "C" __global__ void k() {}`
	half := "#include <cuda_fp16.h>\n" + plain
	base := Options{Arch: "sm_90", DriverVersion: 13000}
	noCUDA := base
	noCUDA.NoCUDAIncludes = true
	cases := []struct {
		name     string
		src      string
		o        Options
		wantDeps int // paths the includes looked at
	}{
		{"a program that includes nothing", plain, base, 0},
		{"a program that includes a CUDA header", half, base, 2},
		{"the CUDA headers left out", plain, noCUDA, 0},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// Stored as by a process that loaded this library and compiled.
			arch, err := tc.o.targetArch()
			require.NoError(t, err)
			p := tc.o.plan(lib.major, lib.minor, tc.src, arch, lib.includes())
			require.Empty(t, p.why)
			require.Equal(t, !tc.o.NoCUDAIncludes, slices.Contains(p.args, "--include-path="+cudaInc), "%v", p.args)
			require.NoError(t, c.Cache().write(p.key, sampleResult(i)))

			r, err := c.Compile(tc.src, tc.o)
			require.NoError(t, err, "served from the cache without NVRTC")
			require.True(t, r.Cached)
			require.Equal(t, sampleResult(i).CUBIN, r.CUBIN)
			require.Len(t, r.Dependencies, tc.wantDeps)
		})
	}

	// An edited CUDA header is a miss: NVRTC must load (and here cannot);
	// the program that does not include it still hits.
	write(t, filepath.Join(cudaInc, "cuda_fp16.hpp"), "// half, v2\n")
	c.Cache().ForgetMemory()
	_, err := c.Compile(half, base)
	require.Equal(t, errors.Unavailable, errors.CategoryOf(err))
	r, err := c.Compile(plain, base)
	require.NoError(t, err)
	require.True(t, r.Cached)

	// A changed library file invalidates the stamp: NVRTC must load (and
	// here cannot).
	require.NoError(t, os.WriteFile(fakeLib, []byte("another library"), 0o644))
	_, ok = c.Cache().knownVersion()
	require.False(t, ok)
	c.Cache().ForgetMemory()
	_, err = c.Compile(plain, base)
	require.Equal(t, errors.Unavailable, errors.CategoryOf(err))
	// Another search environment has its own stamp.
	t.Setenv("CUDA_HOME", "/elsewhere")
	require.NotEqual(t, c.Cache().stampPath(), func() string { t.Setenv("CUDA_HOME", ""); return c.Cache().stampPath() }())
}

// TestWarmHitNewProcess: new processes share a cache directory, with the
// fake NVRTC installed beside CUDA headers (as a toolkit is). The first
// compiles; the next hits without loading NVRTC; after a CUDA header the
// program includes is edited, the next compiles again, then hits.
func TestWarmHitNewProcess(t *testing.T) {
	if dir := os.Getenv("NVRTC_WARM_HELPER_CACHE"); dir != "" {
		warmHelper(t, dir)
		return
	}
	if testing.Short() {
		t.Skip("spawns processes")
	}
	root := t.TempDir()
	libDir := filepath.Join(root, "cuda", "lib64")
	require.NoError(t, os.MkdirAll(libDir, 0o755))
	lib, err := fakenvrtc.Build(libDir)
	if err != nil {
		t.Skipf("cannot build the fake NVRTC: %v", err)
	}
	cudaInc := filepath.Join(root, "cuda", "include")
	write(t, filepath.Join(cudaInc, "cuda_fp16.h"), "#pragma once\n#include \"cuda_fp16.hpp\"\n")
	write(t, filepath.Join(cudaInc, "cuda_fp16.hpp"), "// half\n")
	log := filepath.Join(root, "compiles.log")
	helperRE := regexp.MustCompile(`warm helper: cached=(\w+) loaded=(\w+)`)
	run := func() (cached, loaded bool) {
		cmd := exec.Command(os.Args[0], "-test.run=^TestWarmHitNewProcess$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), "NVRTC_WARM_HELPER_CACHE="+filepath.Join(root, "cache"),
			EnvLibrary+"="+lib, EnvInclude+"=", "FAKENVRTC_LOG="+log)
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
		m := helperRE.FindSubmatch(out)
		require.NotNil(t, m, "%s", out)
		return string(m[1]) == "true", string(m[2]) == "true"
	}
	for i, step := range []struct {
		name           string
		change         func()
		cached, loaded bool
		compiles       int // NVRTC runs so far
	}{
		{"the first process compiles", func() {}, false, true, 1},
		{"a new process hits without loading NVRTC", func() {}, true, false, 1},
		{"a CUDA header edited: a new process compiles", func() { write(t, filepath.Join(cudaInc, "cuda_fp16.hpp"), "// half, v2\n") }, false, true, 2},
		{"then a new process hits again", func() {}, true, false, 2},
	} {
		step.change()
		cached, loaded := run()
		require.Equal(t, step.cached, cached, step.name)
		require.Equal(t, step.loaded, loaded, step.name)
		got := compiles(t, log)
		require.Len(t, got, step.compiles, step.name)
		if i == 0 {
			require.Contains(t, got[0], "--include-path="+cudaInc, "the headers beside the library reach NVRTC")
		}
	}
}

// warmHelper is one process of TestWarmHitNewProcess.
func warmHelper(t *testing.T, cacheDir string) {
	c := NewCompiler(OpenCache(cacheDir))
	r, err := c.Compile("#include <cuda_fp16.h>\nextern \"C\" __global__ void k() {}\n", Options{Arch: "sm_90", DriverVersion: 13000})
	require.NoError(t, err)
	require.Empty(t, r.Uncached)
	t.Logf("warm helper: cached=%v loaded=%v", r.Cached, Loaded())
}
