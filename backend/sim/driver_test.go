package sim_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	gpu "github.com/anygpu/gpu"
	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/backend/backendtest"
	"github.com/anygpu/gpu/backend/sim"
	"github.com/anygpu/gpu/errors"
)

func TestRegisteredSimDriver(t *testing.T) {
	ctx := context.Background()
	d, ok := backend.Lookup(sim.Name)
	require.True(t, ok, "importing backend/sim registers %q", sim.Name)
	assert.Equal(t, sim.Name, d.Name())

	devs, err := d.Probe(ctx)
	assert.Empty(t, devs)
	require.Error(t, err)
	assert.True(t, errors.Is(err, errors.Unavailable), "%v", err)
	assert.Contains(t, err.Error(), "ANYGPU_FAKE")
	assert.Contains(t, errors.Hint(err), "ANYGPU_FAKE=cuda:h100")

	_, err = d.Open(ctx, 0)
	assert.True(t, errors.Is(err, errors.Unavailable), "%v", err)

	s, ok := d.(backend.Simulator)
	require.True(t, ok, "the sim driver is a backend.Simulator")
	cuda, err := s.Simulate("cuda", []string{"h100", "h200+oom@2", ""})
	require.NoError(t, err)
	assert.Equal(t, "cuda", cuda.Name())
	devs, err = cuda.Probe(ctx)
	require.NoError(t, err)
	require.Len(t, devs, 3)
	for i, want := range []string{"NVIDIA H100 80GB HBM3", "NVIDIA H200", "NVIDIA H100 80GB HBM3"} {
		assert.Equal(t, want, devs[i].Name)
		assert.Equal(t, i, devs[i].Ordinal)
		assert.Equal(t, "cuda", devs[i].Backend)
	}
	assert.Equal(t, "+oom@2", devs[1].Extra["faults"])
	// Each device has its own identity, as real ones do.
	assert.Regexp(t, `^GPU-[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`, devs[0].UUID)
	assert.NotEqual(t, devs[0].UUID, devs[2].UUID, "same preset, different devices")
	assert.Equal(t, []string{"0000:01:00.0", "0000:02:00.0", "0000:03:00.0"}, []string{devs[0].PCIBus, devs[1].PCIBus, devs[2].PCIBus})
	assert.NotContains(t, devs[0].Extra, "faults")

	dev, err := cuda.Open(ctx, 1)
	require.NoError(t, err)
	assert.Equal(t, "NVIDIA H200", dev.Info().Name)
	assert.Equal(t, 1, dev.Info().Ordinal)
	assert.Equal(t, devs[1].UUID, dev.Info().UUID, "Probe and Open agree")
	require.NoError(t, dev.Close())
}

func TestSimulateErrors(t *testing.T) {
	s := sim.Driver{}
	tests := []struct {
		backend string
		presets []string
		want    string
	}{
		{"", nil, "empty backend name"},
		{"directx", nil, `"directx"`},
		{"cuda", []string{"h100", "quadro"}, `"quadro"`},
		{"vulkan", []string{"rtx4090+lose@"}, `"lose@"`},
	}
	for _, tt := range tests {
		t.Run(tt.backend+tt.want, func(t *testing.T) {
			_, err := s.Simulate(tt.backend, tt.presets)
			require.Error(t, err)
			assert.True(t, errors.Is(err, errors.InvalidArgument), "%v", err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

func TestNewDriver(t *testing.T) {
	ctx := context.Background()

	t.Run("default preset", func(t *testing.T) {
		drv, err := sim.NewDriver("metal", nil, sim.Faults{})
		require.NoError(t, err)
		dev := openDriver(t, drv, 0)
		assert.Equal(t, "Apple M2 Max", dev.Info().Name)
		assert.Equal(t, "metal:0", dev.Name())
	})

	t.Run("second device", func(t *testing.T) {
		drv, err := sim.NewDriver("cuda", []string{"h100", "a100"}, sim.Faults{})
		require.NoError(t, err)
		dev := openDriver(t, drv, 1)
		assert.Equal(t, "NVIDIA A100-SXM4-80GB", dev.Info().Name)
	})

	t.Run("spec faults win over the driver's", func(t *testing.T) {
		drv, err := sim.NewDriver("cuda", []string{"h100+lose@5", "t4"}, sim.Faults{LoseAfterLaunches: 1, FailCompile: true})
		require.NoError(t, err)
		devs, err := drv.Probe(ctx)
		require.NoError(t, err)
		assert.Equal(t, "+nocompile+lose@5", devs[0].Extra["faults"])
		assert.Equal(t, "+nocompile+lose@1", devs[1].Extra["faults"])
	})

	t.Run("unavailable", func(t *testing.T) {
		drv, err := sim.NewDriver("vulkan", nil, sim.Faults{Unavailable: "no ICD found"})
		require.NoError(t, err)
		_, err = gpu.OpenDriver(ctx, drv, 0)
		require.Error(t, err)
		assert.True(t, errors.Is(err, errors.Unavailable), "%v", err)
		assert.Contains(t, err.Error(), "no ICD found")
		_, err = drv.Open(ctx, 0)
		assert.True(t, errors.Is(err, errors.Unavailable), "%v", err)
	})

	t.Run("bad ordinal", func(t *testing.T) {
		drv, err := sim.NewDriver("cuda", nil, sim.Faults{})
		require.NoError(t, err)
		_, err = drv.Open(ctx, 3)
		require.Error(t, err)
		assert.True(t, errors.Is(err, errors.InvalidArgument), "%v", err)
		assert.Equal(t, "CUDA_ERROR_INVALID_DEVICE", nativeError(t, err).Name)
		_, err = gpu.OpenDriver(ctx, drv, 1)
		assert.True(t, errors.Is(err, errors.InvalidArgument), "%v", err)
	})

	t.Run("cancelled context", func(t *testing.T) {
		drv, err := sim.NewDriver("cuda", nil, sim.Faults{})
		require.NoError(t, err)
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		_, err = drv.Probe(cctx)
		assert.True(t, errors.Is(err, errors.Timeout), "%v", err)
		_, err = drv.Open(cctx, 0)
		assert.True(t, errors.Is(err, errors.Timeout), "%v", err)
	})

	bad := []struct {
		name    string
		backend string
		presets []string
		f       sim.Faults
	}{
		{"negative count", "cuda", nil, sim.Faults{FailAllocAt: -1}},
		{"negative limit", "cuda", nil, sim.Faults{MemoryLimit: -5}},
		{"negative launches", "cuda", nil, sim.Faults{LoseAfterLaunches: -1}},
		{"unknown preset", "cuda", []string{"rtx5090"}, sim.Faults{}},
		{"unknown backend", "cpu", nil, sim.Faults{}},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			_, err := sim.NewDriver(tt.backend, tt.presets, tt.f)
			require.Error(t, err)
			assert.True(t, errors.Is(err, errors.InvalidArgument), "%v", err)
		})
	}
}

// TestConcurrentUse runs kernels on many streams of one simulated device at
// once, for the race detector.
func TestConcurrentUse(t *testing.T) {
	cleanEnv(t)
	dev := open(t, gpu.WithFake("cuda:h100+memlimit=64MiB"))
	backendtest.RunConcurrently(t, 8, func(int) error { return saxpyOn(dev, 4096) })
	assert.Equal(t, int64(8), dev.Stats().KernelLaunches)
}
