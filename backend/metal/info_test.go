package metal

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu/backend"
)

// m2Max is what an M2 Max reports (its values as Apple documents them and
// the simulator presets use).
func m2Max() rawDevice {
	return rawDevice{
		Name: "Apple M2 Max", RegistryID: 0x100000a2b, IsDefault: true,
		WorkingSet: 51539607552, CurrentAllocated: 1 << 30, UnifiedMemory: true,
		MaxThreadsPerThreadgroup: [3]uint64{1024, 1024, 1024}, MaxThreadgroupMemory: 32768,
		MaxBufferLength: 36507222016, Location: 0, Architecture: "applegpu_g14s",
		Families:  []int64{1001, 1002, 1003, 1004, 1005, 1006, 1007, 1008, 2002, 3001, 3002, 3003, 5001},
		CoreCount: 38,
	}
}

func TestDeviceInfoAppleSilicon(t *testing.T) {
	info := deviceInfo(m2Max(), 0, StorageShared)
	assert.Equal(t, Name, info.Backend)
	assert.Equal(t, "Apple M2 Max", info.Name)
	assert.Equal(t, "Apple", info.Vendor)
	assert.Equal(t, backend.TypeIntegratedGPU, info.Type)
	assert.Equal(t, "Metal 3", info.APIVersion)
	assert.Equal(t, 38, info.Units)
	assert.Equal(t, int64(51539607552), info.MemoryBytes, "the recommended working set is the device's memory")
	assert.Equal(t, 1024, info.MaxThreadsPerBlock)
	assert.Equal(t, backend.Dim3{X: 1024, Y: 1024, Z: 1024}, info.MaxBlockDim)
	assert.Equal(t, backend.Dim3{X: math.MaxInt32, Y: math.MaxInt32, Z: math.MaxInt32}, info.MaxGridDim)
	assert.Equal(t, 32, info.WarpSize, "Apple GPUs have 32-wide SIMD groups")
	assert.Equal(t, 32768, info.SharedMemPerBlock)
	assert.Equal(t, int64(36507222016), info.MaxBufferBytes)
	assert.True(t, info.UnifiedMemory)
	assert.True(t, info.UnifiedAddressing)
	assert.True(t, info.FP16)
	assert.False(t, info.FP64, "MSL has no double")
	assert.Contains(t, info.Features, "apple8")
	assert.Contains(t, info.Features, "mac2")
	assert.Contains(t, info.Features, "metal3")
	assert.Contains(t, info.Features, "simdgroup_reduction")
	assert.Equal(t, "apple8", info.Extra["gpu_family"])
	assert.Equal(t, "A15, A16, M2", info.Extra["gpu_family_chips"])
	assert.Equal(t, "0x100000a2b", info.Extra["registry_id"])
	assert.Equal(t, "shared", info.Extra["storage"])
	assert.Equal(t, "built-in", info.Extra["location"])
	assert.Equal(t, "applegpu_g14s", info.Extra["architecture"])
	assert.Equal(t, "true", info.Extra["default"])
}

func TestDeviceInfoDiscreteAMD(t *testing.T) {
	r := rawDevice{
		Name: "AMD Radeon Pro 5500M", RegistryID: 0x1000005f7, WorkingSet: 8 << 30,
		MaxThreadsPerThreadgroup: [3]uint64{1024, 1024, 1024}, MaxThreadgroupMemory: 65536,
		MaxBufferLength: 3 << 30, Location: 0, MaxTransferRate: 15754000000,
		Families: []int64{2001, 2002, 3001, 3002, 3003, 5001},
	}
	info := deviceInfo(r, 1, StoragePrivate)
	assert.Equal(t, 1, info.Ordinal)
	assert.Equal(t, "AMD", info.Vendor)
	assert.Equal(t, backend.TypeDiscreteGPU, info.Type)
	assert.Equal(t, 0, info.WarpSize, "AMD GPUs report their SIMD width per pipeline only")
	assert.Equal(t, 1, info.Units, "no core count in the IORegistry: one unit, marked unknown")
	assert.Contains(t, info.Extra["units"], "unknown")
	assert.False(t, info.UnifiedMemory)
	assert.Contains(t, info.Features, "simdgroup_reduction", "Mac2 has SIMD-group reductions")
	assert.Equal(t, "private", info.Extra["storage"])
	assert.Equal(t, "15.8 GB/s", info.Extra["max_transfer_rate"])
	_, ok := info.Extra["default"]
	assert.False(t, ok)

	intel := rawDevice{Name: "Intel(R) UHD Graphics 630", UnifiedMemory: true, LowPower: true, Families: []int64{2001, 2002}}
	ii := deviceInfo(intel, 2, StorageShared)
	assert.Equal(t, "Intel", ii.Vendor)
	assert.Equal(t, backend.TypeIntegratedGPU, ii.Type)
	assert.Equal(t, "Metal 2", ii.APIVersion)
	assert.Equal(t, "true", ii.Extra["low_power"])

	egpu := rawDevice{Name: "AMD Radeon RX 6800", Removable: true, Location: 2, Families: []int64{2002}}
	ei := deviceInfo(egpu, 3, StoragePrivate)
	assert.Equal(t, backend.TypeDiscreteGPU, ei.Type)
	assert.Equal(t, "external", ei.Extra["location"])
	assert.Equal(t, "true", ei.Extra["removable"])
}

func TestFamilyFeatures(t *testing.T) {
	for _, tc := range []struct {
		name     string
		families []int64
		api      string
		simd     int
		features []string
		absent   []string
	}{
		{"M1", []int64{1007, 2002, 3003, 5001}, "Metal 3", 32, []string{"apple7", "mac2", "common3", "metal3", "simdgroup_reduction", "simdgroup_matrix"}, nil},
		{"M5", []int64{1010, 1009, 2002, 5001, 5002}, "Metal 4", 32, []string{"apple9", "apple10", "metal4"}, nil},
		{"A13", []int64{1006, 3003, 5001}, "Metal 3", 32, []string{"apple6"}, []string{"simdgroup_reduction"}},
		{"old Intel", []int64{2001}, "Metal 2", 0, []string{"mac1"}, []string{"simdgroup_reduction", "metal3"}},
		{"nothing", nil, "Metal 2", 0, nil, []string{"simdgroup_reduction"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := familyFeatures(tc.families)
			assert.Equal(t, tc.api, f.api)
			assert.Equal(t, tc.simd, f.simdWidth)
			for _, x := range tc.features {
				assert.Contains(t, f.list, x)
			}
			for _, x := range tc.absent {
				assert.NotContains(t, f.list, x)
			}
		})
	}
	assert.Equal(t, 10, familyFeatures([]int64{1010, 1007}).apple, "the highest Apple family counts")
	for _, f := range knownFamilies {
		assert.NotContains(t, familyName(f), "family", "every known family has a name: %d", f)
	}
	assert.Equal(t, "family9999", familyName(9999))
	assert.Len(t, knownFamilies, 10+2+3+2+2, "Apple1-10, Mac1-2, Common1-3, MacCatalyst1-2, Metal3-4")
}

func TestDeviceOrder(t *testing.T) {
	devs := []rawDevice{
		{Name: "default", RegistryID: 50, IsDefault: true},
		{Name: "c", RegistryID: 70},
		{Name: "a", RegistryID: 10},
		{Name: "default again", RegistryID: 50}, // the default, listed again by MTLCopyAllDevices
		{Name: "b", RegistryID: 30},
	}
	order := deviceOrder(devs)
	var names []string
	for _, i := range order {
		names = append(names, devs[i].Name)
	}
	assert.Equal(t, []string{"default", "a", "b", "c"}, names, "the default first, then by registryID, each once")

	noDefault := []rawDevice{{Name: "y", RegistryID: 2}, {Name: "x", RegistryID: 1}}
	order = deviceOrder(noDefault)
	require.Len(t, order, 2)
	assert.Equal(t, "x", noDefault[order[0]].Name, "without a default (no window server) the order is by registryID")
	assert.Empty(t, deviceOrder(nil))
}

func TestMemInfo(t *testing.T) {
	free, total := memInfo(48<<30, 6<<30)
	assert.Equal(t, int64(48<<30), total)
	assert.Equal(t, int64(42<<30), free)
	free, total = memInfo(8<<30, 9<<30)
	assert.Equal(t, int64(8<<30), total)
	assert.Zero(t, free, "more allocated than the working set: none free")
	_, total = memInfo(math.MaxUint64, 0)
	assert.Equal(t, int64(math.MaxInt64), total, "saturates")
	assert.Equal(t, math.MaxInt, clampInt(math.MaxUint64))
}

func TestVendor(t *testing.T) {
	for name, want := range map[string]string{
		"Apple M1": "Apple", "AMD Radeon Pro 5500M": "AMD", "Radeon Pro Vega 56": "AMD",
		"Intel(R) Iris(TM) Plus Graphics": "Intel", "NVIDIA GeForce GT 750M": "NVIDIA", "Paravirtual GPU": "",
	} {
		assert.Equal(t, want, vendorOf(name), name)
	}
}
