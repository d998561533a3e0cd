package cuda

import (
	_ "embed"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu/nvrtc"
)

// hostPTXSource is the kernel of testdata/add_one_host.ptx.
const hostPTXSource = `extern "C" __global__ void add_one(unsigned* x, unsigned n) {
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) x[i] += 1;
}`

// hostPTX is NVRTC's PTX of hostPTXSource for compute_75, made on a machine
// without a GPU (the development machine, with NVRTC 11.8 from Debian's
// non-free libnvrtc11.2 and libnvrtc-builtins11.8 packages: NVRTC needs no
// driver and no device). TestCorpus16Binaries loads and runs it on the GPU
// machine. Rewrite it where NVRTC loads with
//
//	ANYGPU_WRITE_HOST_PTX=1 go test -run TestRegenerateHostPTX ./backend/cuda
//
//go:embed testdata/add_one_host.ptx
var hostPTX string

// TestRegenerateHostPTX rewrites testdata/add_one_host.ptx when
// ANYGPU_WRITE_HOST_PTX is set; otherwise it checks that the file is PTX of
// the kernel.
func TestRegenerateHostPTX(t *testing.T) {
	if os.Getenv("ANYGPU_WRITE_HOST_PTX") != "" {
		res, err := nvrtc.Compile(hostPTXSource, nvrtc.Options{Arch: "compute_75", PTX: true, NoCache: true})
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join("testdata", "add_one_host.ptx"), []byte(res.PTX), 0o644))
		t.Logf("wrote testdata/add_one_host.ptx (%d bytes)", len(res.PTX))
		return
	}
	require.Contains(t, hostPTX, ".entry add_one(")
	require.Contains(t, hostPTX, ".target sm_75")
}
