package cuda

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// clangCheck compiles src with the installed NVRTC (nvrtcCheck), then as
// CUDA device code with clang against testdata/prelude.cuh (no CUDA toolkit
// needed), and fails the test on any error, or on a warning from clang. It
// skips when clang is not installed.
func clangCheck(t *testing.T, src string) {
	t.Helper()
	nvrtcCheck(t, src)
	clangCheckArch(t, src, "sm_80")
}

// clangCheckArch is clangCheck's clang step for device arch (sm_70 checks
// the paths under #if __CUDA_ARCH__ >= 800's #else).
func clangCheckArch(t *testing.T, src, arch string) {
	t.Helper()
	clang, err := exec.LookPath("clang")
	if err != nil {
		t.Skip("clang is not installed")
	}
	prelude, err := filepath.Abs("testdata/prelude.cuh")
	require.NoError(t, err)
	file := filepath.Join(t.TempDir(), "k.cu")
	require.NoError(t, os.WriteFile(file, []byte(src), 0o644))
	cmd := exec.Command(clang, "-x", "cuda", "--cuda-gpu-arch="+arch, "-nocudainc", "-nocudalib",
		"--cuda-device-only", "-fsyntax-only", "-std=c++17", "-Werror", "-include", prelude, file)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "clang rejects the emitted text:\n%s\n%s", out, numbered(src))
}
