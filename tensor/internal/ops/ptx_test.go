package ops_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu/nvrtc"
	"github.com/anygpu/gpu/tensor/internal/ops"
)

// ptxInstructions counts the instructions of entry point name in PTX text:
// the lines of its body that are neither labels, directives, braces nor
// comments.
func ptxInstructions(t *testing.T, ptx, name string) int {
	t.Helper()
	start := strings.Index(ptx, ".entry "+name+"(")
	require.GreaterOrEqual(t, start, 0, "no entry %s in the PTX", name)
	body := ptx[start:]
	open := strings.Index(body, "\n{")
	require.GreaterOrEqual(t, open, 0, "entry %s has no body", name)
	n := 0
	for _, line := range strings.Split(body[open+2:], "\n") {
		line = strings.TrimSpace(line)
		if line == "}" {
			return n
		}
		if line == "" || line == "{" || strings.HasPrefix(line, ".") || strings.HasPrefix(line, "//") || strings.HasSuffix(line, ":") {
			continue
		}
		n++
	}
	t.Fatalf("entry %s does not end", name)
	return 0
}

// probeOf is the package's CUDA text with kernel name made a device
// function that probe, a new entry point, calls with args (constants where
// the launch has them): the compiler drops what those constants leave
// unreached, so probe's PTX is the path such a launch runs.
func probeOf(t *testing.T, name, args string) string {
	t.Helper()
	src := ops.Kernels.CUDA
	head := `extern "C" __global__ void ` + name + `(`
	require.Contains(t, src, head)
	src = strings.Replace(src, head, `__device__ __forceinline__ void `+name+`(`, 1)
	return src + fmt.Sprintf("\nextern \"C\" __global__ void probe(unsigned* y, unsigned* x, unsigned* g, unsigned* b) {\n\t%s(y, x, g, b, %s);\n}\n", name, args)
}

// TestNormPTXSize compiles normRows and rowsLean with NVRTC (where
// installed) and compares their PTX: whole, and the path a launch of one
// bfloat16 row of 768 with gamma and beta runs (the GPT-2 decode's layer
// norm). The lean kernel must be the smaller on both counts: its point is
// fewer instructions fetched.
func TestNormPTXSize(t *testing.T) {
	if testing.Short() {
		t.Skip("two NVRTC compiles of the package's CUDA text")
	}
	if err := nvrtc.Available(); err != nil {
		t.Skipf("no NVRTC: %v", err)
	}
	compile := func(src string) string {
		r, err := nvrtc.Compile(src, nvrtc.Options{Arch: "compute_90", PTX: true, NoCache: true})
		require.NoError(t, err)
		return r.PTX
	}
	bf16 := fmt.Sprint(ops.DTBFloat16)
	old := compile(probeOf(t, "normRows", fmt.Sprintf("1u, 768u, %su, %du, 3u, 0u, 1u, 1u, 1u, 1u, 1u, 0u, 0u, 0u, 0u, 768u, 1u, 1e-5f", bf16, ops.NormLayer)))
	lean := compile(probeOf(t, "rowsLean", fmt.Sprintf("1u, 384u, %su, %du, 3u, 0u, 384u, 1e-5f", bf16, ops.NormLayer)))
	// Each probe's text keeps the other kernel as it is.
	oldAll, leanAll := ptxInstructions(t, lean, "normRows"), ptxInstructions(t, old, "rowsLean")
	oldPath, leanPath := ptxInstructions(t, old, "probe"), ptxInstructions(t, lean, "probe")
	if dir := os.Getenv("ANYGPU_PTX_DUMP"); dir != "" {
		require.NoError(t, os.WriteFile(dir+"/normRows.ptx", []byte(old), 0o644))
		require.NoError(t, os.WriteFile(dir+"/rowsLean.ptx", []byte(lean), 0o644))
	}
	t.Logf("PTX instructions: normRows %d (bf16 1x768 layer norm: %d), rowsLean %d (%d)", oldAll, oldPath, leanAll, leanPath)
	require.Less(t, leanAll, oldAll)
	require.Less(t, leanPath, oldPath)
}
