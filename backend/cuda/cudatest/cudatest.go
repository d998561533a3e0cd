// Package cudatest builds stand-ins for the CUDA libraries the CUDA backend
// loads (the driver, NVRTC and cuBLASLt) with the system C compiler, for
// tests and benchmarks of code above the backend (package tensor, the
// examples) on machines without an NVIDIA GPU. The stand-in driver's device
// memory is host memory and its launches do nothing, so what such a
// benchmark measures is the host path: the Go side of every op, the
// backend's argument packing and the library calls. Streams capture into
// graphs as the driver's do (gpu.Stream.BeginCapture takes the native path):
// a graph's launch replays its copies, fills and cuBLASLt products.
//
// Install builds the three libraries and sets the environment the backend
// reads to load them; a test opens the device with gpu.OpenDriver(ctx,
// cuda.Driver{}, 0) after it.
package cudatest

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/anygpu/gpu/backend/cuda"
	"github.com/anygpu/gpu/backend/cuda/internal/cublaslt"
	"github.com/anygpu/gpu/backend/cuda/internal/fakecublaslt"
	"github.com/anygpu/gpu/backend/cuda/internal/fakecuda"
	"github.com/anygpu/gpu/internal/fakenvrtc"
	"github.com/anygpu/gpu/nvrtc"
)

// Setenv sets one environment variable for the rest of a test (the
// testing.TB method of that name).
type Setenv func(key, value string)

// Install builds the stand-in driver, NVRTC and cuBLASLt into dir and points
// the backend at them through setenv (pass a test's t.Setenv). The fake
// cuBLASLt checks each product's shapes but, unless math is true, skips the
// arithmetic (the product's output is left as it was), so that a benchmark
// of the host path does not time a matrix product on the CPU. It fails when
// no C compiler is available.
func Install(dir string, setenv Setenv, math bool) error {
	driver, err := fakecuda.Build(dir)
	if err != nil {
		return fmt.Errorf("cudatest: driver: %w", err)
	}
	nvDir := filepath.Join(dir, "nvrtc")
	ltDir := filepath.Join(dir, "cublaslt")
	inc := filepath.Join(dir, "include")
	for _, d := range []string{nvDir, ltDir, inc} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return fmt.Errorf("cudatest: %w", err)
		}
	}
	nv, err := fakenvrtc.Build(nvDir)
	if err != nil {
		return fmt.Errorf("cudatest: NVRTC: %w", err)
	}
	lt, err := fakecublaslt.Build(ltDir)
	if err != nil {
		return fmt.Errorf("cudatest: cuBLASLt: %w", err)
	}
	// The headers NVRTC gets, as installed ones are: not modified in the
	// last seconds (such a header is compared by contents at every check).
	hdr := filepath.Join(inc, "cuda_fp16.h")
	if err := os.WriteFile(hdr, []byte("// half\n"), 0o644); err != nil {
		return fmt.Errorf("cudatest: %w", err)
	}
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(hdr, old, old); err != nil {
		return fmt.Errorf("cudatest: %w", err)
	}
	setenv(cuda.EnvLibrary, driver)
	setenv(nvrtc.EnvLibrary, nv)
	setenv(nvrtc.EnvInclude, inc)
	setenv(cublaslt.EnvLibrary, lt)
	if !math {
		setenv("FAKECUBLASLT_NOMATH", "1")
	}
	return nil
}
