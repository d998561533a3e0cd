package metal

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/anygpu/gpu/backend"
)

// MTLGPUFamily values (MTLDevice.h). supportsFamily: answers NO for a value
// the running macOS does not know, so probing a newer family is safe.
const (
	familyApple1       = 1001
	familyApple10      = 1010
	familyMac1         = 2001
	familyMac2         = 2002
	familyCommon1      = 3001
	familyCommon2      = 3002
	familyCommon3      = 3003
	familyMacCatalyst1 = 4001
	familyMacCatalyst2 = 4002
	familyMetal3       = 5001
	familyMetal4       = 5002
)

// knownFamilies is every MTLGPUFamily the probe asks supportsFamily: about.
var knownFamilies = func() []int64 {
	var f []int64
	for v := int64(familyApple1); v <= familyApple10; v++ {
		f = append(f, v)
	}
	return append(f, familyMac1, familyMac2, familyCommon1, familyCommon2, familyCommon3,
		familyMacCatalyst1, familyMacCatalyst2, familyMetal3, familyMetal4)
}()

// familyName is the short name of a GPU family ("apple7", "mac2", "metal3").
func familyName(f int64) string {
	switch {
	case f >= familyApple1 && f < familyApple1+100:
		return fmt.Sprintf("apple%d", f-familyApple1+1)
	case f == familyMac1 || f == familyMac2:
		return fmt.Sprintf("mac%d", f-familyMac1+1)
	case f >= familyCommon1 && f <= familyCommon3:
		return fmt.Sprintf("common%d", f-familyCommon1+1)
	case f == familyMacCatalyst1 || f == familyMacCatalyst2:
		return fmt.Sprintf("maccatalyst%d", f-familyMacCatalyst1+1)
	case f == familyMetal3:
		return "metal3"
	case f == familyMetal4:
		return "metal4"
	}
	return fmt.Sprintf("family%d", f)
}

// appleGPUs names the chips of each Apple GPU family that runs macOS (Metal
// feature set tables), for DeviceInfo.Extra.
var appleGPUs = map[int]string{
	7:  "A14, M1",
	8:  "A15, A16, M2",
	9:  "A17 Pro, A18, M3, M4",
	10: "A19, M5",
}

// features is what DeviceInfo derives from the GPU families a device
// supports.
type features struct {
	apple     int    // highest AppleN family, 0 if none
	mac2      bool   // MTLGPUFamilyMac2
	api       string // "Metal 4", "Metal 3", "Metal 2"
	simdWidth int    // SIMD-group width where the family fixes it (32 on Apple GPUs)
	list      []string
}

// familyFeatures maps the supported families to features. The rules follow
// Apple's Metal feature set tables and stay on the safe side:
//   - every Apple GPU family has 32-wide SIMD groups; other GPUs (AMD, Intel)
//     report their width per pipeline (threadExecutionWidth) only;
//   - SIMD-group reductions (simd_sum, ...) and SIMD-group matrices need
//     Apple7 or Mac2;
//   - the "Metal 3"/"Metal 4" families name the API generation.
func familyFeatures(families []int64) features {
	var f features
	has := func(v int64) bool { return slices.Contains(families, v) }
	for _, v := range families {
		if v >= familyApple1 && v < familyApple1+100 {
			f.apple = max(f.apple, int(v-familyApple1+1))
		}
	}
	f.mac2 = has(familyMac2)
	switch {
	case has(familyMetal4):
		f.api = "Metal 4"
	case has(familyMetal3):
		f.api = "Metal 3"
	default:
		f.api = "Metal 2"
	}
	if f.apple > 0 {
		f.simdWidth = 32
	}
	sorted := slices.Clone(families)
	slices.Sort(sorted)
	for _, v := range sorted {
		f.list = append(f.list, familyName(v))
	}
	if f.apple >= 7 || f.mac2 {
		f.list = append(f.list, "simdgroup_reduction", "simdgroup_matrix")
	}
	return f
}

// rawDevice is what the probe reads from one MTLDevice (and the IORegistry):
// plain values, so DeviceInfo derivation is tested without a Mac.
type rawDevice struct {
	Name                     string
	RegistryID               uint64
	IsDefault                bool      // the device MTLCreateSystemDefaultDevice returns
	WorkingSet               uint64    // recommendedMaxWorkingSetSize
	CurrentAllocated         uint64    // currentAllocatedSize
	UnifiedMemory            bool      // hasUnifiedMemory
	MaxThreadsPerThreadgroup [3]uint64 // maxThreadsPerThreadgroup (MTLSize)
	MaxThreadgroupMemory     uint64    // maxThreadgroupMemoryLength
	MaxBufferLength          uint64    // maxBufferLength
	LowPower                 bool      // isLowPower
	Headless                 bool      // isHeadless
	Removable                bool      // isRemovable
	Location                 uint64    // MTLDeviceLocation
	MaxTransferRate          uint64    // maxTransferRate, bytes per second (0 for built-in GPUs)
	Architecture             string    // architecture.name (macOS 14+), "" when unknown
	Families                 []int64   // the knownFamilies supportsFamily: answered YES for
	CoreCount                int       // "gpu-core-count" from the IORegistry, 0 when unknown
}

// MTLDeviceLocation values.
var locationNames = map[uint64]string{0: "built-in", 1: "slot", 2: "external", math.MaxUint64: "unspecified"}

// maxGridDim is the largest threadgroup count per dimension anygpu lets
// through: Metal documents no limit, and an int holds this on every
// platform. Launch also keeps groups*threads per dimension within 32 bits,
// since the MSL position attributes are 32-bit.
const maxGridDim = math.MaxInt32

// clampInt converts v to int, saturating at math.MaxInt.
func clampInt(v uint64) int {
	if v > math.MaxInt {
		return math.MaxInt
	}
	return int(v)
}

func clampInt64(v uint64) int64 {
	if v > math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(v)
}

// vendorOf names the GPU's maker from its name.
func vendorOf(name string) string {
	n := strings.ToLower(name)
	switch {
	case strings.HasPrefix(n, "apple"):
		return "Apple"
	case strings.Contains(n, "amd") || strings.Contains(n, "radeon"):
		return "AMD"
	case strings.Contains(n, "intel"):
		return "Intel"
	case strings.Contains(n, "nvidia") || strings.Contains(n, "geforce") || strings.Contains(n, "quadro"):
		return "NVIDIA"
	}
	return ""
}

// deviceType classifies a device: unified memory means an integrated GPU
// (Apple silicon, Intel graphics), a low-power device too; anything else is
// discrete (AMD GPUs, external GPUs).
func deviceType(r rawDevice) backend.DeviceType {
	if r.UnifiedMemory || r.LowPower {
		return backend.TypeIntegratedGPU
	}
	return backend.TypeDiscreteGPU
}

// deviceInfo derives what anygpu reports about a device from its raw values.
func deviceInfo(r rawDevice, ordinal int, storage Storage) backend.DeviceInfo {
	f := familyFeatures(r.Families)
	tg := r.MaxThreadsPerThreadgroup
	maxThreads := clampInt(max(tg[0], tg[1], tg[2]))
	info := backend.DeviceInfo{
		Backend:    Name,
		Ordinal:    ordinal,
		Name:       r.Name,
		Vendor:     vendorOf(r.Name),
		Type:       deviceType(r),
		APIVersion: f.api,
		Units:      r.CoreCount,

		MemoryBytes:            clampInt64(r.WorkingSet),
		MaxThreadsPerBlock:     maxThreads,
		MaxBlockDim:            backend.Dim3{X: clampInt(tg[0]), Y: clampInt(tg[1]), Z: clampInt(tg[2])},
		MaxGridDim:             backend.Dim3{X: maxGridDim, Y: maxGridDim, Z: maxGridDim},
		WarpSize:               f.simdWidth,
		SharedMemPerBlock:      clampInt(r.MaxThreadgroupMemory),
		SharedMemPerBlockOptin: clampInt(r.MaxThreadgroupMemory),
		MaxBufferBytes:         clampInt64(r.MaxBufferLength),

		UnifiedAddressing: r.UnifiedMemory,
		UnifiedMemory:     r.UnifiedMemory,
		ConcurrentKernels: true, // one command queue per stream
		FP16:              true, // MSL half
		FP64:              false,
		Features:          f.list,
		Extra: map[string]string{
			"registry_id": fmt.Sprintf("0x%x", r.RegistryID),
			"storage":     storage.String(),
		},
	}
	if info.Units <= 0 {
		// Metal does not report a core count; the IORegistry has one only
		// for Apple GPUs. One unit keeps occupancy maths and size checks sane.
		info.Units = 1
		info.Extra["units"] = "unknown (no gpu-core-count in the IORegistry)"
	}
	if r.IsDefault {
		info.Extra["default"] = "true"
	}
	if f.apple > 0 {
		info.Extra["gpu_family"] = fmt.Sprintf("apple%d", f.apple)
		if chips, ok := appleGPUs[f.apple]; ok {
			info.Extra["gpu_family_chips"] = chips
		}
	}
	if r.Architecture != "" {
		info.Extra["architecture"] = r.Architecture
	}
	if loc, ok := locationNames[r.Location]; ok {
		info.Extra["location"] = loc
	}
	if r.LowPower {
		info.Extra["low_power"] = "true"
	}
	if r.Headless {
		info.Extra["headless"] = "true"
	}
	if r.Removable {
		info.Extra["removable"] = "true"
	}
	if r.MaxTransferRate > 0 {
		info.Extra["max_transfer_rate"] = fmt.Sprintf("%.1f GB/s", float64(r.MaxTransferRate)/1e9)
	}
	return info
}

// memInfo is MemInfo from the raw values: Metal's budget is the recommended
// working set, and what the process has allocated counts against it.
func memInfo(workingSet, allocated uint64) (free, total int64) {
	total = clampInt64(workingSet)
	if allocated < workingSet {
		free = clampInt64(workingSet - allocated)
	}
	return free, total
}

// deviceOrder returns the ordinal order of the devices as indices into
// devs: the system default first, then the others by ascending registryID,
// each device once (the default also appears in MTLCopyAllDevices). The
// order is stable across runs.
func deviceOrder(devs []rawDevice) []int {
	seen := map[uint64]bool{}
	var out []int
	for i, d := range devs {
		if d.IsDefault && !seen[d.RegistryID] {
			seen[d.RegistryID] = true
			out = append(out, i)
		}
	}
	var rest []int
	for i, d := range devs {
		if !seen[d.RegistryID] {
			seen[d.RegistryID] = true
			rest = append(rest, i)
		}
	}
	sort.SliceStable(rest, func(a, b int) bool { return devs[rest[a]].RegistryID < devs[rest[b]].RegistryID })
	return append(out, rest...)
}
