//go:build linux

package opengl_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/anygpu/gpu/backend/opengl"
	"github.com/anygpu/gpu/errors"
	"github.com/stretchr/testify/require"
)

// childEnv makes the test binary probe the backend, print the outcome as
// JSON on stdout and exit, instead of running tests: EGL's state is per
// process, so each no-driver case runs in a process of its own.
const childEnv = "ANYGPU_OPENGL_TEST_CHILD"

// probeOutcome is what a child reports.
type probeOutcome struct {
	Devices     int    `json:"devices"`
	Category    string `json:"category"`
	Error       string `json:"error"`
	Hint        string `json:"hint"`
	EGLLogLevel string `json:"egl_log_level"` // after probing
	Vendor      string `json:"vendor"`
	API         string `json:"api"`         // the first device's Extra["api"]
	APIVersion  string `json:"api_version"` // the first device's APIVersion
}

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "probe" {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		devs, err := opengl.Driver{}.Probe(ctx)
		cancel()
		out := probeOutcome{Devices: len(devs), EGLLogLevel: os.Getenv("EGL_LOG_LEVEL")}
		if err != nil {
			out.Category, out.Error, out.Hint = errors.CategoryOf(err).String(), err.Error(), errors.Hint(err)
		}
		if len(devs) > 0 {
			out.Vendor = devs[0].Extra["egl_vendor"]
			out.API, out.APIVersion = devs[0].Extra["api"], devs[0].APIVersion
		}
		_ = json.NewEncoder(os.Stdout).Encode(out)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// probeChild runs the probe in a child process with env changed (a value of
// "" removes the variable) and returns its outcome and stderr.
func probeChild(t *testing.T, env map[string]string) (probeOutcome, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if _, drop := env[k]; !drop {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	for k, v := range env {
		if v != "" {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
	}
	cmd.Env = append(cmd.Env, childEnv+"=probe")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Run(), "the child must not crash; stderr:\n%s", stderr.String())
	var out probeOutcome
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &out), "child stdout: %q", stdout.String())
	t.Logf("%v -> %+v", env, out)
	return out, stderr.String()
}

func requireUnavailable(t *testing.T, out probeOutcome, stderr string, contains ...string) {
	t.Helper()
	require.Zero(t, out.Devices)
	require.Equal(t, errors.Unavailable.String(), out.Category, out.Error)
	require.True(t, strings.HasPrefix(out.Error, "opengl: "), out.Error)
	require.NotEmpty(t, out.Hint)
	for _, s := range contains {
		require.Contains(t, out.Error, s)
	}
	require.NotContains(t, stderr, "MESA-LOADER", "probing prints nothing on stderr")
	require.NotContains(t, stderr, "libEGL warning")
	require.Empty(t, out.EGLLogLevel, "EGL_LOG_LEVEL is restored after probing")
}

// TestNoDriver probes in child processes without the EGL library, without
// an EGL vendor, without Mesa's driver, and with a driver below OpenGL 4.3
// or OpenGL ES 3.1 (where that API is asked for): each is Unavailable with a
// reason and a hint, never a crash, and nothing is printed on stderr. A
// driver below OpenGL 4.3 with OpenGL ES 3.1 gives an ES device by default.
func TestNoDriver(t *testing.T) {
	t.Run("no library", func(t *testing.T) {
		out, stderr := probeChild(t, map[string]string{opengl.EnvLibrary: "/nonexistent/libEGL.so.1"})
		requireUnavailable(t, out, stderr, "cannot open", "/nonexistent/libEGL.so.1")
	})
	t.Run("not an EGL library", func(t *testing.T) {
		out, stderr := probeChild(t, map[string]string{opengl.EnvLibrary: "libc.so.6"})
		requireUnavailable(t, out, stderr, "eglGetError")
	})
	t.Run("no vendor", func(t *testing.T) {
		out, stderr := probeChild(t, map[string]string{
			"__EGL_VENDOR_LIBRARY_DIRS": t.TempDir(), "__EGL_VENDOR_LIBRARY_FILENAMES": "", opengl.EnvLibrary: "",
		})
		if out.Devices > 0 {
			t.Skipf("libEGL.so.1 is not libglvnd's dispatcher (it ignores __EGL_VENDOR_LIBRARY_DIRS): %+v", out)
		}
		requireUnavailable(t, out, stderr, "no client extensions")
		require.Contains(t, out.Hint, "__EGL_VENDOR_LIBRARY")
	})

	// The next cases hide Mesa's pieces: they apply where Mesa is the vendor.
	base, _ := probeChild(t, nil)
	if !strings.Contains(base.Vendor, "Mesa") {
		t.Logf("EGL vendor %q: the Mesa-only cases are not tried", base.Vendor)
		return
	}
	t.Run("no Mesa driver", func(t *testing.T) {
		out, stderr := probeChild(t, map[string]string{"LIBGL_DRIVERS_PATH": t.TempDir(), "EGL_LOG_LEVEL": ""})
		requireUnavailable(t, out, stderr, "EGL_NOT_INITIALIZED")
	})
	t.Run("OpenGL below 4.3", func(t *testing.T) {
		out, stderr := probeChild(t, map[string]string{"MESA_GL_VERSION_OVERRIDE": "3.3", "EGL_LOG_LEVEL": "", opengl.EnvAPI: "gl"})
		requireUnavailable(t, out, stderr, fmt.Sprintf("OpenGL %d.%d", 4, 3))
		require.Contains(t, out.Hint, opengl.EnvAPI+"=auto", "the hint offers OpenGL ES")
	})
	t.Run("OpenGL below 4.3 falls back to OpenGL ES", func(t *testing.T) {
		out, _ := probeChild(t, map[string]string{"MESA_GL_VERSION_OVERRIDE": "3.3", "EGL_LOG_LEVEL": "", opengl.EnvAPI: ""})
		require.Positive(t, out.Devices, out.Error)
		require.Equal(t, "gles", out.API)
		require.True(t, strings.HasPrefix(out.APIVersion, "OpenGL ES 3."), out.APIVersion)
	})
	t.Run("OpenGL ES below 3.1", func(t *testing.T) {
		out, stderr := probeChild(t, map[string]string{"MESA_GLES_VERSION_OVERRIDE": "3.0", "EGL_LOG_LEVEL": "", opengl.EnvAPI: "gles"})
		requireUnavailable(t, out, stderr, "no device gives a headless OpenGL ES 3.1 context")
		require.Contains(t, out.Hint, opengl.EnvAPI)
	})
	t.Run("neither API", func(t *testing.T) {
		out, stderr := probeChild(t, map[string]string{"MESA_GL_VERSION_OVERRIDE": "3.3", "MESA_GLES_VERSION_OVERRIDE": "3.0",
			"EGL_LOG_LEVEL": "", opengl.EnvAPI: "auto"})
		requireUnavailable(t, out, stderr, "OpenGL 4.3 core or OpenGL ES 3.1", "eglCreateContext(OpenGL 4.3 core)", "eglCreateContext(OpenGL ES 3.1)")
	})
	t.Run("malformed API", func(t *testing.T) {
		out, _ := probeChild(t, map[string]string{opengl.EnvAPI: "glse"})
		require.Zero(t, out.Devices)
		require.Equal(t, errors.InvalidArgument.String(), out.Category, out.Error)
		for _, s := range []string{opengl.EnvAPI + `="glse"`, "auto, gl, gles", `did you mean "gles"?`} {
			require.Contains(t, out.Error, s)
		}
		require.Contains(t, out.Hint, opengl.EnvAPI)
	})
	t.Run("EGL_LOG_LEVEL of the user is kept", func(t *testing.T) {
		out, stderr := probeChild(t, map[string]string{"LIBGL_DRIVERS_PATH": t.TempDir(), "EGL_LOG_LEVEL": "warning"})
		require.Equal(t, "warning", out.EGLLogLevel)
		require.Contains(t, stderr, "MESA-LOADER", "the user asked for Mesa's warnings")
	})
}
