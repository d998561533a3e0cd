package vulkan_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"runtime"
	"testing"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/backend/vulkan"
	"github.com/anygpu/gpu/errors"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// probeResult is what the helper process reports.
type probeResult struct {
	Devices  int
	Category string
	Err      string
	Hint     string
	State    string // gpu.Probe's state of the backend
	Reason   string
}

const helperEnv = "ANYGPU_VULKAN_TEST_PROBE_HELPER"

// probeIn runs the test binary as a probe helper (see TestMain) with env
// added.
func probeIn(t *testing.T, env ...string) probeResult {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), helperEnv+"=1", vulkan.EnvValidation+"=0")
	cmd.Env = append(cmd.Env, env...)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "helper process (it must not crash):\n%s", out)
	var r probeResult
	for _, line := range splitLines(string(out)) {
		if len(line) > 7 && line[:7] == "RESULT " {
			require.NoError(t, json.Unmarshal([]byte(line[7:]), &r))
			t.Logf("probe: %+v", r)
			return r
		}
	}
	t.Fatalf("no result from the helper:\n%s", out)
	return r
}

func splitLines(s string) []string {
	var out []string
	for len(s) > 0 {
		i := 0
		for i < len(s) && s[i] != '\n' {
			i++
		}
		out = append(out, s[:i])
		if i < len(s) {
			i++
		}
		s = s[i:]
	}
	return out
}

func TestProbeWithoutLibrary(t *testing.T) {
	r := probeIn(t, vulkan.EnvLibrary+"="+t.TempDir()+"/libvulkan.so.1")
	assert.Zero(t, r.Devices)
	assert.Equal(t, errors.Unavailable.String(), r.Category, "%+v", r)
	assert.Contains(t, r.Err, "libvulkan.so.1")
	assert.Contains(t, r.Hint, vulkan.EnvLibrary)
	assert.Equal(t, gpu.Unavailable.String(), r.State)
	assert.NotEmpty(t, r.Reason)
}

func TestProbeWithNotALoader(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("uses libc.so.6")
	}
	r := probeIn(t, vulkan.EnvLibrary+"=libc.so.6")
	assert.Equal(t, errors.Unavailable.String(), r.Category, "%+v", r)
	assert.Contains(t, r.Err, "vkGetInstanceProcAddr")
}

func TestProbeWithoutDriver(t *testing.T) {
	if _, err := (vulkan.Driver{}).Probe(context.Background()); err != nil {
		t.Skip("no Vulkan loader here:", err)
	}
	empty := t.TempDir()
	r := probeIn(t, "VK_DRIVER_FILES="+empty+"/none.json", "VK_ICD_FILENAMES="+empty+"/none.json", "VK_ADD_DRIVER_FILES=")
	assert.Zero(t, r.Devices)
	assert.Equal(t, errors.Unavailable.String(), r.Category, "%+v", r)
	assert.Contains(t, r.Err, "driver")
	assert.Contains(t, r.Hint, "VK_DRIVER_FILES")
	assert.Equal(t, gpu.Unavailable.String(), r.State)
}
