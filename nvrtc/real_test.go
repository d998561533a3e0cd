package nvrtc

import (
	"strings"
	"testing"

	"github.com/anygpu/gpu/errors"
	"github.com/stretchr/testify/require"
)

// requireNVRTC skips unless an NVRTC library loads (it fails instead when
// ANYGPU_TEST_REQUIRE names cuda or nvrtc).
func requireNVRTC(t *testing.T) {
	t.Helper()
	if err := Available(); err != nil {
		for _, b := range strings.Split(strings.ReplaceAll(getenv("ANYGPU_TEST_REQUIRE"), " ", ""), ",") {
			if b == "cuda" || b == "nvrtc" {
				t.Fatalf("NVRTC is required (ANYGPU_TEST_REQUIRE names %s) but unavailable: %v", b, err)
			}
		}
		t.Skipf("NVRTC unavailable: %v", err)
	}
}

var getenv = defaultSearchEnv().getenv

const testKernels = `
#include "scale.h"
template <typename T> __global__ void twice(T* x) { x[threadIdx.x] *= T(SCALE); }
extern "C" __global__ void plain(float* x, unsigned n) { if (threadIdx.x < n) x[threadIdx.x] = VALUE; }
`

// TestCompileReal compiles with the real NVRTC: CUBIN and PTX, headers,
// defines, name expressions, the cache, and a compile error's log.
func TestCompileReal(t *testing.T) {
	requireNVRTC(t)
	major, minor, err := Version()
	require.NoError(t, err)
	path, _ := LibraryPath()
	archs, err := SupportedArchs()
	require.NoError(t, err)
	t.Logf("NVRTC %d.%d from %s; architectures %v", major, minor, path, archs)
	require.Contains(t, archs, 90)

	c := NewCompiler(OpenCache(t.TempDir()))
	o := Options{
		Arch: "sm_90", Headers: map[string]string{"scale.h": "#define SCALE 2"},
		Defines: map[string]string{"VALUE": "7.0f"}, NameExpressions: []string{"twice<float>", "twice<int>"},
		Std: "c++17", LineInfo: true, DriverVersion: 13000,
	}
	r, err := c.Compile(testKernels, o)
	require.NoError(t, err)
	require.False(t, r.Cached)
	require.NotEmpty(t, r.CUBIN)
	require.Equal(t, []byte("\x7fELF"), r.CUBIN[:4], "a CUBIN is an ELF image")
	require.Contains(t, r.PTX, ".entry plain")
	require.Contains(t, r.PTX, "7.0", "VALUE was defined")
	require.Len(t, r.LoweredNames, 2)
	require.True(t, strings.HasPrefix(r.Name("twice<float>"), "_Z"), r.Name("twice<float>"))
	require.NotEqual(t, r.Name("twice<float>"), r.Name("twice<int>"))
	t.Logf("cold compile %v, lowered %v", r.Duration, r.LoweredNames)

	if st, ok := c.Cache().knownVersion(); ok {
		require.Equal(t, [2]int{major, minor}, [2]int{st.Major, st.Minor})
		t.Logf("version stamp: NVRTC %d.%d (a new process's cache hits need not load NVRTC)", st.Major, st.Minor)
	} else {
		t.Logf("no version stamp: the library file was not found (%s)", path)
	}
	again, err := c.Compile(testKernels, o)
	require.NoError(t, err)
	require.True(t, again.Cached)
	require.Equal(t, r.CUBIN, again.CUBIN)
	c.Cache().ForgetMemory()
	disk, err := c.Compile(testKernels, o)
	require.NoError(t, err)
	require.True(t, disk.Cached)
	require.Equal(t, r.LoweredNames, disk.LoweredNames)
	t.Logf("memory hit %v, disk hit %v; stats %+v", again.Duration, disk.Duration, c.Cache().Stats())

	ptx, err := c.Compile(testKernels, Options{Arch: "sm_90", PTX: true, Headers: o.Headers, Defines: o.Defines})
	require.NoError(t, err)
	require.Empty(t, ptx.CUBIN)
	require.Equal(t, "compute_90", ptx.Arch)
	require.Contains(t, ptx.PTX, ".target sm_90")

	_, err = c.Compile(`extern "C" __global__ void bad(float* x) { x[0] = undeclared_thing; }`, Options{Arch: "sm_90", Name: "bad.cu"})
	require.Error(t, err)
	require.Equal(t, errors.Compilation, errors.CategoryOf(err))
	require.Contains(t, errors.LogOf(err), "undeclared_thing")
	require.Contains(t, err.Error(), "NVRTC_ERROR_COMPILATION")
	require.Contains(t, err.Error(), "undeclared_thing", "the message quotes the first error")
	t.Logf("compile error: %v", err)

	_, err = c.Compile(`__global__ void k() {}`, Options{Arch: "sm_90", Flags: []string{"--no-such-option"}})
	require.Error(t, err)
	t.Logf("bad option: %v (category %v)", err, errors.CategoryOf(err))
}
