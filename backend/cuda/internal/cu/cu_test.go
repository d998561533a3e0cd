package cu_test

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/anygpu/gpu/backend/cuda/internal/cu"
	"github.com/anygpu/gpu/backend/cuda/internal/fakecuda"
	"github.com/anygpu/gpu/errors"
	"github.com/stretchr/testify/require"
)

func requireUnavailable(t *testing.T, err error, contains string) {
	t.Helper()
	require.Error(t, err)
	require.Equal(t, errors.Unavailable, errors.CategoryOf(err), "%v", err)
	require.NotEmpty(t, errors.Hint(err))
	require.Contains(t, err.Error(), contains)
	require.True(t, strings.HasPrefix(err.Error(), "cuda: "), "error %q is prefixed with the backend", err)
}

func TestLoadErrors(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("Linux library names")
	}
	dir := t.TempDir()
	text := filepath.Join(dir, "libcuda.so.1")
	require.NoError(t, os.WriteFile(text, []byte("not a library"), 0o644))
	for _, tc := range []struct{ name, path, want string }{
		{"missing file", filepath.Join(dir, "nope", "libcuda.so.1"), "nope"},
		{"empty directory", dir, dir},
		{"not a library", text, text},
		{"libc lacks the driver API", "libc.so.6", "lacks cuInit"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := cu.Load(tc.path)
			requireUnavailable(t, err, tc.want)
			require.Contains(t, errors.Hint(err), "ANYGPU_CUDA_LIBRARY")
		})
	}
}

func TestSymbols(t *testing.T) {
	all := cu.AllSymbols()
	req := cu.RequiredSymbols()
	require.Greater(t, len(all), len(req))
	require.Equal(t, req, all[:len(req)], "required symbols come first")
	seen := map[string]bool{}
	for _, n := range all {
		require.True(t, strings.HasPrefix(n, "cu"), n)
		require.False(t, seen[n], "duplicate %s", n)
		seen[n] = true
	}
	// The 64-bit ABI: functions cuda.h renames to _v2 are resolved by that name.
	for _, n := range []string{"cuMemAlloc_v2", "cuMemFree_v2", "cuMemGetInfo_v2", "cuDeviceTotalMem_v2",
		"cuMemcpyHtoDAsync_v2", "cuMemcpyDtoHAsync_v2", "cuMemcpyDtoDAsync_v2", "cuStreamDestroy_v2",
		"cuEventDestroy_v2", "cuDevicePrimaryCtxRelease_v2", "cuEventElapsedTime_v2"} {
		require.True(t, seen[n], "%s is resolved", n)
	}
	for _, n := range []string{"cuMemAlloc", "cuMemFree", "cuMemGetInfo", "cuDeviceTotalMem"} {
		require.False(t, seen[n], "the legacy %s must never be called", n)
	}
}

func TestResultErr(t *testing.T) {
	require.NoError(t, cu.Success.Err("x"))
	err := cu.ErrorOutOfMemory.Err("alloc 1.0 GiB")
	require.Equal(t, errors.OutOfMemory, errors.CategoryOf(err))
	require.Equal(t, "cuda: alloc 1.0 GiB: out of memory (CUDA_ERROR_OUT_OF_MEMORY): free memory or use a smaller batch", err.Error())
	require.True(t, cu.ErrorIllegalAddress.Fatal())
	require.False(t, cu.ErrorOutOfMemory.Fatal())
	require.Equal(t, "CUDA_ERROR_NOT_READY", cu.ErrorNotReady.String())
	require.Equal(t, "CUresult(123456)", cu.Result(123456).String())
}

// TestFakeDriver loads a stand-in libcuda built with the C compiler and
// drives the bindings through purego.
func TestFakeDriver(t *testing.T) {
	path, err := fakecuda.Build(t.TempDir())
	if err != nil {
		t.Skipf("cannot build the fake driver: %v", err)
	}
	l, err := cu.Load(path)
	require.NoError(t, err)
	require.Empty(t, l.Missing(), "the fake exports every symbol")
	require.Equal(t, cu.Success, l.Init())
	v, r := l.DriverGetVersion()
	require.Equal(t, cu.Success, r)
	require.Equal(t, 13000, v)
	n, r := l.DeviceGetCount()
	require.Equal(t, cu.Success, r)
	require.Equal(t, 1, n)
	d, r := l.DeviceGet(0)
	require.Equal(t, cu.Success, r)
	name, r := l.DeviceGetName(d)
	require.Equal(t, cu.Success, r)
	require.Equal(t, "Fake H200", name)
	mem, _ := l.DeviceTotalMem(d)
	require.Equal(t, int64(150109880320), mem)
	sms, _ := l.DeviceGetAttribute(cu.AttrMultiprocessorCount, d)
	require.Equal(t, 132, sms)
	pci, _ := l.DeviceGetPCIBusID(d)
	require.Equal(t, "0000:3B:00.0", pci)
	u, _ := l.DeviceGetUUID(d)
	require.Equal(t, byte(17), u[1])
	p, r := l.MemAlloc(1024)
	require.Equal(t, cu.Success, r, "the fake serves memory from the host")
	require.Equal(t, cu.Success, l.MemFree(p))
	_, r = l.MemHostAlloc(16, 0)
	require.Equal(t, cu.Success, r)
	require.Equal(t, cu.ErrorNotSupported, l.DevicePrimaryCtxReset(d), "unimplemented functions return FAKECUDA_DEFAULT")

	t.Setenv("FAKECUDA_INIT", "34")
	require.Equal(t, cu.ErrorStubLibrary, l.Init())
}

// TestOptionalSymbols: a driver without an optional function loads, and
// only that function reports ErrorNotSupported; a versioned symbol falls
// back to its older name with the same signature.
func TestOptionalSymbols(t *testing.T) {
	path, err := fakecuda.BuildCustom(t.TempDir(),
		[]string{"cuMemcpyPeerAsync", "cuFuncGetParamInfo", "cuEventElapsedTime_v2", "cuOccupancyMaxPotentialBlockSize"},
		[]string{"cuEventElapsedTime"})
	if err != nil {
		t.Skipf("cannot build the fake driver: %v", err)
	}
	l, err := cu.Load(path)
	require.NoError(t, err)
	require.ElementsMatch(t, []string{"cuMemcpyPeerAsync", "cuFuncGetParamInfo", "cuOccupancyMaxPotentialBlockSize"}, l.Missing())
	require.False(t, l.Has(cu.SymMemcpyPeerAsync))
	require.True(t, l.Has(cu.SymEventElapsedTime), "falls back to cuEventElapsedTime")
	fr := cu.NewFrame()
	require.Equal(t, cu.ErrorNotSupported, l.MemcpyPeerAsync(fr, 0, 0, 0, 0, 16, 0))
	_, _, r := l.FuncGetParamInfo(0, 0)
	require.Equal(t, cu.ErrorNotSupported, r)
	_, _, r = l.OccupancyMaxPotentialBlockSize(0, 0, 0)
	require.Equal(t, cu.ErrorNotSupported, r)
	err = cu.ErrorNotSupported.Err("copy peer")
	require.Equal(t, errors.NotSupported, errors.CategoryOf(err))

	// A required function missing: the library is refused, naming it.
	path, err = fakecuda.BuildCustom(t.TempDir(), []string{"cuMemAlloc_v2", "cuEventElapsedTime_v2"}, nil)
	require.NoError(t, err)
	_, err = cu.Load(path)
	requireUnavailable(t, err, "lacks cuMemAlloc_v2, cuEventElapsedTime_v2")
}
