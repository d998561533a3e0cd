//go:build cgo

package webgpu_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/backend/webgpu"
	"github.com/anygpu/gpu/errors"
)

// helperEnv selects the helper mode of the test binary: probe the backend
// in a process whose loader variables the parent chose, and print the
// outcome.
const helperEnv = "ANYGPU_WEBGPU_PROBE_HELPER"

// TestProbeHelper is the helper process's body; in a normal run it returns
// at once (it does not skip, so that skips stay meaningful in CI logs).
func TestProbeHelper(t *testing.T) {
	if os.Getenv(helperEnv) == "" {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	devs, err := webgpu.Driver{}.Probe(ctx)
	fmt.Printf("probe: devices=%d category=%q hint=%v err=%v\n", len(devs), errors.CategoryOf(err), errors.Hint(err) != "", err)
	_, err = webgpu.Driver{}.Open(ctx, 0)
	fmt.Printf("open: category=%q err=%v\n", errors.CategoryOf(err), err)
	for _, st := range gpu.Probe(ctx).Backends {
		if st.Name == webgpu.Name {
			fmt.Printf("report: state=%s\n", st.State)
		}
	}
}

// TestNoDriver probes in child processes that see no graphics driver: wgpu
// must report no adapter (category Unavailable) and the process must not
// abort, as older bindings did when EGL is installed without a vendor
// library. A crash of the child fails this test only.
func TestNoDriver(t *testing.T) {
	if os.Getenv(helperEnv) != "" {
		return // inside the helper
	}
	empty := t.TempDir()
	// A GLVND vendor file naming a library that does not exist.
	vendor := filepath.Join(t.TempDir(), "10_missing.json")
	require.NoError(t, os.WriteFile(vendor, []byte(`{"file_format_version": "1.0.0", "ICD": {"library_path": "libEGL_anygpu_missing.so.0"}}`), 0o644))
	type testCase struct {
		name string
		env  []string
	}
	// Mesa's EGL vendor without Mesa's DRI drivers, where Mesa is installed.
	var mesa []testCase
	for _, dir := range []string{"/usr/share/glvnd/egl_vendor.d", "/etc/glvnd/egl_vendor.d"} {
		if f := filepath.Join(dir, "50_mesa.json"); fileExists(f) {
			mesa = append(mesa, testCase{"Mesa EGL without its driver", []string{
				"VK_DRIVER_FILES=" + empty, "VK_ICD_FILENAMES=" + empty, "__EGL_VENDOR_LIBRARY_FILENAMES=" + f,
				"LIBGL_DRIVERS_PATH=" + empty, "GBM_BACKENDS_PATH=" + empty, "EGL_LOG_LEVEL=fatal",
			}})
			break
		}
	}
	cases := []testCase{
		{"no driver at all", []string{
			"VK_DRIVER_FILES=" + empty, "VK_ICD_FILENAMES=" + empty, "VK_ADD_DRIVER_FILES=",
			"__EGL_VENDOR_LIBRARY_DIRS=" + empty, "LIBGL_DRIVERS_PATH=" + empty, "EGL_LOG_LEVEL=fatal",
		}},
		{"EGL without a vendor", []string{
			"VK_DRIVER_FILES=" + empty, "VK_ICD_FILENAMES=" + empty, "__EGL_VENDOR_LIBRARY_DIRS=" + empty,
		}},
		{"EGL vendor whose library is missing", []string{
			"VK_DRIVER_FILES=" + empty, "VK_ICD_FILENAMES=" + empty, "__EGL_VENDOR_LIBRARY_FILENAMES=" + vendor,
		}},
	}
	cases = append(cases, mesa...)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestProbeHelper$", "-test.v")
			cmd.Env = append(childEnv(), helperEnv+"=1")
			cmd.Env = append(cmd.Env, tc.env...)
			out, err := cmd.CombinedOutput()
			t.Logf("child output:\n%s", out)
			require.NoError(t, err, "the child process failed (an abort is a failure): %v", err)
			s := string(out)
			require.Contains(t, s, `probe: devices=0 category="unavailable" hint=true`)
			require.Contains(t, s, `open: category="unavailable"`)
			require.Contains(t, s, "report: state=unavailable")
		})
	}
}

// childEnv is the environment without the variables that point the Vulkan
// and EGL loaders at drivers.
func childEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch {
		case strings.HasPrefix(name, "VK_"), strings.HasPrefix(name, "__EGL_"), name == "LIBGL_DRIVERS_PATH":
			continue
		}
		env = append(env, kv)
	}
	return env
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
