package cuda

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/kernels"
	"github.com/anygpu/gpu/nvrtc"
)

// TestCompileTimings times the phases of a process's first compiles
// (ANYGPU_COMPILE_TIMINGS=1): loading NVRTC, the first and second NVRTC
// compile of the built-in kernels (cache off), a tiny kernel, and the
// backend's whole Compile (NVRTC, on-disk cache, cuModuleLoadData). A
// diagnostic for the first compile on a fresh machine; it asserts nothing
// about speed.
func TestCompileTimings(t *testing.T) {
	skipUnlessSet(t, "ANYGPU_COMPILE_TIMINGS", "the compile timings")
	d := openRaw(t)
	start := time.Now()
	require.NoError(t, nvrtc.Available())
	t.Logf("load NVRTC: %v", time.Since(start))
	src := kernels.Source().CUDA
	for i := range 3 {
		start = time.Now()
		_, err := nvrtc.Compile(src, nvrtc.Options{Arch: d.arch, NoCache: true, Defines: map[string]string{"STAMP": fmt.Sprint(time.Now().UnixNano())}})
		require.NoError(t, err)
		t.Logf("NVRTC compile of the built-ins #%d: %v", i, time.Since(start))
	}
	start = time.Now()
	_, err := nvrtc.Compile(`extern "C" __global__ void k(float* y) { y[threadIdx.x] = 1; }`, nvrtc.Options{Arch: d.arch, NoCache: true})
	require.NoError(t, err)
	t.Logf("NVRTC compile of a tiny kernel: %v", time.Since(start))
	for i := range 2 {
		start = time.Now()
		m, err := d.Compile(context.Background(), kernels.Source(), backend.CompileOptions{Defines: map[string]string{"STAMP2": fmt.Sprint(time.Now().UnixNano())}})
		require.NoError(t, err)
		t.Logf("backend Compile of the built-ins #%d (NVRTC, cache, module load): %v", i, time.Since(start))
		require.NoError(t, m.Close())
	}
}
