package sim_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/backend/sim"
	"github.com/anygpu/gpu/errors"
)

const (
	kib = 1 << 10
	mib = 1 << 20
)

// hopperLimits are the per-SM limits every compute capability 9.0 GPU
// reports (cuDeviceGetAttribute on the project's H200).
func hopperLimits(t *testing.T, d backend.DeviceInfo) {
	t.Helper()
	assert.Equal(t, 9, d.ComputeMajor)
	assert.Equal(t, 0, d.ComputeMinor)
	assert.Equal(t, 132, d.Units)
	assert.Equal(t, 32, d.WarpSize)
	assert.Equal(t, 1024, d.MaxThreadsPerBlock)
	assert.Equal(t, backend.Dim3{X: 1024, Y: 1024, Z: 64}, d.MaxBlockDim)
	assert.Equal(t, backend.Dim3{X: 1<<31 - 1, Y: 65535, Z: 65535}, d.MaxGridDim)
	assert.Equal(t, 65536, d.RegistersPerBlock)
	assert.Equal(t, 65536, d.RegistersPerUnit)
	assert.Equal(t, 48*kib, d.SharedMemPerBlock)
	assert.Equal(t, 227*kib, d.SharedMemPerBlockOptin)
	assert.Equal(t, 228*kib, d.SharedMemPerUnit)
	assert.Equal(t, 1*kib, d.ReservedSharedPerBlock)
	assert.Equal(t, 2048, d.MaxThreadsPerUnit)
	assert.Equal(t, 32, d.MaxBlocksPerUnit)
	assert.Equal(t, 1980, d.ClockMHz)
	assert.Equal(t, 3, d.AsyncEngines)
	assert.True(t, d.ECC)
	assert.True(t, d.FP16 && d.BF16 && d.FP8 && d.FP64, "FP16, BF16, FP8 and FP64")
	assert.True(t, d.UnifiedAddressing)
	assert.True(t, d.ConcurrentKernels)
}

func TestPresetValues(t *testing.T) {
	tests := []struct {
		backend, preset string
		check           func(t *testing.T, d backend.DeviceInfo)
	}{
		{"cuda", "h100", func(t *testing.T, d backend.DeviceInfo) {
			assert.Equal(t, "NVIDIA H100 80GB HBM3", d.Name)
			hopperLimits(t, d)
			assert.Equal(t, int64(85017755648), d.MemoryBytes)
			assert.InDelta(t, float64(80<<30), float64(d.MemoryBytes), float64(2<<30), "about 80 GiB")
			assert.Equal(t, int64(50*mib), d.L2CacheBytes)
			assert.Equal(t, 5120, d.MemoryBusBits)
			assert.Equal(t, 2619, d.MemoryClockMHz)
			assert.InDelta(t, 3352, d.MemoryBandwidthGBps, 1, "HBM3 at 3.35 TB/s")
		}},
		{"cuda", "h200", func(t *testing.T, d backend.DeviceInfo) {
			assert.Equal(t, "NVIDIA H200", d.Name)
			hopperLimits(t, d)
			assert.Equal(t, int64(150109880320), d.MemoryBytes, "cuDeviceTotalMem on the H200")
			assert.Equal(t, int64(60*mib), d.L2CacheBytes)
			assert.Equal(t, 6016, d.MemoryBusBits)
			assert.InDelta(t, 4800, d.MemoryBandwidthGBps, 20, "HBM3e at 4.8 TB/s")
		}},
		{"cuda", "a100", func(t *testing.T, d backend.DeviceInfo) {
			assert.Equal(t, "NVIDIA A100-SXM4-80GB", d.Name)
			assert.Equal(t, [2]int{8, 0}, [2]int{d.ComputeMajor, d.ComputeMinor})
			assert.Equal(t, 108, d.Units)
			assert.Equal(t, int64(40*mib), d.L2CacheBytes)
			assert.Equal(t, 164*kib, d.SharedMemPerUnit)
			assert.Equal(t, 163*kib, d.SharedMemPerBlockOptin)
			assert.Equal(t, 2048, d.MaxThreadsPerUnit)
			assert.InDelta(t, 2039, d.MemoryBandwidthGBps, 1)
			assert.True(t, d.BF16)
			assert.False(t, d.FP8, "Ampere has no FP8")
		}},
		{"cuda", "rtx4090", func(t *testing.T, d backend.DeviceInfo) {
			assert.Equal(t, "NVIDIA GeForce RTX 4090", d.Name)
			assert.Equal(t, [2]int{8, 9}, [2]int{d.ComputeMajor, d.ComputeMinor})
			assert.Equal(t, 128, d.Units)
			assert.InDelta(t, float64(24<<30), float64(d.MemoryBytes), float64(1<<30), "24 GB")
			assert.Equal(t, 1536, d.MaxThreadsPerUnit)
			assert.Equal(t, 24, d.MaxBlocksPerUnit)
			assert.Equal(t, 100*kib, d.SharedMemPerUnit)
			assert.InDelta(t, 1008, d.MemoryBandwidthGBps, 1)
			assert.False(t, d.ECC)
		}},
		{"cuda", "t4", func(t *testing.T, d backend.DeviceInfo) {
			assert.Equal(t, "Tesla T4", d.Name)
			assert.Equal(t, [2]int{7, 5}, [2]int{d.ComputeMajor, d.ComputeMinor})
			assert.Equal(t, 40, d.Units)
			assert.Equal(t, 1024, d.MaxThreadsPerUnit)
			assert.Equal(t, 16, d.MaxBlocksPerUnit)
			assert.Equal(t, 0, d.ReservedSharedPerBlock)
			assert.InDelta(t, 320, d.MemoryBandwidthGBps, 1)
			assert.False(t, d.BF16, "Turing has no BF16")
		}},
		{"cuda", "l4", func(t *testing.T, d backend.DeviceInfo) {
			assert.Equal(t, "NVIDIA L4", d.Name)
			assert.Equal(t, [2]int{8, 9}, [2]int{d.ComputeMajor, d.ComputeMinor})
			assert.Equal(t, 58, d.Units)
			assert.Equal(t, int64(48*mib), d.L2CacheBytes)
			assert.InDelta(t, 300, d.MemoryBandwidthGBps, 1)
		}},
		{"vulkan", "rx7900xtx", func(t *testing.T, d backend.DeviceInfo) {
			assert.Equal(t, "AMD", d.Vendor)
			assert.Equal(t, 64, d.WarpSize, "RADV's subgroup size")
			assert.Equal(t, backend.TypeDiscreteGPU, d.Type)
		}},
		{"vulkan", "arc-a770", func(t *testing.T, d backend.DeviceInfo) {
			assert.Equal(t, "Intel", d.Vendor)
			assert.False(t, d.FP64)
		}},
		{"vulkan", "lavapipe", func(t *testing.T, d backend.DeviceInfo) {
			assert.Equal(t, backend.TypeSoftware, d.Type)
			assert.Positive(t, d.Units, "host cores")
			assert.Equal(t, int64(128*mib), d.MaxBufferBytes)
		}},
		{"opengl", "llvmpipe", func(t *testing.T, d backend.DeviceInfo) {
			assert.Equal(t, backend.TypeSoftware, d.Type)
		}},
		{"webgpu", "lavapipe", func(t *testing.T, d backend.DeviceInfo) {
			assert.Equal(t, backend.TypeSoftware, d.Type)
		}},
		{"metal", "m2-max", func(t *testing.T, d backend.DeviceInfo) {
			assert.Equal(t, "Apple M2 Max", d.Name)
			assert.Equal(t, backend.TypeIntegratedGPU, d.Type)
			assert.True(t, d.UnifiedMemory)
			assert.Equal(t, 32*kib, d.SharedMemPerBlock)
		}},
		{"metal", "m3-pro", func(t *testing.T, d backend.DeviceInfo) {
			assert.Equal(t, "Apple M3 Pro", d.Name)
			assert.True(t, d.UnifiedMemory)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.backend+"/"+tt.preset, func(t *testing.T) {
			d, err := sim.PresetInfo(tt.backend, tt.preset)
			require.NoError(t, err)
			assert.Equal(t, tt.backend, d.Backend)
			tt.check(t, d)
		})
	}
}

// TestEveryPreset checks what every preset must have.
func TestEveryPreset(t *testing.T) {
	backends := sim.Backends()
	assert.Equal(t, []string{"cuda", "metal", "opengl", "vulkan", "webgpu"}, backends)
	for _, be := range backends {
		presets := sim.Presets(be)
		require.NotEmpty(t, presets, be)
		assert.Contains(t, presets, sim.DefaultPreset(be), "%s's default preset is one of its presets", be)
		for _, p := range presets {
			t.Run(be+"/"+p, func(t *testing.T) {
				d, err := sim.PresetInfo(be, p)
				require.NoError(t, err)
				assert.Equal(t, be, d.Backend)
				assert.NotEmpty(t, d.Name)
				assert.NotEmpty(t, d.Vendor)
				assert.Contains(t, []backend.DeviceType{backend.TypeDiscreteGPU, backend.TypeIntegratedGPU, backend.TypeSoftware}, d.Type)
				assert.Positive(t, d.MemoryBytes)
				assert.Positive(t, d.MaxThreadsPerBlock)
				assert.Positive(t, d.MaxBlockDim.X)
				assert.Positive(t, d.SharedMemPerBlock)
				assert.Equal(t, "true", d.Extra["simulated"])
				assert.Equal(t, p, d.Extra["preset"])
				assert.NotContains(t, d.Extra, "faults")
				assert.NotEmpty(t, d.UUID)
				assert.Equal(t, d.Type == backend.TypeDiscreteGPU, d.PCIBus != "", "PCI address of %q", d.PCIBus)
				if be == "cuda" {
					assert.Positive(t, d.ComputeMajor)
					assert.Positive(t, d.RegistersPerUnit)
					assert.Positive(t, d.MaxThreadsPerUnit)
					assert.Positive(t, d.MemoryBandwidthGBps)
				}
				if d.Type == backend.TypeSoftware || be == "metal" {
					assert.True(t, d.UnifiedMemory)
				}
			})
		}
	}
}

func TestPresetInfoIsACopy(t *testing.T) {
	a, err := sim.PresetInfo("cuda", "h100")
	require.NoError(t, err)
	a.Extra["preset"] = "changed"
	b, err := sim.PresetInfo("cuda", "")
	require.NoError(t, err)
	assert.Equal(t, "h100", b.Extra["preset"], "the default cuda preset, unaffected by the edit")
}

func TestPresetInfoErrors(t *testing.T) {
	tests := []struct {
		backend, preset string
		want            []string
	}{
		{"cuda", "h900", []string{`"h900"`, "a100", "h100", "t4"}},
		{"vulkan", "h100", []string{`"h100"`, "lavapipe", "rx7900xtx"}},
		{"cpu", "", []string{`"cpu"`, "cuda", "metal"}},
	}
	for _, tt := range tests {
		t.Run(tt.backend+"/"+tt.preset, func(t *testing.T) {
			_, err := sim.PresetInfo(tt.backend, tt.preset)
			require.Error(t, err)
			assert.True(t, errors.Is(err, errors.InvalidArgument), "%v", err)
			for _, w := range tt.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
	assert.Nil(t, sim.Presets("cpu"))
	assert.Equal(t, "", sim.DefaultPreset("cpu"))
	assert.Equal(t, "h100", sim.DefaultPreset("cuda"))
	assert.Equal(t, "rtx4090", sim.DefaultPreset("vulkan"))
	assert.Equal(t, "m2-max", sim.DefaultPreset("metal"))
}
