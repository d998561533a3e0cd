package kernels

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu/internal/testreq"
	"github.com/anygpu/gpu/nvrtc"
)

// TestCUDASyntax compiles the built-ins' CUDA C++, and sgemm's variants',
// with the installed NVRTC
// (where there is one), then as device code with clang,
// against the CUDA emitter's stand-in for the CUDA headers (no toolkit
// needed), with every warning an error, as the emitter's own tests check its
// output. NVRTC compiles it on a CUDA machine; here nothing can run it. It
// skips when clang is not installed.
func TestCUDASyntax(t *testing.T) {
	for _, tc := range []struct {
		src     string
		entries []string
	}{
		{Source().CUDA, Ops()},
		{SgemmSource().CUDA, SgemmKernels()[1:]},
	} {
		checkCUDA(t, tc.src, tc.entries)
	}
}

// checkCUDA checks one CUDA text as TestCUDASyntax says, and that it
// declares the entry points.
func checkCUDA(t *testing.T, src string, entries []string) {
	require.NotEmpty(t, src)
	for _, op := range entries {
		require.Regexp(t, `extern "C" __global__ void\s+(__launch_bounds__\(\d+\)\s+)?`+op+`\(`, src, "entry point %s", op)
	}
	if err := nvrtc.Available(); err == nil {
		// The compiler the CUDA backend uses; it needs no GPU (CI has NVRTC 11.8).
		_, err := nvrtc.Compile(src, nvrtc.Options{Arch: "compute_75", PTX: true, NoCache: true})
		require.NoError(t, err, "NVRTC rejects the built-ins' CUDA")
	} else if testreq.Required("nvrtc") {
		t.Fatalf("NVRTC is required (ANYGPU_TEST_REQUIRE names nvrtc) but unavailable: %v", err)
	}
	clang, err := exec.LookPath("clang")
	if err != nil {
		t.Skip("clang is not installed")
	}
	prelude, err := filepath.Abs(filepath.Join("..", "kernel", "internal", "emit", "cuda", "testdata", "prelude.cuh"))
	require.NoError(t, err)
	if _, err := os.Stat(prelude); err != nil {
		t.Skipf("the CUDA emitter's prelude is not here: %v", err)
	}
	file := filepath.Join(t.TempDir(), "builtin.cu")
	require.NoError(t, os.WriteFile(file, []byte(src), 0o644))
	out, err := exec.Command(clang, "-x", "cuda", "--cuda-gpu-arch=sm_80", "-nocudainc", "-nocudalib",
		"--cuda-device-only", "-fsyntax-only", "-std=c++17", "-Werror", "-include", prelude, file).CombinedOutput()
	require.NoError(t, err, "clang rejects the built-ins' CUDA:\n%s", out)
}
