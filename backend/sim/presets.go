package sim

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/errors"
	"github.com/anygpu/gpu/internal/suggest"
)

// The preset table: what each simulated device reports, per backend.
//
// Values are what the real device reports through that backend's API where a
// report was found (cuDeviceGetAttribute / deviceQuery, vkGetPhysicalDevice*,
// Mesa's source for lavapipe and llvmpipe), else the vendor's published spec.
// A field the backend's API cannot report is left zero, as a real backend
// leaves it ("Fields a backend cannot know are zero"), except MemoryBytes,
// which every preset sets because the simulated device needs a capacity.
//
// Sources:
//   - h200: measured on the project's GPU machine (NVIDIA H200, driver
//     580.159.04, CUDA 13.0) with cuDeviceGetAttribute for every attribute and
//     cuDeviceTotalMem; the preset holds the measured values.
//   - h100, a100, rtx4090, t4, l4: the CUDA deviceQuery sample on those GPUs
//     (total memory, SMs, clocks, bus width, L2, copy engines, ECC), with the
//     per-SM limits of their compute capability from the technical
//     specifications table of the CUDA C++ Programming Guide: threads per SM
//     2048 (7.0, 8.0, 9.0), 1536 (8.6, 8.9), 1024 (7.5); blocks per SM 32,
//     24 for 8.9, 16 for 7.5 and 8.6; shared memory per SM 228 KiB for 9.0,
//     164 KiB for 8.0, 100 KiB for 8.6 and 8.9, 64 KiB for 7.5, all of which
//     a block may opt in to before 8.0, and 1 KiB less from 8.0 on (1 KiB is
//     reserved per block); 64 Ki registers per SM and per block throughout.
//   - MemoryBandwidthGBps = 2 × memory clock × bus width, as cudaDeviceProp
//     users compute it; it matches the published peak of each GPU.
//   - Vulkan: compute limits of the NVIDIA driver, and of Mesa's RADV, ANV and
//     lavapipe drivers (radv_physical_device.c, anv_physical_device.c,
//     lvp_device.c with llvmpipe's lp_screen.c compute caps).
//   - Metal: MTLDevice.recommendedMaxWorkingSetSize as Apple reports it for a
//     64 GB M2 Max and a 36 GB M3 Pro; Apple-silicon threadgroup limits.

// preset is one simulated device model of one backend.
type preset struct {
	name string
	// software marks CPU-executing drivers (lavapipe, llvmpipe): their units
	// and memory are the host's.
	software bool
	info     func() backend.DeviceInfo
}

// defaultPresets is the preset an empty name (ANYGPU_FAKE=cuda) stands for.
var defaultPresets = map[string]string{
	"cuda":   "h100",
	"vulkan": "rtx4090",
	"opengl": "rtx4090",
	"webgpu": "rtx4090",
	"metal":  "m2-max",
}

const (
	kib = 1 << 10
	mib = 1 << 20
	gib = 1 << 30
)

// ddrGBps is the theoretical peak bandwidth of a double-data-rate memory of
// clockMHz and busBits, in GB/s: 2 × clock × bus width / 8.
func ddrGBps(clockMHz, busBits int) float64 {
	return 2 * float64(clockMHz) * float64(busBits) / 8 / 1000
}

// The NVIDIA driver the CUDA, Vulkan and OpenGL presets report: the one on the
// project's GPU machine.
const (
	nvidiaDriver    = "580.159.04"
	nvidiaCUDA      = "13.0"    // cuDriverGetVersion 13000
	nvidiaVulkanAPI = "1.4.312" // vkGetPhysicalDeviceProperties.apiVersion
	mesaVersion     = "22.3.6"  // Mesa of the CI machines (lavapipe, llvmpipe)
	lavapipeAPI     = "1.3.230" // lavapipe's apiVersion in that Mesa
	llvmpipeName    = "llvmpipe (LLVM 15.0.6, 256 bits)"
	wgpuNative      = "29.0.1.1" // wgpu-native linked by the WebGPU backend
)

// cudaCommon holds what every CUDA GPU from compute capability 7.0 on
// reports alike.
func cudaCommon() backend.DeviceInfo {
	return backend.DeviceInfo{
		Vendor:             "NVIDIA",
		Type:               backend.TypeDiscreteGPU,
		DriverVersion:      nvidiaDriver,
		APIVersion:         nvidiaCUDA,
		MaxThreadsPerBlock: 1024,
		MaxBlockDim:        backend.Dim3{X: 1024, Y: 1024, Z: 64},
		MaxGridDim:         backend.Dim3{X: 1<<31 - 1, Y: 65535, Z: 65535},
		WarpSize:           32,
		RegistersPerBlock:  65536,
		RegistersPerUnit:   65536,
		SharedMemPerBlock:  48 * kib,
		UnifiedAddressing:  true,
		ConcurrentKernels:  true,
		FP16:               true,
		FP64:               true,
	}
}

// hopper sets the per-SM limits of compute capability 9.0.
func hopper(d *backend.DeviceInfo) {
	d.ComputeMajor, d.ComputeMinor = 9, 0
	d.MaxThreadsPerUnit = 2048
	d.MaxBlocksPerUnit = 32
	d.SharedMemPerBlockOptin = 227 * kib
	d.SharedMemPerUnit = 228 * kib
	d.ReservedSharedPerBlock = 1 * kib
	d.BF16, d.FP8 = true, true
}

// ada sets the per-SM limits of compute capability 8.9.
func ada(d *backend.DeviceInfo) {
	d.ComputeMajor, d.ComputeMinor = 8, 9
	d.MaxThreadsPerUnit = 1536
	d.MaxBlocksPerUnit = 24
	d.SharedMemPerBlockOptin = 99 * kib
	d.SharedMemPerUnit = 100 * kib
	d.ReservedSharedPerBlock = 1 * kib
	d.BF16, d.FP8 = true, true
}

func with(d backend.DeviceInfo, edits ...func(*backend.DeviceInfo)) backend.DeviceInfo {
	for _, e := range edits {
		e(&d)
	}
	return d
}

var cudaPresets = []preset{
	{name: "h100", info: func() backend.DeviceInfo {
		// H100 SXM5 80 GB HBM3.
		return with(cudaCommon(), hopper, func(d *backend.DeviceInfo) {
			d.Name = "NVIDIA H100 80GB HBM3"
			d.Units = 132
			d.ClockMHz = 1980
			d.MemoryBytes = 85017755648 // cuDeviceTotalMem, driver 580 (81079 MiB)
			d.MemoryClockMHz = 2619
			d.MemoryBusBits = 5120
			d.MemoryBandwidthGBps = ddrGBps(2619, 5120) // 3352 GB/s
			d.L2CacheBytes = 50 * mib
			d.AsyncEngines = 3
			d.ECC = true
		})
	}},
	{name: "h200", info: func() backend.DeviceInfo {
		// H200 141 GB HBM3e, as measured on the project's GPU machine.
		return with(cudaCommon(), hopper, func(d *backend.DeviceInfo) {
			d.Name = "NVIDIA H200"
			d.Units = 132
			d.ClockMHz = 1980
			d.MemoryBytes = 150109880320 // 143156 MiB
			d.MemoryClockMHz = 3201
			d.MemoryBusBits = 6016
			d.MemoryBandwidthGBps = ddrGBps(3201, 6016) // 4814 GB/s
			d.L2CacheBytes = 60 * mib
			d.AsyncEngines = 3
			d.ECC = true
		})
	}},
	{name: "a100", info: func() backend.DeviceInfo {
		// A100 SXM4 80 GB.
		return with(cudaCommon(), func(d *backend.DeviceInfo) {
			d.Name = "NVIDIA A100-SXM4-80GB"
			d.ComputeMajor, d.ComputeMinor = 8, 0
			d.Units = 108
			d.ClockMHz = 1410
			d.MemoryBytes = 85100068864 // 81158 MiB
			d.MemoryClockMHz = 1593
			d.MemoryBusBits = 5120
			d.MemoryBandwidthGBps = ddrGBps(1593, 5120) // 2039 GB/s
			d.L2CacheBytes = 40 * mib
			d.MaxThreadsPerUnit = 2048
			d.MaxBlocksPerUnit = 32
			d.SharedMemPerBlockOptin = 163 * kib
			d.SharedMemPerUnit = 164 * kib
			d.ReservedSharedPerBlock = 1 * kib
			d.AsyncEngines = 3
			d.ECC = true
			d.BF16 = true
		})
	}},
	{name: "rtx4090", info: func() backend.DeviceInfo {
		return with(cudaCommon(), ada, func(d *backend.DeviceInfo) {
			d.Name = "NVIDIA GeForce RTX 4090"
			d.Units = 128
			d.ClockMHz = 2520
			d.MemoryBytes = 25250627584 // 24081 MiB, driver 580 on Linux
			d.MemoryClockMHz = 10501
			d.MemoryBusBits = 384
			d.MemoryBandwidthGBps = ddrGBps(10501, 384) // 1008 GB/s
			d.L2CacheBytes = 72 * mib
			d.AsyncEngines = 2
		})
	}},
	{name: "t4", info: func() backend.DeviceInfo {
		return with(cudaCommon(), func(d *backend.DeviceInfo) {
			d.Name = "Tesla T4"
			d.ComputeMajor, d.ComputeMinor = 7, 5
			d.Units = 40
			d.ClockMHz = 1590
			d.MemoryBytes = 15843721216 // 15110 MiB
			d.MemoryClockMHz = 5001
			d.MemoryBusBits = 256
			d.MemoryBandwidthGBps = ddrGBps(5001, 256) // 320 GB/s
			d.L2CacheBytes = 4 * mib
			d.MaxThreadsPerUnit = 1024
			d.MaxBlocksPerUnit = 16
			d.SharedMemPerBlockOptin = 64 * kib
			d.SharedMemPerUnit = 64 * kib
			d.AsyncEngines = 3
			d.ECC = true
		})
	}},
	{name: "l4", info: func() backend.DeviceInfo {
		return with(cudaCommon(), ada, func(d *backend.DeviceInfo) {
			d.Name = "NVIDIA L4"
			d.Units = 58
			d.ClockMHz = 2040
			d.MemoryBytes = 23612293120 // 22518 MiB
			d.MemoryClockMHz = 6251
			d.MemoryBusBits = 192
			d.MemoryBandwidthGBps = ddrGBps(6251, 192) // 300 GB/s
			d.L2CacheBytes = 48 * mib
			d.AsyncEngines = 2
			d.ECC = true
		})
	}},
}

// rtx4090Memory is the RTX 4090's 24 GiB board as the graphics APIs report it
// (24564 MiB, what nvidia-smi shows as total).
const rtx4090Memory = 24564 * mib

var vulkanPresets = []preset{
	{name: "rtx4090", info: func() backend.DeviceInfo {
		return backend.DeviceInfo{
			Name:               "NVIDIA GeForce RTX 4090",
			Vendor:             "NVIDIA",
			Type:               backend.TypeDiscreteGPU,
			DriverVersion:      nvidiaDriver,
			APIVersion:         nvidiaVulkanAPI,
			Units:              128, // VK_NV_shader_sm_builtins shaderSMCount
			MemoryBytes:        rtx4090Memory,
			MaxThreadsPerBlock: 1024,
			MaxBlockDim:        backend.Dim3{X: 1024, Y: 1024, Z: 64},
			MaxGridDim:         backend.Dim3{X: 1<<31 - 1, Y: 65535, Z: 65535},
			WarpSize:           32,
			SharedMemPerBlock:  48 * kib,
			MaxBufferBytes:     1<<32 - 1, // maxStorageBufferRange
			ConcurrentKernels:  true,
			FP16:               true,
			FP64:               true,
			TimestampPeriodNs:  1,
		}
	}},
	{name: "rx7900xtx", info: func() backend.DeviceInfo {
		// RADV (Mesa) on Navi 31.
		return backend.DeviceInfo{
			Name:               "AMD Radeon RX 7900 XTX (RADV NAVI31)",
			Vendor:             "AMD",
			Type:               backend.TypeDiscreteGPU,
			Units:              96,          // VK_AMD_shader_core_properties2 activeComputeUnitCount
			MemoryBytes:        25753026560, // device-local heap
			MaxThreadsPerBlock: 1024,
			MaxBlockDim:        backend.Dim3{X: 1024, Y: 1024, Z: 1024},
			MaxGridDim:         backend.Dim3{X: 65535, Y: 65535, Z: 65535},
			WarpSize:           64, // subgroupSize: wave64 unless a pipeline asks for wave32
			SharedMemPerBlock:  64 * kib,
			MaxBufferBytes:     1<<32 - 1,
			ConcurrentKernels:  true,
			FP16:               true,
			FP64:               true,
			TimestampPeriodNs:  10, // 100 MHz reference clock
		}
	}},
	{name: "arc-a770", info: func() backend.DeviceInfo {
		// ANV (Mesa) on DG2; Alchemist has no FP64 units.
		return backend.DeviceInfo{
			Name:               "Intel(R) Arc(tm) A770 Graphics (DG2)",
			Vendor:             "Intel",
			Type:               backend.TypeDiscreteGPU,
			Units:              32, // Xe-cores
			MemoryBytes:        16 * gib,
			MaxThreadsPerBlock: 1024,
			MaxBlockDim:        backend.Dim3{X: 1024, Y: 1024, Z: 1024},
			MaxGridDim:         backend.Dim3{X: 65535, Y: 65535, Z: 65535},
			WarpSize:           32,
			SharedMemPerBlock:  64 * kib,
			MaxBufferBytes:     1<<32 - 1,
			ConcurrentKernels:  true,
			FP16:               true,
		}
	}},
	{name: "lavapipe", software: true, info: func() backend.DeviceInfo {
		return backend.DeviceInfo{
			Name:               llvmpipeName,
			Vendor:             "Mesa",
			Type:               backend.TypeSoftware,
			DriverVersion:      "Mesa " + mesaVersion,
			APIVersion:         lavapipeAPI,
			MaxThreadsPerBlock: 1024,
			MaxBlockDim:        backend.Dim3{X: 1024, Y: 1024, Z: 1024},
			MaxGridDim:         backend.Dim3{X: 65535, Y: 65535, Z: 65535},
			WarpSize:           8, // 256-bit vectors / 32
			SharedMemPerBlock:  32 * kib,
			MaxBufferBytes:     128 * mib, // llvmpipe's shader buffer limit
			UnifiedMemory:      true,
			FP64:               true,
			TimestampPeriodNs:  1,
		}
	}},
}

var openglPresets = []preset{
	{name: "rtx4090", info: func() backend.DeviceInfo {
		return backend.DeviceInfo{
			Name:               "NVIDIA GeForce RTX 4090/PCIe/SSE2",
			Vendor:             "NVIDIA Corporation",
			Type:               backend.TypeDiscreteGPU,
			DriverVersion:      nvidiaDriver,
			APIVersion:         "4.6.0 NVIDIA " + nvidiaDriver,
			Units:              128,           // GL_NV_shader_thread_group SM_COUNT_NV
			MemoryBytes:        rtx4090Memory, // GL_NVX_gpu_memory_info
			MaxThreadsPerBlock: 1024,
			MaxBlockDim:        backend.Dim3{X: 1024, Y: 1024, Z: 64},
			MaxGridDim:         backend.Dim3{X: 1<<31 - 1, Y: 65535, Z: 65535},
			WarpSize:           32, // WARP_SIZE_NV
			SharedMemPerBlock:  48 * kib,
			FP64:               true,
			TimestampPeriodNs:  1, // GL timer queries count nanoseconds
		}
	}},
	{name: "llvmpipe", software: true, info: func() backend.DeviceInfo {
		return backend.DeviceInfo{
			Name:               llvmpipeName,
			Vendor:             "Mesa",
			Type:               backend.TypeSoftware,
			DriverVersion:      "Mesa " + mesaVersion,
			APIVersion:         "4.5 (Core Profile) Mesa " + mesaVersion,
			MaxThreadsPerBlock: 1024,
			MaxBlockDim:        backend.Dim3{X: 1024, Y: 1024, Z: 1024},
			MaxGridDim:         backend.Dim3{X: 65535, Y: 65535, Z: 65535},
			SharedMemPerBlock:  32 * kib,
			MaxBufferBytes:     128 * mib, // GL_MAX_SHADER_STORAGE_BLOCK_SIZE
			UnifiedMemory:      true,
			FP64:               true,
			TimestampPeriodNs:  1,
		}
	}},
}

var webgpuPresets = []preset{
	{name: "rtx4090", info: func() backend.DeviceInfo {
		// wgpu on the Vulkan driver. WebGPU reports no memory size; the
		// board's is given so the simulated device has a capacity.
		return backend.DeviceInfo{
			Name:               "NVIDIA GeForce RTX 4090",
			Vendor:             "NVIDIA",
			Type:               backend.TypeDiscreteGPU,
			DriverVersion:      nvidiaDriver,
			APIVersion:         "wgpu-native " + wgpuNative + " (Vulkan " + nvidiaVulkanAPI + ")",
			MemoryBytes:        rtx4090Memory,
			MaxThreadsPerBlock: 1024,
			MaxBlockDim:        backend.Dim3{X: 1024, Y: 1024, Z: 64},
			MaxGridDim:         backend.Dim3{X: 65535, Y: 65535, Z: 65535},
			WarpSize:           32,
			SharedMemPerBlock:  48 * kib,
			TimestampPeriodNs:  1,
		}
	}},
	{name: "lavapipe", software: true, info: func() backend.DeviceInfo {
		return backend.DeviceInfo{
			Name:               llvmpipeName,
			Vendor:             "Mesa",
			Type:               backend.TypeSoftware,
			DriverVersion:      "Mesa " + mesaVersion,
			APIVersion:         "wgpu-native " + wgpuNative + " (Vulkan " + lavapipeAPI + ")",
			MaxThreadsPerBlock: 1024,
			MaxBlockDim:        backend.Dim3{X: 1024, Y: 1024, Z: 1024},
			MaxGridDim:         backend.Dim3{X: 65535, Y: 65535, Z: 65535},
			WarpSize:           8,
			SharedMemPerBlock:  32 * kib,
			UnifiedMemory:      true,
			TimestampPeriodNs:  1,
		}
	}},
}

// appleSilicon holds the compute limits every Apple-silicon GPU reports.
func appleSilicon() backend.DeviceInfo {
	return backend.DeviceInfo{
		Vendor:             "Apple",
		Type:               backend.TypeIntegratedGPU,
		APIVersion:         "Metal 3",
		MaxThreadsPerBlock: 1024, // maxThreadsPerThreadgroup
		MaxBlockDim:        backend.Dim3{X: 1024, Y: 1024, Z: 1024},
		// Metal documents no threadgroup-count limit (MoltenVK reports a
		// large placeholder); the largest count an int holds everywhere.
		MaxGridDim:        backend.Dim3{X: math.MaxInt32, Y: math.MaxInt32, Z: math.MaxInt32},
		WarpSize:          32,       // threadExecutionWidth (SIMD-group width)
		SharedMemPerBlock: 32 * kib, // maxThreadgroupMemoryLength
		UnifiedMemory:     true,
		ConcurrentKernels: true,
		FP16:              true,
		BF16:              true, // MSL 3.1 bfloat
	}
}

var metalPresets = []preset{
	{name: "m2-max", info: func() backend.DeviceInfo {
		return with(appleSilicon(), func(d *backend.DeviceInfo) {
			d.Name = "Apple M2 Max"
			d.Units = 38                // GPU cores of the larger M2 Max
			d.MemoryBytes = 51539607552 // recommendedMaxWorkingSetSize of a 64 GB machine (48 GiB)
			d.MemoryBandwidthGBps = 400 // LPDDR5-6400, 512-bit
			d.Extra = map[string]string{"gpu_family": "apple8", "unified_memory": "64 GiB"}
		})
	}},
	{name: "m3-pro", info: func() backend.DeviceInfo {
		return with(appleSilicon(), func(d *backend.DeviceInfo) {
			d.Name = "Apple M3 Pro"
			d.Units = 18                // GPU cores of the larger M3 Pro
			d.MemoryBytes = 28991029248 // recommendedMaxWorkingSetSize of a 36 GB machine (27 GiB)
			d.MemoryBandwidthGBps = 150 // LPDDR5-6400, 192-bit
			d.Extra = map[string]string{"gpu_family": "apple9", "unified_memory": "36 GiB"}
		})
	}},
}

var presetTable = map[string][]preset{
	"cuda":   cudaPresets,
	"vulkan": vulkanPresets,
	"opengl": openglPresets,
	"webgpu": webgpuPresets,
	"metal":  metalPresets,
}

// Backends returns the names of the backends this package can simulate,
// sorted.
func Backends() []string {
	out := make([]string, 0, len(presetTable))
	for name := range presetTable {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

// Presets returns the preset names of a backend, sorted ("a100", "h100", ...
// for cuda); nil for a backend that cannot be simulated.
func Presets(backendName string) []string {
	list := presetTable[backendName]
	if list == nil {
		return nil
	}
	out := make([]string, len(list))
	for i, p := range list {
		out[i] = p.name
	}
	sort.Strings(out)
	return out
}

// DefaultPreset returns the preset an empty preset name stands for ("h100"
// for cuda, "rtx4090" for vulkan, opengl and webgpu, "m2-max" for metal); ""
// for a backend that cannot be simulated.
func DefaultPreset(backendName string) string { return defaultPresets[backendName] }

// PresetInfo returns the DeviceInfo a simulated device of the given backend
// and preset reports (the backend's default preset when preset is ""), with
// Ordinal 0 (and the UUID and PCI address of device 0). An unknown backend or preset is an InvalidArgument error that
// lists the known ones.
func PresetInfo(backendName, preset string) (backend.DeviceInfo, error) {
	p, err := lookupPreset(backendName, preset)
	if err != nil {
		return backend.DeviceInfo{}, err
	}
	return p.build(backendName, 0, Faults{}), nil
}

// unknownBackendError is the error for a backend that cannot be
// simulated: the simulated ones, and the one meant where the name is near
// one of them.
func unknownBackendError(backendName string) *errors.Error {
	msg := fmt.Sprintf("backend %q cannot be simulated (simulated backends: %s)%s",
		backendName, strings.Join(Backends(), ", "), suggest.DidYouMean(backendName, Backends()))
	if strings.EqualFold(backendName, Name) {
		msg += "; the simulator stands in for another backend: name that one (cuda:h100)"
	}
	return &errors.Error{Category: errors.InvalidArgument, Msg: msg}
}

func lookupPreset(backendName, name string) (preset, error) {
	list, ok := presetTable[backendName]
	if !ok {
		e := unknownBackendError(backendName)
		e.Backend, e.Op, e.Hint = Name, "preset", specHint
		return preset{}, e
	}
	if name == "" {
		name = defaultPresets[backendName]
	}
	name = strings.ToLower(strings.TrimSpace(name))
	for _, p := range list {
		if p.name == name {
			return p, nil
		}
	}
	e := errors.E(errors.InvalidArgument, Name, "preset",
		"unknown %s preset %q (known: %s)%s", backendName, name, strings.Join(Presets(backendName), ", "), suggest.DidYouMean(name, Presets(backendName)))
	e.Hint = specHint
	return preset{}, e
}
