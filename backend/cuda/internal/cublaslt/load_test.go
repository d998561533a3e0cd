package cublaslt_test

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/anygpu/gpu/backend/cuda/internal/cublaslt"
	"github.com/anygpu/gpu/backend/cuda/internal/fakecublaslt"
	"github.com/anygpu/gpu/errors"
	"github.com/stretchr/testify/require"
)

// fakeLibrary builds the fake cuBLASLt into a directory of its own (each
// build is a new file, loaded afresh) and returns its path.
func fakeLibrary(t *testing.T) string {
	t.Helper()
	path, err := fakecublaslt.Build(t.TempDir())
	if err != nil {
		t.Skipf("cannot build the fake cuBLASLt: %v", err)
	}
	return path
}

// TestLoadFake loads the fake library through ANYGPU_CUBLASLT_LIBRARY: its
// version, the calls of a plan, and the status names it reports.
func TestLoadFake(t *testing.T) {
	path := fakeLibrary(t)
	t.Setenv(cublaslt.EnvLibrary, path)
	t.Setenv("FAKECUBLASLT_VERSION", "120804")
	require.False(t, cublaslt.Loaded())
	lib, err := cublaslt.Load()
	require.NoError(t, err)
	require.True(t, cublaslt.Loaded())
	require.Equal(t, path, lib.Path)
	require.Equal(t, 120804, lib.Version)
	require.Equal(t, "12.8.4", lib.VersionString())
	again, err := cublaslt.Load()
	require.NoError(t, err)
	require.Same(t, lib, again, "loaded once per value of the variable")

	h, st := lib.Create()
	require.Equal(t, cublaslt.StatusSuccess, st)
	desc, st := lib.MatmulDescCreate(cublaslt.Compute32F, cublaslt.R32F)
	require.Equal(t, cublaslt.StatusSuccess, st)
	require.Equal(t, cublaslt.StatusSuccess, lib.MatmulDescSetInt32(desc, cublaslt.DescTransA, int32(cublaslt.OpT)))
	require.Equal(t, cublaslt.StatusInvalidValue, lib.MatmulDescSetInt32(desc, cublaslt.MatmulDescAttribute(999), 1))
	l, st := lib.MatrixLayoutCreate(cublaslt.R32F, 4, 4, 4)
	require.Equal(t, cublaslt.StatusSuccess, st)
	require.Equal(t, cublaslt.StatusSuccess, lib.MatrixLayoutSetInt32(l, cublaslt.LayoutBatchCount, 2))
	require.Equal(t, cublaslt.StatusSuccess, lib.MatrixLayoutSetInt64(l, cublaslt.LayoutStridedBatchOffset, 16))
	pref, st := lib.PreferenceCreate()
	require.Equal(t, cublaslt.StatusSuccess, st)
	require.Equal(t, cublaslt.StatusSuccess, lib.PreferenceSetUint64(pref, cublaslt.PrefMaxWorkspaceBytes, 1<<25))
	require.Equal(t, cublaslt.StatusSuccess, lib.PreferenceSetUint32(pref, cublaslt.PrefMinAlignmentA, 16))
	res := make([]cublaslt.HeuristicResult, 4)
	t.Setenv("FAKECUBLASLT_ALGOS", "3")
	n, st := lib.AlgoGetHeuristic(h, desc, l, l, l, l, pref, res)
	require.Equal(t, cublaslt.StatusSuccess, st)
	require.Equal(t, 3, n)
	require.EqualValues(t, 1<<20, res[0].WorkspaceSize)
	require.EqualValues(t, 2, res[2].Algo.Data[1], "the results are written as cublasLtMatmulHeuristicResult_t")
	_, st = lib.AlgoGetHeuristic(h, desc, l, l, l, l, pref, nil)
	require.Equal(t, cublaslt.StatusInvalidValue, st)
	require.Equal(t, cublaslt.StatusSuccess, lib.PreferenceDestroy(pref))
	require.Equal(t, cublaslt.StatusSuccess, lib.MatrixLayoutDestroy(l))
	require.Equal(t, cublaslt.StatusSuccess, lib.MatmulDescDestroy(desc))
	require.Equal(t, cublaslt.StatusSuccess, lib.Destroy(h))

	require.Equal(t, "CUBLAS_STATUS_NOT_SUPPORTED", lib.StatusName(cublaslt.StatusNotSupported))
	err = lib.Err(cublaslt.Status(42), "matmul")
	require.Equal(t, errors.Internal, errors.CategoryOf(err))
	require.Contains(t, err.Error(), "CUBLAS_STATUS_FAKE_UNKNOWN", "an unknown status takes the library's name")
	require.Contains(t, err.Error(), "the fake cuBLASLt's failure")
}

// TestLoadFailures: what is not a usable cuBLASLt is NotSupported (callers
// fall back to a kernel), naming each candidate and why.
func TestLoadFailures(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("Linux library names")
	}
	dir := t.TempDir()
	text := filepath.Join(dir, "libcublasLt.so.13")
	require.NoError(t, os.WriteFile(text, []byte("not a library"), 0o644))
	for _, tc := range []struct {
		name, path, want string
		env              map[string]string
	}{
		{"missing file", filepath.Join(dir, "missing", "libcublasLt.so.13"), "missing", nil},
		{"not a library", text, text, nil},
		{"a library lacking the functions (libc)", "libc.so.6", "lacks cublasLtGetVersion", nil},
		{"too old", fakeLibrary(t), "older than the 11.0", map[string]string{"FAKECUBLASLT_VERSION": "10201"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(cublaslt.EnvLibrary, tc.path)
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			_, err := cublaslt.Load()
			require.Error(t, err)
			require.Equal(t, errors.NotSupported, errors.CategoryOf(err))
			require.Contains(t, err.Error(), tc.want)
			require.Contains(t, errors.Hint(err), cublaslt.EnvLibrary)
			require.False(t, cublaslt.Loaded())
		})
	}
}
