//go:build (darwin || freebsd || linux || netbsd || windows) && (amd64 || arm64)

package vulkan

import (
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"unsafe"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/backend/vulkan/internal/vk"
)

// physicalDevice is what the instance learned about one VkPhysicalDevice.
type physicalDevice struct {
	handle     uintptr
	props      vk.PhysicalDeviceProperties
	apiVersion uint32 // min(instance, device): what may be used
	extensions map[string]bool
	families   []vk.QueueFamilyProperties
	mem        vk.PhysicalDeviceMemoryProperties
	features   vk.PhysicalDeviceFeatures

	timeline       bool   // timelineSemaphore feature
	maintenance4   bool   // maintenance4 feature (LocalSizeId in SPIR-V 1.6 modules)
	hostQueryReset bool   // hostQueryReset feature
	float16, int8  bool   // shaderFloat16, shaderInt8
	maxAllocation  uint64 // maxMemoryAllocationSize (0: unknown)
	maxBufferSize  uint64 // maxBufferSize (0: unknown)
	subgroupSize   uint32
	subgroupOps    uint32
	subgroupStages uint32
	fullSubgroups  bool // computeFullSubgroups (Vulkan 1.3, VK_EXT_subgroup_size_control)
	driverName     string
	driverInfo     string
	uuid           [16]byte

	info backend.DeviceInfo
}

func (pd *physicalDevice) has(ext string) bool { return pd.extensions[ext] }

func (pd *physicalDevice) atLeast(major, minor uint32) bool {
	return pd.apiVersion >= vk.MakeAPIVersion(major, minor, 0)
}

// describe queries h. It returns a reason instead when anygpu cannot use the
// device (Vulkan 1.0, or no compute queue).
func (in *instance) describe(h uintptr) (*physicalDevice, string) {
	pd := &physicalDevice{handle: h, extensions: map[string]bool{}}
	in.vki.Properties(h, &pd.props)
	name := vk.FixedString(pd.props.DeviceName[:])
	if pd.props.ApiVersion < vk.MakeAPIVersion(1, 1, 0) {
		return nil, fmt.Sprintf("%s supports Vulkan %s only (anygpu needs 1.1)", name, versionString(pd.props.ApiVersion))
	}
	if !in.vki.HasProperties2() {
		return nil, fmt.Sprintf("%s: the loader lacks vkGetPhysicalDeviceProperties2", name)
	}
	pd.apiVersion = min(in.apiVersion, pd.props.ApiVersion)
	exts, _ := in.vki.DeviceExtensions(h)
	for _, e := range exts {
		pd.extensions[e] = true
	}
	pd.families = in.vki.QueueFamilies(h)
	if computeFamily(pd.families) < 0 {
		return nil, name + " has no compute queue"
	}
	in.vki.MemoryProperties(h, &pd.mem)
	in.vki.Features(h, &pd.features)

	// Properties of Vulkan 1.1+ and of the extensions the device has.
	p2 := &vk.PhysicalDeviceProperties2{SType: vk.StructureTypePhysicalDeviceProperties2}
	var chain unsafe.Pointer
	link := func(s unsafe.Pointer, next *unsafe.Pointer) { *next = chain; chain = s }
	subgroup := &vk.PhysicalDeviceSubgroupProperties{SType: vk.StructureTypePhysicalDeviceSubgroupProperties}
	link(unsafe.Pointer(subgroup), &subgroup.PNext)
	id := &vk.PhysicalDeviceIDProperties{SType: vk.StructureTypePhysicalDeviceIDProperties}
	link(unsafe.Pointer(id), &id.PNext)
	m3 := &vk.PhysicalDeviceMaintenance3Properties{SType: vk.StructureTypePhysicalDeviceMaintenance3Properties}
	link(unsafe.Pointer(m3), &m3.PNext)
	driver := &vk.PhysicalDeviceDriverProperties{SType: vk.StructureTypePhysicalDeviceDriverProperties}
	if pd.atLeast(1, 2) || pd.has("VK_KHR_driver_properties") {
		link(unsafe.Pointer(driver), &driver.PNext)
	}
	m4 := &vk.PhysicalDeviceMaintenance4Properties{SType: vk.StructureTypePhysicalDeviceMaintenance4Properties}
	if pd.atLeast(1, 3) || pd.has("VK_KHR_maintenance4") {
		link(unsafe.Pointer(m4), &m4.PNext)
	}
	sizeControl := &vk.PhysicalDeviceSubgroupSizeControlProperties{SType: vk.StructureTypePhysicalDeviceSubgroupSizeControlProperties}
	if pd.atLeast(1, 3) || pd.has("VK_EXT_subgroup_size_control") {
		link(unsafe.Pointer(sizeControl), &sizeControl.PNext)
	}
	pci := &vk.PhysicalDevicePCIBusInfoPropertiesEXT{SType: vk.StructureTypePhysicalDevicePCIBusInfoPropertiesEXT}
	if pd.has("VK_EXT_pci_bus_info") {
		link(unsafe.Pointer(pci), &pci.PNext)
	}
	sm := &vk.PhysicalDeviceShaderSMBuiltinsPropertiesNV{SType: vk.StructureTypePhysicalDeviceShaderSMBuiltinsPropertiesNV}
	if pd.has("VK_NV_shader_sm_builtins") {
		link(unsafe.Pointer(sm), &sm.PNext)
	}
	amd := &vk.PhysicalDeviceShaderCorePropertiesAMD{SType: vk.StructureTypePhysicalDeviceShaderCorePropertiesAMD}
	if pd.has("VK_AMD_shader_core_properties") {
		link(unsafe.Pointer(amd), &amd.PNext)
	}
	p2.PNext = chain
	in.vki.Properties2(h, p2)

	// Features of Vulkan 1.2 (or their extensions).
	f2 := &vk.PhysicalDeviceFeatures2{SType: vk.StructureTypePhysicalDeviceFeatures2}
	chain = nil
	timeline := &vk.PhysicalDeviceTimelineSemaphoreFeatures{SType: vk.StructureTypePhysicalDeviceTimelineSemaphoreFeatures}
	if pd.atLeast(1, 2) || pd.has("VK_KHR_timeline_semaphore") {
		link(unsafe.Pointer(timeline), &timeline.PNext)
	}
	f16 := &vk.PhysicalDeviceShaderFloat16Int8Features{SType: vk.StructureTypePhysicalDeviceShaderFloat16Int8Features}
	if pd.atLeast(1, 2) || pd.has("VK_KHR_shader_float16_int8") {
		link(unsafe.Pointer(f16), &f16.PNext)
	}
	m4f := &vk.PhysicalDeviceMaintenance4Features{SType: vk.StructureTypePhysicalDeviceMaintenance4Features}
	if pd.atLeast(1, 3) || pd.has("VK_KHR_maintenance4") {
		link(unsafe.Pointer(m4f), &m4f.PNext)
	}
	hqr := &vk.PhysicalDeviceHostQueryResetFeatures{SType: vk.StructureTypePhysicalDeviceHostQueryResetFeatures}
	if pd.atLeast(1, 2) || pd.has("VK_EXT_host_query_reset") {
		link(unsafe.Pointer(hqr), &hqr.PNext)
	}
	sizeFeatures := &vk.PhysicalDeviceSubgroupSizeControlFeatures{SType: vk.StructureTypePhysicalDeviceSubgroupSizeControlFeatures}
	if pd.atLeast(1, 3) || pd.has("VK_EXT_subgroup_size_control") {
		link(unsafe.Pointer(sizeFeatures), &sizeFeatures.PNext)
	}
	f2.PNext = chain
	in.vki.Features2(h, f2)
	pd.fullSubgroups = sizeFeatures.ComputeFullSubgroups != 0
	pd.maintenance4 = m4f.Maintenance4 != 0
	pd.hostQueryReset = hqr.HostQueryReset != 0

	pd.timeline = timeline.TimelineSemaphore != 0
	pd.float16, pd.int8 = f16.ShaderFloat16 != 0, f16.ShaderInt8 != 0
	pd.maxAllocation = m3.MaxMemoryAllocationSize
	pd.maxBufferSize = m4.MaxBufferSize
	pd.subgroupSize, pd.subgroupOps, pd.subgroupStages = subgroup.SubgroupSize, subgroup.SupportedOperations, subgroup.SupportedStages
	pd.driverName, pd.driverInfo = vk.FixedString(driver.DriverName[:]), vk.FixedString(driver.DriverInfo[:])
	pd.uuid = id.DeviceUUID

	lim := &pd.props.Limits
	info := backend.DeviceInfo{
		Backend:                Name,
		Name:                   name,
		Vendor:                 vendorName(pd.props.VendorID, pd.driverName),
		Type:                   deviceType(pd.props.DeviceType),
		UUID:                   formatUUID(id.DeviceUUID),
		DriverVersion:          driverVersion(pd.props.VendorID, pd.props.DriverVersion, pd.driverInfo),
		APIVersion:             versionString(pd.props.ApiVersion),
		Units:                  1,
		MemoryBytes:            int64(deviceLocalBytes(&pd.mem)),
		MaxThreadsPerBlock:     int(lim.MaxComputeWorkGroupInvocations),
		MaxBlockDim:            backend.Dim3{X: int(lim.MaxComputeWorkGroupSize[0]), Y: int(lim.MaxComputeWorkGroupSize[1]), Z: int(lim.MaxComputeWorkGroupSize[2])},
		MaxGridDim:             backend.Dim3{X: int(lim.MaxComputeWorkGroupCount[0]), Y: int(lim.MaxComputeWorkGroupCount[1]), Z: int(lim.MaxComputeWorkGroupCount[2])},
		WarpSize:               int(subgroup.SubgroupSize),
		SharedMemPerBlock:      int(lim.MaxComputeSharedMemorySize),
		SharedMemPerBlockOptin: int(lim.MaxComputeSharedMemorySize),
		MaxBufferBytes:         int64(maxBufferBytes(pd)),
		AsyncEngines:           transferQueues(pd.families),
		UnifiedMemory:          deviceLocalIsHostVisible(&pd.mem),
		ConcurrentKernels:      true,
		FP16:                   pd.float16,
		FP64:                   pd.features.ShaderFloat64 != 0,
		TimestampPeriodNs:      float64(lim.TimestampPeriod),
		Extra:                  map[string]string{},
	}
	if pd.has("VK_EXT_pci_bus_info") {
		info.PCIBus = fmt.Sprintf("%04x:%02x:%02x.%x", pci.PciDomain, pci.PciBus, pci.PciDevice, pci.PciFunction)
	}
	switch {
	case pd.has("VK_NV_shader_sm_builtins") && sm.ShaderSMCount > 0:
		info.Units = int(sm.ShaderSMCount)
		info.MaxThreadsPerUnit = int(sm.ShaderWarpsPerSM) * int(max(subgroup.SubgroupSize, 1))
	case pd.has("VK_AMD_shader_core_properties") && amd.ComputeUnitsPerShaderArray > 0:
		info.Units = int(amd.ShaderEngineCount * amd.ShaderArraysPerEngineCount * amd.ComputeUnitsPerShaderArray)
	case pd.props.DeviceType == vk.PhysicalDeviceTypeCPU:
		info.Units = runtime.NumCPU()
	default:
		info.Extra["units"] = "unknown (the driver does not report its compute units)"
	}
	for _, f := range []struct {
		ok   bool
		name string
	}{
		{pd.timeline, "timeline_semaphore"},
		{pd.has("VK_KHR_push_descriptor"), "push_descriptor"},
		{pd.has("VK_EXT_memory_budget"), "memory_budget"},
		{subgroup.SupportedOperations&vk.SubgroupFeatureArithmeticBit != 0, "subgroup_arithmetic"},
		{pd.features.ShaderInt64 != 0, "shader_int64"},
		{pd.features.ShaderFloat64 != 0, "shader_float64"},
		{pd.float16, "shader_float16"},
		{pd.int8, "shader_int8"},
		{pd.features.RobustBufferAccess != 0, "robust_buffer_access"},
	} {
		if f.ok {
			info.Features = append(info.Features, f.name)
		}
	}
	x := info.Extra
	x["vendor_id"] = fmt.Sprintf("0x%04x", pd.props.VendorID)
	x["device_id"] = fmt.Sprintf("0x%04x", pd.props.DeviceID)
	if pd.driverName != "" {
		x["driver"] = pd.driverName
	}
	if pd.driverInfo != "" {
		x["driver_info"] = pd.driverInfo
	}
	x["driver_version_raw"] = strconv.FormatUint(uint64(pd.props.DriverVersion), 10)
	if driver.ConformanceVersion.Major > 0 {
		c := driver.ConformanceVersion
		x["conformance"] = fmt.Sprintf("%d.%d.%d.%d", c.Major, c.Minor, c.Subminor, c.Patch)
	}
	x["heaps"] = heapsString(&pd.mem)
	x["memory_types"] = memoryTypesString(&pd.mem)
	x["queue_families"] = familiesString(pd.families)
	x["max_storage_buffer_range"] = strconv.FormatUint(uint64(lim.MaxStorageBufferRange), 10)
	x["max_push_constants"] = strconv.FormatUint(uint64(lim.MaxPushConstantsSize), 10)
	x["max_memory_allocation"] = strconv.FormatUint(pd.maxAllocation, 10)
	if pd.maxBufferSize > 0 {
		x["max_buffer_size"] = strconv.FormatUint(pd.maxBufferSize, 10)
	}
	x["min_storage_buffer_offset_alignment"] = strconv.FormatUint(lim.MinStorageBufferOffsetAlignment, 10)
	if ops := subgroupOpsString(subgroup.SupportedOperations, subgroup.SupportedStages); ops != "" {
		x["subgroup_ops"] = ops
	}
	if pd.fullSubgroups {
		x["full_subgroups"] = "required of the subgroup kernels' pipelines whose block is a whole number of subgroups in x"
	}
	if sizeControl.MaxSubgroupSize > 0 {
		x["subgroup_sizes"] = fmt.Sprintf("%d..%d", sizeControl.MinSubgroupSize, sizeControl.MaxSubgroupSize)
	}
	x["timestamp_compute_and_graphics"] = strconv.FormatBool(lim.TimestampComputeAndGraphics != 0)
	if in.validation != "" {
		x["validation"] = in.validation
	} else if in.note != "" {
		x["validation"] = "off: " + in.note
	}
	pd.info = info
	return pd, ""
}

// computeFamily is the queue family compute work goes to: a compute family
// without graphics (the asynchronous compute queues of discrete GPUs) if there
// is one, else the first with compute; -1 if none.
func computeFamily(fams []vk.QueueFamilyProperties) int {
	best := -1
	for i, f := range fams {
		if f.QueueFlags&vk.QueueComputeBit == 0 || f.QueueCount == 0 {
			continue
		}
		if f.QueueFlags&vk.QueueGraphicsBit == 0 {
			return i
		}
		if best < 0 {
			best = i
		}
	}
	return best
}

// transferFamily is a family with transfer but neither graphics nor compute
// (the copy engines of discrete GPUs), or -1.
func transferFamily(fams []vk.QueueFamilyProperties) int {
	for i, f := range fams {
		if f.QueueFlags&vk.QueueTransferBit != 0 && f.QueueFlags&(vk.QueueGraphicsBit|vk.QueueComputeBit) == 0 && f.QueueCount > 0 {
			return i
		}
	}
	return -1
}

func transferQueues(fams []vk.QueueFamilyProperties) int {
	if i := transferFamily(fams); i >= 0 {
		return int(fams[i].QueueCount)
	}
	return 0
}

// deviceLocalBytes is the size of the largest device-local heap: the
// device's own memory (a discrete GPU also shows a small device-local heap,
// the host-visible window onto it, which is not counted again).
func deviceLocalBytes(m *vk.PhysicalDeviceMemoryProperties) uint64 {
	var n uint64
	for _, h := range m.MemoryHeaps[:m.MemoryHeapCount] {
		if h.Flags&vk.MemoryHeapDeviceLocalBit != 0 {
			n = max(n, h.Size)
		}
	}
	if n == 0 && m.MemoryHeapCount > 0 {
		n = m.MemoryHeaps[0].Size
	}
	return n
}

// deviceLocalIsHostVisible reports whether the device's own memory (its first
// device-local memory type) is host-visible: an integrated GPU or lavapipe.
func deviceLocalIsHostVisible(m *vk.PhysicalDeviceMemoryProperties) bool {
	for _, t := range m.MemoryTypes[:m.MemoryTypeCount] {
		if t.PropertyFlags&vk.MemoryPropertyDeviceLocalBit != 0 {
			return t.PropertyFlags&vk.MemoryPropertyHostVisibleBit != 0
		}
	}
	return false
}

// maxBufferBytes is the largest single buffer: the smallest of the
// allocation limit, the buffer limit and the device's memory.
func maxBufferBytes(pd *physicalDevice) uint64 {
	n := deviceLocalBytes(&pd.mem)
	if pd.maxAllocation > 0 {
		n = min(n, pd.maxAllocation)
	}
	if pd.maxBufferSize > 0 {
		n = min(n, pd.maxBufferSize)
	}
	return n
}

func vendorName(id uint32, driver string) string {
	switch id {
	case 0x10de:
		return "NVIDIA"
	case 0x1002, 0x1022:
		return "AMD"
	case 0x8086:
		return "Intel"
	case 0x13b5:
		return "ARM"
	case 0x5143:
		return "Qualcomm"
	case 0x1010:
		return "Imagination"
	case 0x106b:
		return "Apple"
	case 0x14e4:
		return "Broadcom"
	case 0x1ae0:
		return "Google"
	case 0x10005:
		return "Mesa"
	case 0x10002:
		return "VeriSilicon"
	case 0x10001:
		return "Kazan"
	case 0x10004:
		return "Codeplay"
	case 0x1af4:
		return "Red Hat (virtio)"
	}
	if driver != "" {
		return driver
	}
	return fmt.Sprintf("vendor 0x%04x", id)
}

// driverVersion decodes VkPhysicalDeviceProperties.driverVersion the way each
// vendor packs it; driverInfo (Vulkan 1.2) wins when it is given.
func driverVersion(vendor, v uint32, driverInfo string) string {
	if driverInfo != "" {
		return driverInfo
	}
	switch vendor {
	case 0x10de:
		return fmt.Sprintf("%d.%d.%02d", v>>22, (v>>14)&0xff, (v>>6)&0xff)
	case 0x8086:
		if runtime.GOOS == "windows" {
			return fmt.Sprintf("%d.%d", v>>14, v&0x3fff)
		}
	}
	return versionString(v)
}

func formatUUID(u [16]byte) string {
	var zero [16]byte
	if u == zero {
		return ""
	}
	return fmt.Sprintf("%x-%x-%x-%x-%x", u[0:4], u[4:6], u[6:8], u[8:10], u[10:16])
}

func heapsString(m *vk.PhysicalDeviceMemoryProperties) string {
	var parts []string
	for i, h := range m.MemoryHeaps[:m.MemoryHeapCount] {
		kind := "host"
		if h.Flags&vk.MemoryHeapDeviceLocalBit != 0 {
			kind = "device-local"
		}
		parts = append(parts, fmt.Sprintf("%d: %s %s", i, byteSize(h.Size), kind))
	}
	return strings.Join(parts, "; ")
}

func memoryTypesString(m *vk.PhysicalDeviceMemoryProperties) string {
	var parts []string
	for i, t := range m.MemoryTypes[:m.MemoryTypeCount] {
		var flags []string
		for _, f := range []struct {
			bit  uint32
			name string
		}{{vk.MemoryPropertyDeviceLocalBit, "device-local"}, {vk.MemoryPropertyHostVisibleBit, "host-visible"},
			{vk.MemoryPropertyHostCoherentBit, "coherent"}, {vk.MemoryPropertyHostCachedBit, "cached"}} {
			if t.PropertyFlags&f.bit != 0 {
				flags = append(flags, f.name)
			}
		}
		if len(flags) == 0 {
			flags = append(flags, fmt.Sprintf("flags 0x%x", t.PropertyFlags))
		}
		parts = append(parts, fmt.Sprintf("%d: heap %d %s", i, t.HeapIndex, strings.Join(flags, "+")))
	}
	return strings.Join(parts, "; ")
}

func familiesString(fams []vk.QueueFamilyProperties) string {
	var parts []string
	for i, f := range fams {
		var caps []string
		for _, c := range []struct {
			bit  uint32
			name string
		}{{vk.QueueGraphicsBit, "graphics"}, {vk.QueueComputeBit, "compute"}, {vk.QueueTransferBit, "transfer"}} {
			if f.QueueFlags&c.bit != 0 {
				caps = append(caps, c.name)
			}
		}
		if len(caps) == 0 {
			caps = append(caps, fmt.Sprintf("flags 0x%x", f.QueueFlags))
		}
		parts = append(parts, fmt.Sprintf("%d: %s ×%d (timestamps %d bits)", i, strings.Join(caps, "|"), f.QueueCount, f.TimestampValidBits))
	}
	return strings.Join(parts, "; ")
}

func byteSize(n uint64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
