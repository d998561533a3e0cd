package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/health"
	"github.com/anygpu/gpu/internal/fakenvml"
)

// useFakeNVML builds the fake NVML and points ANYGPU_NVML_LIBRARY at it, or
// skips the test where it cannot be built (no C compiler, not Linux).
func useFakeNVML(t *testing.T) {
	t.Helper()
	lib, err := fakenvml.Build(t.TempDir())
	if err != nil {
		t.Skipf("fake NVML: %v", err)
	}
	t.Setenv(health.EnvLibrary, lib)
}

func TestInfoNVML(t *testing.T) {
	useFakeNVML(t)
	code, stdout, stderr := runArgs(t, "info")
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stdout, "\nnvml      available     2 NVIDIA GPU(s), driver 580.95.05")
	h200, rtx := fakenvml.Devices[0], fakenvml.Devices[1]
	// No backend device is the fake's, so both are shown on their own.
	for _, want := range []string{
		"\nnvml:0  " + h200.Name, "health (NVML 0, " + h200.PCIBusID + ")",
		"utilization   45% gpu, 30% memory", "memory used   1 GiB of 140.4 GiB (the driver reserves 512 MiB more)", "temperature   41 °C",
		"power         123.5 W", "power limit   700 W", "sm clock      1980 MHz (max 1980 MHz)",
		"throttle      sw_power_cap", "ecc errors    2 corrected, 0 uncorrected",
		"\nnvml:1  " + rtx.Name, "throttle      gpu_idle,hw_thermal_slowdown", "ecc errors    not supported",
		"sm clock      210 MHz (max 3120 MHz)",
	} {
		assert.Contains(t, stdout, want)
	}
}

func TestInfoWithoutNVML(t *testing.T) {
	t.Setenv(health.EnvLibrary, filepath.Join(t.TempDir(), "libnvidia-ml.so.1"))
	code, stdout, stderr := runArgs(t, "info")
	require.Equal(t, exitOK, code, stderr)
	assert.Regexp(t, `\nnvml      unavailable   no usable NVML library: [^\n]+\n +hint: `+health.EnvLibrary+` must name`, stdout)
	assert.Equal(t, 1, strings.Count(stdout, "nvml "), "one line says why")
}

func TestInfoJSONHealth(t *testing.T) {
	useFakeNVML(t)
	code, stdout, stderr := runArgs(t, "info", "--json")
	require.Equal(t, exitOK, code, stderr)
	var rep struct {
		Backends []json.RawMessage `json:"backends"`
		Open     openChoice        `json:"open"`
		Health   []struct {
			Device  health.Device            `json:"device"`
			Temp    int                      `json:"temperature_c"`
			Missing map[health.Metric]string `json:"missing"`
		} `json:"health"`
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &rep), stdout)
	assert.NotEmpty(t, rep.Backends)
	assert.NotEmpty(t, rep.Open.Backend)
	require.Len(t, rep.Health, 2)
	assert.Equal(t, 41, rep.Health[0].Temp)
	assert.Empty(t, rep.Health[0].Missing)
	assert.Contains(t, rep.Health[1].Missing[health.MetricECC], "NVML_ERROR_NOT_SUPPORTED")
}

func TestWatch(t *testing.T) {
	useFakeNVML(t)
	code, stdout, stderr := runArgs(t, "watch", "--count", "2", "--interval", "10ms")
	require.Equal(t, exitOK, code, stderr)
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	require.Len(t, lines, 1+2*2, stdout)
	assert.Equal(t, watchHeader, lines[0])
	for i, l := range lines[1:] {
		f := strings.Fields(l)
		require.GreaterOrEqual(t, len(f), 12, l)
		switch i % 2 {
		case 0: // time gpu sm% mem% used total temp power limit sm mem throttle
			assert.Equal(t, []string{"0", "45", "30", "1024", "143771", "41", "123", "700", "1980", "3201", "sw_power_cap"}, f[1:12])
		case 1:
			assert.Equal(t, []string{"1", "0", "0", "512", "24564", "87", "31", "450", "210", "405", "gpu_idle,hw_thermal_slowdown"}, f[1:12])
		}
	}

	code, stdout, stderr = runArgs(t, "watch", "--count", "1", "--json")
	require.Equal(t, exitOK, code, stderr)
	dec := json.NewDecoder(strings.NewReader(stdout))
	for i := range 2 {
		var s struct {
			Device   health.Device `json:"device"`
			Throttle string        `json:"throttle"`
		}
		require.NoError(t, dec.Decode(&s))
		assert.Equal(t, i, s.Device.Index)
		assert.NotEmpty(t, s.Throttle)
	}
}

func TestWatchStopsOnCancel(t *testing.T) {
	useFakeNVML(t)
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(50 * time.Millisecond); cancel() }()
	var out, errOut bytes.Buffer
	done := make(chan int)
	go func() { done <- runContext(ctx, []string{"watch", "--interval", "10ms"}, &out, &errOut) }()
	select {
	case code := <-done:
		assert.Equal(t, exitOK, code, errOut.String())
		assert.Greater(t, strings.Count(out.String(), "\n"), 2)
	case <-time.After(10 * time.Second):
		t.Fatal("gpu watch did not stop when its context was cancelled")
	}
}

func TestWatchErrors(t *testing.T) {
	t.Setenv(health.EnvLibrary, filepath.Join(t.TempDir(), "libnvidia-ml.so.1"))
	tests := []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"no NVML", []string{"watch", "--count", "1"}, exitFail, "gpu watch: nvml: load: no usable NVML library"},
		{"zero interval", []string{"watch", "--interval", "0s"}, exitUsage, "--interval must be positive"},
		{"negative count", []string{"watch", "--count", "-1"}, exitUsage, "--count not negative"},
		{"bad duration", []string{"watch", "--interval", "soon"}, exitUsage, "invalid value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runArgs(t, tt.args...)
			assert.Equal(t, tt.code, code)
			assert.Empty(t, stdout)
			assert.Contains(t, stderr, tt.stderr)
		})
	}
}

// TestMain lets a test run the real main of the command: the test binary
// re-executed with GPU_TEST_RUN_MAIN=1 is the gpu command.
func TestMain(m *testing.M) {
	if os.Getenv("GPU_TEST_RUN_MAIN") == "1" {
		main()
	}
	cleanup := privateRuntimeDir() // keeps Mesa quiet in the in-process runs too
	code := m.Run()
	cleanup()
	os.Exit(code)
}

// TestMainQuietsMesa runs `gpu info` as a process without XDG_RUNTIME_DIR:
// Mesa's drivers would print "XDG_RUNTIME_DIR is invalid" once per probe.
func TestMainQuietsMesa(t *testing.T) {
	exe, err := os.Executable()
	require.NoError(t, err)
	for _, xdg := range []string{"", "relative/dir", filepath.Join(t.TempDir(), "missing")} {
		cmd := exec.Command(exe, "info")
		env := []string{"GPU_TEST_RUN_MAIN=1"}
		for _, kv := range os.Environ() {
			if !strings.HasPrefix(kv, "XDG_RUNTIME_DIR=") {
				env = append(env, kv)
			}
		}
		if xdg != "" {
			env = append(env, "XDG_RUNTIME_DIR="+xdg)
		}
		cmd.Env = env
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		require.NoError(t, cmd.Run(), stderr.String())
		assert.Contains(t, stdout.String(), "BACKEND")
		assert.NotContains(t, stdout.String()+stderr.String(), "XDG_RUNTIME_DIR", "XDG_RUNTIME_DIR=%q", xdg)
	}
}

// TestHealthOncePerGPU: a GPU that several backends present gets NVML's
// figures under the first of them; the others point there.
func TestHealthOncePerGPU(t *testing.T) {
	useFakeNVML(t)
	hv := openHealth()
	defer hv.close()
	require.NoError(t, hv.err)
	d := gpu.DeviceInfo{UUID: fakenvml.Devices[0].UUID}
	first, ok := hv.group(d, "cuda:0")
	require.True(t, ok)
	assert.Greater(t, len(first.fields), 3, "the figures, under the first device")
	second, ok := hv.group(d, "vulkan:0")
	require.True(t, ok)
	require.Len(t, second.fields, 1)
	assert.Equal(t, "under cuda:0, the same GPU", second.fields[0].value)
	_, ok = hv.group(gpu.DeviceInfo{UUID: "GPU-00000000-0000-0000-0000-000000000000"}, "vulkan:1")
	assert.False(t, ok, "a GPU NVML does not list")
}
