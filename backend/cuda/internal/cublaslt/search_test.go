package cublaslt

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func touch(t *testing.T, path string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, nil, 0o644))
}

// TestSearchOrder lays out a fake file system with cuBLASLt in every place
// the search looks and checks the order of the candidates.
func TestSearchOrder(t *testing.T) {
	root := t.TempDir()
	home := filepath.Join(root, "home")
	cudaHome := filepath.Join(root, "opt", "cuda-custom")
	venv := filepath.Join(root, "venv")
	env := map[string]string{"CUDA_HOME": cudaHome, "VIRTUAL_ENV": venv}
	files := []string{
		filepath.Join(cudaHome, "targets/x86_64-linux/lib/libcublasLt.so.13"),
		filepath.Join(root, "usr/local/cuda/lib64/libcublasLt.so.13"),
		filepath.Join(root, "usr/local/cuda-12.9/lib64/libcublasLt.so.12"),
		filepath.Join(root, "usr/local/cuda-12.10/lib64/libcublasLt.so.12"),
		filepath.Join(venv, "lib/python3.12/site-packages/nvidia/cu13/lib/libcublasLt.so.13"),
		filepath.Join(venv, "lib/python3.12/site-packages/nvidia/cublas/lib/libcublasLt.so.12"),
		filepath.Join(home, ".local/lib/python3.11/site-packages/nvidia/cublas/lib/libcublasLt.so.12"),
		filepath.Join(root, "usr/local/lib/python3.12/dist-packages/nvidia/cu13/lib/libcublasLt.so.13"),
	}
	for _, f := range files {
		touch(t, f)
	}
	// A directory named like the library is not a candidate, nor another library.
	require.NoError(t, os.MkdirAll(filepath.Join(cudaHome, "lib64", "libcublasLt.so.12"), 0o755))
	touch(t, filepath.Join(cudaHome, "lib64", "libcublas.so.13"))
	e := searchEnv{goos: "linux", getenv: func(k string) string { return env[k] }, home: home, root: root}
	want := append([]string{"libcublasLt.so.13", "libcublasLt.so.12"},
		files[0],           // $CUDA_HOME
		files[1],           // /usr/local/cuda
		files[3], files[2], // cuda-12.10 before cuda-12.9: numeric order
		files[4], files[5], // $VIRTUAL_ENV's wheels: cu13, then cublas
		files[6], // ~/.local
		files[7], // the system Python
	)
	require.Equal(t, want, e.candidates())

	// The override is the only candidate.
	env[EnvLibrary] = " /somewhere/libcublasLt.so.13 "
	require.Equal(t, []string{"/somewhere/libcublasLt.so.13"}, e.candidates())

	// Windows names.
	w := searchEnv{goos: "windows", getenv: func(string) string { return "" }}
	require.Equal(t, []string{"cublasLt64_13.dll", "cublasLt64_12.dll"}, w.candidates())
}
