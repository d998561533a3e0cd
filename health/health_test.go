package health_test

import (
	"runtime"
	"strconv"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/errors"
	"github.com/anygpu/gpu/health"
	"github.com/anygpu/gpu/internal/fakenvml"
)

// useFake builds the fake NVML and points ANYGPU_NVML_LIBRARY at it, or
// skips the test where it cannot be built (no C compiler, not Linux).
func useFake(t *testing.T) {
	t.Helper()
	lib, err := fakenvml.Build(t.TempDir())
	if err != nil {
		t.Skipf("fake NVML: %v", err)
	}
	t.Setenv(health.EnvLibrary, lib)
}

func TestOpenFake(t *testing.T) {
	useFake(t)
	m, err := health.Open()
	require.NoError(t, err)
	defer m.Close()
	assert.Equal(t, "580.95.05", m.DriverVersion())
	assert.Contains(t, m.Library(), "libnvidia-ml.so.1")
	devs := m.Devices()
	require.Len(t, devs, len(fakenvml.Devices))
	for i, want := range fakenvml.Devices {
		t.Run(strconv.Itoa(i), func(t *testing.T) {
			assert.Equal(t, health.Device{Index: i, Name: want.Name, UUID: want.UUID, PCIBusID: want.PCIBusID}, devs[i])
			s, err := m.Sample(i)
			require.NoError(t, err)
			assert.Equal(t, devs[i], s.Device)
			assert.False(t, s.Time.IsZero())
			assert.Equal(t, want.GPUPercent, s.GPUPercent)
			assert.Equal(t, want.MemoryPercent, s.MemoryPercent)
			assert.Equal(t, want.MemoryUsed, s.MemoryUsed)
			assert.Equal(t, want.MemoryReserved, s.MemoryReserved)
			assert.Equal(t, want.MemoryTotal, s.MemoryTotal)
			assert.Equal(t, want.TemperatureC, s.TemperatureC)
			assert.InDelta(t, want.PowerW, s.PowerW, 1e-9)
			assert.InDelta(t, want.PowerLimitW, s.PowerLimitW, 1e-9)
			assert.Equal(t, want.SMClockMHz, s.SMClockMHz)
			assert.Equal(t, want.MemoryClockMHz, s.MemoryClockMHz)
			assert.Equal(t, want.SMClockMaxMHz, s.SMClockMaxMHz)
			assert.Equal(t, want.MemoryClockMaxMHz, s.MemoryClockMaxMHz)
			assert.Equal(t, health.ThrottleReasons(want.Throttle), s.Throttle)
			assert.Equal(t, want.ECCCorrected, s.ECCCorrected)
			assert.Equal(t, want.ECCUncorrected, s.ECCUncorrected)
			if want.ECC {
				assert.Empty(t, s.Missing)
				assert.True(t, s.Has(health.MetricECC))
				return
			}
			require.Len(t, s.Missing, 1)
			assert.False(t, s.Has(health.MetricECC))
			err = s.Missing[health.MetricECC]
			assert.ErrorIs(t, err, errors.NotSupported)
			assert.Contains(t, err.Error(), "NVML_ERROR_NOT_SUPPORTED")
		})
	}
}

func TestSampleErrors(t *testing.T) {
	useFake(t)
	m, err := health.Open()
	require.NoError(t, err)
	for _, i := range []int{-1, 2, 1 << 30} {
		_, err := m.Sample(i)
		assert.ErrorIs(t, err, errors.InvalidArgument, "index %d", i)
	}
	require.NoError(t, m.Close())
	require.NoError(t, m.Close(), "Close is idempotent")
	_, err = m.Sample(0)
	assert.ErrorIs(t, err, errors.Closed)

	var nilMon *health.Monitor
	_, err = nilMon.Sample(0)
	assert.ErrorIs(t, err, errors.InvalidArgument)
	assert.NoError(t, nilMon.Close())
	assert.Nil(t, nilMon.Devices())
	assert.Empty(t, nilMon.DriverVersion())
	assert.Empty(t, nilMon.Library())
	_, ok := nilMon.Find(backend.DeviceInfo{UUID: "GPU-x"})
	assert.False(t, ok)
}

func TestOpenInitFails(t *testing.T) {
	useFake(t)
	t.Setenv(fakenvml.EnvInit, "9") // NVML_ERROR_DRIVER_NOT_LOADED
	_, err := health.Open()
	require.Error(t, err)
	assert.ErrorIs(t, err, errors.Unavailable)
	assert.Contains(t, err.Error(), "NVML_ERROR_DRIVER_NOT_LOADED")
}

func TestOpenMissingLibrary(t *testing.T) {
	t.Setenv(health.EnvLibrary, t.TempDir()+"/libnvidia-ml.so.1")
	_, err := health.Open()
	require.Error(t, err)
	assert.ErrorIs(t, err, errors.Unavailable)
	assert.Contains(t, err.Error(), "nvml: load: no usable NVML library")
	if runtime.GOOS == "linux" {
		assert.Contains(t, err.Error(), health.EnvLibrary+" must name an NVML library")
	}
}

func TestConcurrentSamples(t *testing.T) {
	useFake(t)
	m, err := health.Open()
	require.NoError(t, err)
	defer m.Close()
	var wg sync.WaitGroup
	for g := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 50 {
				s, err := m.Sample(g % 2)
				if !assert.NoError(t, err) || !assert.Equal(t, fakenvml.Devices[g%2].TemperatureC, s.TemperatureC) {
					return
				}
			}
		}()
	}
	wg.Wait()
}

func TestFind(t *testing.T) {
	useFake(t)
	m, err := health.Open()
	require.NoError(t, err)
	defer m.Close()
	h200 := fakenvml.Devices[0]
	tests := []struct {
		name  string
		info  backend.DeviceInfo
		index int // -1: not found
	}{
		{"cuda uuid", backend.DeviceInfo{Backend: "cuda", UUID: h200.UUID}, 0},
		{"vulkan bare uuid, other case", backend.DeviceInfo{Backend: "vulkan", UUID: "11111111-2222-3333-4444-555555555555"}, 1},
		{"cuda pci bus", backend.DeviceInfo{Backend: "cuda", PCIBus: "0000:86:00.0"}, 1},
		{"uuid wins over pci", backend.DeviceInfo{UUID: h200.UUID, PCIBus: "0000:86:00.0"}, 0},
		{"unknown uuid falls back to pci", backend.DeviceInfo{UUID: "GPU-ffffffff-ffff-ffff-ffff-ffffffffffff", PCIBus: "0000:3b:00.0"}, 0},
		{"neither", backend.DeviceInfo{Backend: "opengl", Ordinal: 0}, -1},
		{"other bus", backend.DeviceInfo{PCIBus: "0000:01:00.0"}, -1},
		{"malformed bus", backend.DeviceInfo{PCIBus: "3b:00"}, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, ok := m.Find(tt.info)
			if tt.index < 0 {
				assert.False(t, ok)
				return
			}
			require.True(t, ok)
			assert.Equal(t, tt.index, d.Index)
		})
	}
}

func TestThrottleReasons(t *testing.T) {
	tests := []struct {
		r    health.ThrottleReasons
		want string
	}{
		{0, "none"},
		{health.ThrottleSWPowerCap, "sw_power_cap"},
		{health.ThrottleGPUIdle | health.ThrottleHWThermal, "gpu_idle,hw_thermal_slowdown"},
		{health.ThrottleDisplayClocks | 1<<12, "display_clock_setting,0x1000"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, tt.r.String())
		b, err := tt.r.MarshalText()
		require.NoError(t, err)
		assert.Equal(t, tt.want, string(b))
	}
}

func TestReturnCodes(t *testing.T) {
	codes := health.ReturnCodes()
	require.NotEmpty(t, codes)
	tests := []struct {
		value int64
		name  string
		cat   errors.Category
	}{
		{0, "NVML_SUCCESS", errors.None},
		{3, "NVML_ERROR_NOT_SUPPORTED", errors.NotSupported},
		{9, "NVML_ERROR_DRIVER_NOT_LOADED", errors.Unavailable},
		{13, "NVML_ERROR_FUNCTION_NOT_FOUND", errors.NotSupported},
		{15, "NVML_ERROR_GPU_IS_LOST", errors.DeviceLost},
		{18, "NVML_ERROR_LIB_RM_VERSION_MISMATCH", errors.Unavailable},
		{999, "NVML_ERROR_UNKNOWN", errors.Internal},
	}
	for _, tt := range tests {
		c, ok := health.ReturnCode(tt.value)
		require.True(t, ok, tt.name)
		assert.Equal(t, tt.name, c.Name)
		assert.Equal(t, tt.cat, c.Category, tt.name)
	}
	for _, c := range codes {
		assert.NotEmpty(t, c.Hint, c.Name)
		assert.NotEmpty(t, c.Msg, c.Name)
	}
	_, ok := health.ReturnCode(12345)
	assert.False(t, ok)
}
