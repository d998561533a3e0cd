package cuda

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/backend/cuda/internal/cu"
)

// info returns (and caches) the DeviceInfo of ordinal i.
func (st *driverState) info(i int) (backend.DeviceInfo, error) {
	o := st.ordinals[i]
	o.infoOnce.Do(func() {
		o.info, o.infoErr = st.queryInfo(i, o.dev)
		if o.infoErr == nil {
			o.info.Peers = st.peersOf(i) // peer.go
		}
	})
	return o.info, o.infoErr
}

// queryInfo reads a device's attributes; no context is needed.
func (st *driverState) queryInfo(ordinal int, d cu.Device) (backend.DeviceInfo, error) {
	lib := st.lib
	raw := rawInfo{driverAPI: st.version, kernelDriver: st.kernelDriver, attrs: map[cu.Attribute]int{}}
	var r cu.Result
	if raw.name, r = lib.DeviceGetName(d); r != cu.Success {
		return backend.DeviceInfo{}, unavailable(r.Err("cuDeviceGetName"), lib.Path)
	}
	if raw.totalMem, r = lib.DeviceTotalMem(d); r != cu.Success {
		return backend.DeviceInfo{}, unavailable(r.Err("cuDeviceTotalMem"), lib.Path)
	}
	if u, r := lib.DeviceGetUUID(d); r == cu.Success {
		raw.uuid, raw.hasUUID = u, true
	}
	if p, r := lib.DeviceGetPCIBusID(d); r == cu.Success {
		raw.pci = p
	}
	for _, a := range cu.InfoAttributes {
		// Attributes newer than the driver fail with CUDA_ERROR_INVALID_VALUE:
		// they stay unknown (zero).
		if v, r := lib.DeviceGetAttribute(a, d); r == cu.Success {
			raw.attrs[a] = v
		}
	}
	return buildInfo(ordinal, raw), nil
}

// kernelDriverVersion reads the NVIDIA kernel module's version on Linux
// ("580.159.04"); "" elsewhere.
func kernelDriverVersion() string {
	b, err := os.ReadFile("/proc/driver/nvidia/version")
	if err != nil {
		return ""
	}
	return parseKernelDriverVersion(string(b))
}

// parseKernelDriverVersion finds the version in the first line of
// /proc/driver/nvidia/version: "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.159.04  Tue ...".
func parseKernelDriverVersion(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	if _, rest, ok := strings.Cut(line, "Kernel Module"); ok {
		line = rest
	}
	for _, f := range strings.Fields(line) {
		if strings.Contains(f, ".") && f[0] >= '0' && f[0] <= '9' {
			return f
		}
	}
	return ""
}

// versionString formats a cuDriverGetVersion value: 13000 -> "13.0".
func versionString(v int) string { return fmt.Sprintf("%d.%d", v/1000, v%1000/10) }

// rawInfo is what the driver reports about one device.
type rawInfo struct {
	name         string
	uuid         [16]byte
	hasUUID      bool
	pci          string
	totalMem     int64
	driverAPI    int    // cuDriverGetVersion
	kernelDriver string // kernel module version, "" when unknown
	attrs        map[cu.Attribute]int
}

// eventResolutionNs is the resolution of CUDA event timing (about half a
// microsecond, per the cuEventElapsedTime documentation).
const eventResolutionNs = 500

// buildInfo derives a DeviceInfo from the driver's answers.
func buildInfo(ordinal int, r rawInfo) backend.DeviceInfo {
	a := func(x cu.Attribute) int { return r.attrs[x] }
	major, minor := a(cu.AttrComputeCapabilityMajor), a(cu.AttrComputeCapabilityMinor)
	info := backend.DeviceInfo{
		Backend:        Name,
		Ordinal:        ordinal,
		Name:           r.name,
		Vendor:         "NVIDIA",
		Type:           backend.TypeDiscreteGPU,
		PCIBus:         r.pci,
		DriverVersion:  r.kernelDriver,
		APIVersion:     versionString(r.driverAPI),
		ComputeMajor:   major,
		ComputeMinor:   minor,
		Units:          a(cu.AttrMultiprocessorCount),
		ClockMHz:       a(cu.AttrClockRate) / 1000,
		MemoryBytes:    r.totalMem,
		MemoryClockMHz: a(cu.AttrMemoryClockRate) / 1000,
		MemoryBusBits:  a(cu.AttrGlobalMemoryBusWidth),
		L2CacheBytes:   int64(a(cu.AttrL2CacheSize)),

		MaxThreadsPerBlock:     a(cu.AttrMaxThreadsPerBlock),
		MaxBlockDim:            backend.Dim3{X: a(cu.AttrMaxBlockDimX), Y: a(cu.AttrMaxBlockDimY), Z: a(cu.AttrMaxBlockDimZ)},
		MaxGridDim:             backend.Dim3{X: a(cu.AttrMaxGridDimX), Y: a(cu.AttrMaxGridDimY), Z: a(cu.AttrMaxGridDimZ)},
		MaxThreadsPerUnit:      a(cu.AttrMaxThreadsPerMultiprocessor),
		MaxBlocksPerUnit:       a(cu.AttrMaxBlocksPerMultiprocessor),
		WarpSize:               a(cu.AttrWarpSize),
		RegistersPerBlock:      a(cu.AttrMaxRegistersPerBlock),
		RegistersPerUnit:       a(cu.AttrMaxRegistersPerSM),
		SharedMemPerBlock:      a(cu.AttrMaxSharedMemoryPerBlock),
		SharedMemPerBlockOptin: a(cu.AttrMaxSharedMemoryPerBlockOptin),
		SharedMemPerUnit:       a(cu.AttrMaxSharedMemoryPerSM),
		ReservedSharedPerBlock: a(cu.AttrReservedSharedMemoryPerBlock),

		AsyncEngines:      a(cu.AttrAsyncEngineCount),
		ECC:               a(cu.AttrECCEnabled) != 0,
		UnifiedAddressing: a(cu.AttrUnifiedAddressing) != 0,
		UnifiedMemory:     a(cu.AttrIntegrated) != 0,
		ConcurrentKernels: a(cu.AttrConcurrentKernels) != 0,
		FP16:              atLeast(major, minor, 5, 3),
		BF16:              atLeast(major, minor, 8, 0),
		FP8:               atLeast(major, minor, 8, 9),
		FP64:              true,
		TimestampPeriodNs: eventResolutionNs,
	}
	if a(cu.AttrIntegrated) != 0 {
		info.Type = backend.TypeIntegratedGPU
	}
	// Theoretical peak of a double-data-rate memory: 2 × clock × bus width.
	info.MemoryBandwidthGBps = 2 * float64(a(cu.AttrMemoryClockRate)) * 1e3 * float64(info.MemoryBusBits) / 8 / 1e9
	if r.hasUUID {
		info.UUID = formatUUID(r.uuid)
	}
	if major > 0 {
		info.Features = append(info.Features, fmt.Sprintf("sm_%d%d", major, minor))
	}
	for _, f := range []struct {
		attr cu.Attribute
		name string
	}{
		{cu.AttrManagedMemory, "managed_memory"},
		{cu.AttrConcurrentManagedAccess, "concurrent_managed_access"},
		{cu.AttrPageableMemoryAccess, "pageable_memory_access"},
		{cu.AttrCooperativeLaunch, "cooperative_launch"},
		{cu.AttrClusterLaunch, "cluster_launch"},
		{cu.AttrMemoryPoolsSupported, "memory_pools"},
		{cu.AttrStreamPrioritiesSupported, "stream_priorities"},
		{cu.AttrCanMapHostMemory, "map_host_memory"},
	} {
		if a(f.attr) != 0 {
			info.Features = append(info.Features, f.name)
		}
	}
	info.Extra = map[string]string{
		"compute_capability":    fmt.Sprintf("%d.%d", major, minor),
		"compute_mode":          computeModes[a(cu.AttrComputeMode)],
		"total_constant_memory": strconv.Itoa(a(cu.AttrTotalConstantMemory)),
		"max_persisting_l2":     strconv.Itoa(a(cu.AttrMaxPersistingL2CacheSize)),
		"kernel_exec_timeout":   strconv.FormatBool(a(cu.AttrKernelExecTimeout) != 0),
		"multi_gpu_board":       strconv.FormatBool(a(cu.AttrMultiGPUBoard) != 0),
		"tcc_driver":            strconv.FormatBool(a(cu.AttrTCCDriver) != 0),
	}
	if info.Extra["compute_mode"] == "" {
		info.Extra["compute_mode"] = strconv.Itoa(a(cu.AttrComputeMode))
	}
	if r.driverAPI > 0 {
		info.Extra["cuda_driver_api"] = versionString(r.driverAPI)
	}
	return info
}

var computeModes = map[int]string{0: "default", 2: "prohibited", 3: "exclusive process"}

func atLeast(major, minor, wantMajor, wantMinor int) bool {
	return major > wantMajor || (major == wantMajor && minor >= wantMinor)
}

// formatUUID writes a CUuuid the way nvidia-smi shows it:
// GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx.
func formatUUID(u [16]byte) string {
	return fmt.Sprintf("GPU-%x-%x-%x-%x-%x", u[0:4], u[4:6], u[6:8], u[8:10], u[10:16])
}
