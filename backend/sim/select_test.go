package sim_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	gpu "github.com/anygpu/gpu"
	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/backend/sim"
	"github.com/anygpu/gpu/errors"
)

// cleanEnv clears the variables that steer selection, so the tests see only
// what they set.
func cleanEnv(t *testing.T) {
	t.Helper()
	for _, v := range []string{gpu.EnvBackend, gpu.EnvDevice, gpu.EnvFake} {
		t.Setenv(v, "")
	}
}

// open opens a device with opts and closes it when the test ends.
func open(t *testing.T, opts ...gpu.Option) *gpu.Device {
	t.Helper()
	dev, err := gpu.Open(context.Background(), opts...)
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, dev.Close()) })
	return dev
}

// capture returns a logger that writes text records to the returned buffer.
func capture() (*slog.Logger, *bytes.Buffer) {
	var buf bytes.Buffer
	return slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug})), &buf
}

func presetInfo(t *testing.T, be, preset string) backend.DeviceInfo {
	t.Helper()
	d, err := sim.PresetInfo(be, preset)
	require.NoError(t, err)
	return d
}

func TestSelection(t *testing.T) {
	tests := []struct {
		name        string
		fake        string
		opts        []gpu.Option
		wantBackend string
		wantPreset  string
		wantOrdinal int
	}{
		{name: "cuda first", fake: "cuda:h100,vulkan:rtx4090", wantBackend: "cuda", wantPreset: "h100"},
		{name: "order from WithBackends", fake: "cuda:h100,vulkan:rtx4090",
			opts: []gpu.Option{gpu.WithBackends("vulkan", "cuda")}, wantBackend: "vulkan", wantPreset: "rtx4090"},
		{name: "second device", fake: "cuda:h100,cuda:a100",
			opts: []gpu.Option{gpu.WithDevice(1)}, wantBackend: "cuda", wantPreset: "a100", wantOrdinal: 1},
		{name: "unavailable cuda falls back to vulkan", fake: "cuda:h100+unavailable,vulkan:rx7900xtx",
			wantBackend: "vulkan", wantPreset: "rx7900xtx"},
		{name: "default preset", fake: "cuda", wantBackend: "cuda", wantPreset: "h100"},
		{name: "metal before vulkan", fake: "vulkan:lavapipe,metal:m3-pro", wantBackend: "metal", wantPreset: "m3-pro"},
		{name: "software vulkan", fake: "opengl:llvmpipe,vulkan:lavapipe",
			opts: []gpu.Option{gpu.WithBackends("vulkan")}, wantBackend: "vulkan", wantPreset: "lavapipe"},
		{name: "device past the first backend's", fake: "cuda:t4,vulkan:rtx4090,vulkan:arc-a770",
			opts: []gpu.Option{gpu.WithDevice(1)}, wantBackend: "vulkan", wantPreset: "arc-a770", wantOrdinal: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cleanEnv(t)
			dev := open(t, append([]gpu.Option{gpu.WithFake(tt.fake)}, tt.opts...)...)
			assert.Equal(t, tt.wantBackend, dev.Backend())
			assert.True(t, dev.Simulated())

			want := presetInfo(t, tt.wantBackend, tt.wantPreset)
			got := dev.Info()
			assert.Equal(t, tt.wantOrdinal, got.Ordinal)
			assert.NotEmpty(t, got.UUID)
			// Identity differs per ordinal; everything else is the preset's.
			want.Ordinal, want.UUID, want.PCIBus = got.Ordinal, got.UUID, got.PCIBus
			assert.Equal(t, want, got)
		})
	}
}

func TestSelectionH100Info(t *testing.T) {
	cleanEnv(t)
	dev := open(t, gpu.WithFake("cuda:h100,vulkan:rtx4090"))
	info := dev.Info()
	assert.Equal(t, "cuda:0", dev.Name())
	assert.Equal(t, "NVIDIA H100 80GB HBM3", info.Name)
	assert.Equal(t, backend.TypeDiscreteGPU, info.Type)
	hopperLimits(t, info)
	assert.Equal(t, int64(50*mib), info.L2CacheBytes)
	assert.Equal(t, "true", info.Extra["simulated"])
	assert.Equal(t, "h100", info.Extra["preset"])

	free, total, err := dev.MemInfo()
	require.NoError(t, err)
	assert.Equal(t, info.MemoryBytes, total)
	assert.Positive(t, free)
	assert.LessOrEqual(t, free, total)
}

func TestSelectionFromEnvironment(t *testing.T) {
	cleanEnv(t)
	t.Setenv(gpu.EnvFake, "cuda:t4, cuda:l4")
	t.Setenv(gpu.EnvDevice, "1")
	dev := open(t)
	assert.Equal(t, "NVIDIA L4", dev.Info().Name)
	assert.Equal(t, 1, dev.Info().Ordinal)
}

func TestSelectionBadSpec(t *testing.T) {
	cleanEnv(t)
	_, err := gpu.Open(context.Background(), gpu.WithFake("cuda:h100+explode"))
	require.Error(t, err)
	assert.True(t, errors.Is(err, errors.InvalidArgument), "%v", err)
	assert.Contains(t, err.Error(), `"explode"`)

	_, err = gpu.Open(context.Background(), gpu.WithFake("cuda:h101"))
	require.Error(t, err)
	assert.True(t, errors.Is(err, errors.InvalidArgument), "%v", err)
	assert.Contains(t, err.Error(), `"h101"`)
	assert.Contains(t, err.Error(), "h100")
}

// allUnavailable makes both simulated GPU backends unavailable, each with its
// own reason.
const allUnavailable = "cuda:h100+unavailable=no CUDA driver here,vulkan:+unavailable"

func TestFallbackToCPU(t *testing.T) {
	cleanEnv(t)
	logger, logs := capture()
	dev := open(t, gpu.WithFake(allUnavailable), gpu.WithLogger(logger))
	assert.Equal(t, "cpu", dev.Backend())
	assert.False(t, dev.Simulated())

	out := logs.String()
	assert.Equal(t, 1, strings.Count(out, "level=WARN"), "one warning:\n%s", out)
	assert.Contains(t, out, "no CUDA driver here")
	assert.Contains(t, out, "libvulkan.so.1: cannot open shared object file")
	assert.Contains(t, out, "cuda=")
	assert.Contains(t, out, "vulkan=")
}

func TestNoFallback(t *testing.T) {
	cleanEnv(t)
	logger, logs := capture()
	_, err := gpu.Open(context.Background(), gpu.WithFake(allUnavailable), gpu.WithFallback(false), gpu.WithLogger(logger))
	require.Error(t, err)
	assert.True(t, errors.Is(err, errors.Unavailable), "%v", err)
	assert.Contains(t, err.Error(), "no CUDA driver here")
	assert.Contains(t, err.Error(), "libvulkan.so.1: cannot open shared object file")
	out := logs.String()
	assert.NotContains(t, out, "level=WARN", "no fallback, no warning")
	assert.NotContains(t, out, "level=ERROR")
	assert.Contains(t, out, `msg="anygpu: backend passed over"`, "each backend passed over is logged at debug level")
}

func TestProbeReportsSimulated(t *testing.T) {
	cleanEnv(t)
	t.Setenv(gpu.EnvFake, "cuda:h100,cuda:a100,vulkan:+unavailable")
	rep := gpu.Probe(context.Background())

	tests := []struct {
		backend string
		state   gpu.State
		devices []string
		reason  string
	}{
		{"cuda", gpu.Available, []string{"NVIDIA H100 80GB HBM3", "NVIDIA A100-SXM4-80GB"}, ""},
		{"vulkan", gpu.Unavailable, nil, "libvulkan.so.1"},
	}
	for _, tt := range tests {
		t.Run(tt.backend, func(t *testing.T) {
			st, ok := rep.Backend(tt.backend)
			require.True(t, ok)
			assert.True(t, st.Simulated)
			assert.Equal(t, tt.state, st.State)
			var names []string
			for i, d := range st.Devices {
				assert.Equal(t, i, d.Ordinal)
				assert.Equal(t, "true", d.Extra["simulated"])
				names = append(names, d.Name)
			}
			assert.Equal(t, tt.devices, names)
			assert.Contains(t, st.Reason, tt.reason)
		})
	}
	assert.Contains(t, rep.String(), "available*", "simulated backends are starred")

	// The "sim" driver itself lists nothing, and says how to configure it.
	st, ok := rep.Backend(sim.Name)
	require.True(t, ok)
	assert.Equal(t, gpu.Unavailable, st.State)
	assert.Contains(t, st.Reason, "ANYGPU_FAKE")
	assert.False(t, st.Simulated)
}
