package cuda

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu/internal/testreq"
	"github.com/anygpu/gpu/nvrtc"
)

// nvrtcCheck compiles src to PTX with the NVRTC that is installed, as the
// CUDA backend does, when there is one: NVRTC needs no GPU and no driver (CI
// installs NVRTC 11.8 from Debian). Without NVRTC it does nothing, or fails
// where ANYGPU_TEST_REQUIRE names nvrtc.
func nvrtcCheck(t *testing.T, src string) {
	t.Helper()
	if err := nvrtc.Available(); err != nil {
		if testreq.Required("nvrtc") {
			t.Fatalf("NVRTC is required (ANYGPU_TEST_REQUIRE names nvrtc) but unavailable: %v", err)
		}
		return
	}
	_, err := nvrtc.Compile(src, nvrtc.Options{Arch: "compute_75", PTX: true, NoCache: true})
	require.NoError(t, err, "NVRTC rejects the emitted text:\n%s", numbered(src))
}
