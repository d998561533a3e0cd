package kernelcorpus_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/anygpu/gpu/internal/kernelcorpus"
	"github.com/anygpu/gpu/internal/testreq"
	"github.com/anygpu/gpu/kernels"
	"github.com/stretchr/testify/require"
)

// TestSPIRVValidates runs spirv-val on every SPIR-V module the kernel
// language generated: the corpus's (its subgroup variants too) and the
// built-ins'. Without spirv-val it
// skips, unless ANYGPU_TEST_REQUIRE names spirv-val (as CI's does).
func TestSPIRVValidates(t *testing.T) {
	val, err := exec.LookPath("spirv-val")
	if err != nil {
		if testreq.Required("spirv-val") {
			t.Fatalf("spirv-val is not on PATH and %s names it", testreq.EnvRequire)
		}
		t.Skip("spirv-val is not on PATH (Debian: spirv-tools)")
	}
	sets := map[string]map[string][]byte{
		"kernelcorpus": kernelcorpus.Kernels.SPIRVKernels,
		"builtin":      kernels.Source().SPIRVKernels,
	}
	if sg := kernelcorpus.Kernels.Subgroups; sg != nil {
		sets["kernelcorpus_subgroups"] = sg.SPIRVKernels // GroupNonUniform needs SPIR-V 1.3, Vulkan 1.1
	}
	dir := t.TempDir()
	n := 0
	for set, modules := range sets {
		for name, blob := range modules {
			path := filepath.Join(dir, set+"_"+name+".spv")
			require.NoError(t, os.WriteFile(path, blob, 0o644))
			out, err := exec.Command(val, "--target-env", "vulkan1.1", path).CombinedOutput()
			require.NoError(t, err, "%s/%s: %s", set, name, out)
			n++
		}
	}
	require.GreaterOrEqual(t, n, 37+3, "every corpus kernel has a SPIR-V module, the subgroup kernels two")
}
