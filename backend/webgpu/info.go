//go:build cgo

package webgpu

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/backend/webgpu/internal/wgpuc"
	"github.com/anygpu/gpu/errors"
	"github.com/anygpu/gpu/internal/hostmem"
	"github.com/oliverbestmann/webgpu/wgpu"
)

// The process shares one wgpu instance: creating one loads and initialises
// every graphics API wgpu supports on the platform, which takes tens of
// milliseconds, and the instance holds no per-device state.
var (
	instanceOnce sync.Once
	theInstance  *wgpu.Instance
	instanceErr  error
)

func getInstance() (*wgpu.Instance, error) {
	instanceOnce.Do(func() {
		err := protect("create instance", func() error {
			theInstance = wgpu.CreateInstance(nil)
			return nil
		})
		if err != nil {
			instanceErr = &errors.Error{
				Backend: Name, Op: "create instance", Category: errors.Initialization, Err: err,
				Msg:  "wgpu-native could not create an instance: " + errors.Unwrap(err).Error(),
				Hint: "the graphics libraries wgpu loads (Vulkan loader, EGL) failed to initialise: check the driver installation",
			}
			theInstance = nil
		}
	})
	return theInstance, instanceErr
}

// adapterEntry is one adapter with what the backend needs to know of it.
type adapterEntry struct {
	adapter  *wgpu.Adapter
	info     wgpu.AdapterInfo
	limits   wgpu.Limits
	features []wgpu.FeatureName
}

func (e adapterEntry) has(f wgpu.FeatureName) bool { return slices.Contains(e.features, f) }

// rank orders adapters best first: by type (discrete, integrated, unknown,
// software), then by API (the native ones before OpenGL).
func (e adapterEntry) rank() int {
	r := 0
	switch e.info.AdapterType {
	case wgpu.AdapterTypeDiscreteGPU:
		r = 0
	case wgpu.AdapterTypeIntegratedGPU:
		r = 10
	case wgpu.AdapterTypeUnknown:
		r = 20
	default: // CPU
		r = 30
	}
	switch e.info.BackendType {
	case wgpu.BackendTypeVulkan, wgpu.BackendTypeMetal, wgpu.BackendTypeD3D12:
	case wgpu.BackendTypeOpenGL, wgpu.BackendTypeOpenGLES:
		r += 2
	default:
		r += 4
	}
	return r
}

// enumerate lists the adapters, best first. The caller releases them.
func enumerate() ([]adapterEntry, error) {
	inst, err := getInstance()
	if err != nil {
		return nil, err
	}
	var list []*wgpu.Adapter
	err = protect("enumerate adapters", func() error {
		list = inst.EnumerateAdapters(nil)
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := make([]adapterEntry, 0, len(list))
	for _, a := range list {
		var e adapterEntry
		err := protect("adapter info", func() error {
			e = adapterEntry{adapter: a, info: a.GetInfo(), limits: a.GetLimits(), features: a.GetFeatures()}
			return nil
		})
		if err != nil {
			a.Release()
			continue
		}
		out = append(out, e)
	}
	slices.SortStableFunc(out, func(a, b adapterEntry) int { return a.rank() - b.rank() })
	return out, nil
}

func releaseAdapters(list []adapterEntry, keep int) {
	for i, e := range list {
		if i != keep {
			e.adapter.Release()
		}
	}
}

// errNoAdapter is the probe's answer on a machine where wgpu finds nothing.
func errNoAdapter(op string) error {
	return &errors.Error{
		Backend: Name, Op: op, Category: errors.Unavailable,
		Code: 3, Name: "WGPURequestAdapterStatus_Unavailable",
		Msg:  "no WebGPU adapter: wgpu-native found no Vulkan, Metal, D3D12 or OpenGL driver it can use",
		Hint: hintNoAdapter,
	}
}

func probe(ctx context.Context) ([]backend.DeviceInfo, error) {
	return runCtx(ctx, "probe", func() ([]backend.DeviceInfo, error) {
		list, err := enumerate()
		if err != nil {
			return nil, err
		}
		defer releaseAdapters(list, -1)
		if len(list) == 0 {
			return nil, errNoAdapter("probe")
		}
		out := make([]backend.DeviceInfo, len(list))
		for i, e := range list {
			out[i] = deviceInfo(i, e, requiredLimits(e.limits))
		}
		return out, nil
	}, nil)
}

// requiredLimits are the limits a device is created with: WebGPU's defaults
// (which every adapter supports), raised to the adapter's own for what
// compute work needs: buffer and storage-binding sizes, storage buffers per
// shader, work-group size and memory, and the finest offset alignments.
// Asking for all of the adapter's limits fails on some drivers, so only these
// are raised.
func requiredLimits(a wgpu.Limits) wgpu.Limits {
	l := wgpu.DefaultLimits()
	raise32 := func(dst *uint32, v uint32) {
		if v != 0 && v != wgpu.LimitU32Undefined {
			*dst = v
		}
	}
	raise64 := func(dst *uint64, v uint64) {
		if v != 0 && v != wgpu.LimitU64Undefined {
			*dst = v
		}
	}
	raise64(&l.MaxBufferSize, a.MaxBufferSize)
	raise64(&l.MaxStorageBufferBindingSize, a.MaxStorageBufferBindingSize)
	raise64(&l.MaxUniformBufferBindingSize, a.MaxUniformBufferBindingSize)
	raise32(&l.MaxStorageBuffersPerShaderStage, a.MaxStorageBuffersPerShaderStage)
	raise32(&l.MaxComputeWorkgroupStorageSize, a.MaxComputeWorkgroupStorageSize)
	raise32(&l.MaxComputeInvocationsPerWorkgroup, a.MaxComputeInvocationsPerWorkgroup)
	raise32(&l.MaxComputeWorkgroupSizeX, a.MaxComputeWorkgroupSizeX)
	raise32(&l.MaxComputeWorkgroupSizeY, a.MaxComputeWorkgroupSizeY)
	raise32(&l.MaxComputeWorkgroupSizeZ, a.MaxComputeWorkgroupSizeZ)
	raise32(&l.MinUniformBufferOffsetAlignment, a.MinUniformBufferOffsetAlignment)
	raise32(&l.MinStorageBufferOffsetAlignment, a.MinStorageBufferOffsetAlignment)
	return l
}

// The WebGPU default limits, which apply where a required limit is left
// undefined.
const (
	defaultMaxStorageBinding = 128 << 20
	defaultMaxBufferSize     = 256 << 20
	defaultMaxInvocations    = 256
	defaultMaxWorkgroupX     = 256
	defaultMaxWorkgroupY     = 256
	defaultMaxWorkgroupZ     = 64
	defaultMaxWorkgroupsDim  = 65535
	defaultWorkgroupStorage  = 16 << 10
	defaultOffsetAlignment   = 256
)

func or32(v uint32, def uint32) uint32 {
	if v == 0 || v == wgpu.LimitU32Undefined {
		return def
	}
	return v
}

func or64(v uint64, def uint64) uint64 {
	if v == 0 || v == wgpu.LimitU64Undefined {
		return def
	}
	return v
}

// maxGridGroups is the largest grid a launch may have, in groups: the
// backend folds a grid wider than 65535 into two dimensions, and the WGSL
// helpers index groups with 32-bit integers.
const maxGridGroups = 1<<31 - 1

var vendorNames = map[uint32]string{
	0x1002: "AMD", 0x1022: "AMD", 0x10de: "NVIDIA", 0x8086: "Intel", 0x106b: "Apple",
	0x13b5: "ARM", 0x5143: "Qualcomm", 0x1010: "Imagination", 0x14e4: "Broadcom",
	0x1414: "Microsoft", 0x10005: "Mesa",
}

// softwareNames mark adapters that execute on the CPU when the driver does not
// say so through the adapter type.
var softwareNames = []string{"llvmpipe", "lavapipe", "softpipe", "swiftshader", "warp"}

// deviceInfo describes adapter e as device ordinal, with the limits l it is
// (or would be) created with.
func deviceInfo(ordinal int, e adapterEntry, l wgpu.Limits) backend.DeviceInfo {
	in := e.info
	name := in.Device
	if name == "" {
		name = in.Description
	}
	if name == "" {
		name = fmt.Sprintf("%s adapter %04x:%04x", in.BackendType, in.VendorId, in.DeviceId)
	}
	vendor := vendorNames[in.VendorId]
	if vendor == "" {
		vendor = in.Vendor
	}
	typ := backend.TypeUnknown
	switch in.AdapterType {
	case wgpu.AdapterTypeDiscreteGPU:
		typ = backend.TypeDiscreteGPU
	case wgpu.AdapterTypeIntegratedGPU:
		typ = backend.TypeIntegratedGPU
	case wgpu.AdapterTypeCPU:
		typ = backend.TypeSoftware
	}
	lname := strings.ToLower(name + " " + in.Vendor)
	for _, s := range softwareNames {
		if strings.Contains(lname, s) {
			typ = backend.TypeSoftware
		}
	}
	maxBuffer := min(or64(l.MaxBufferSize, defaultMaxBufferSize), 1<<62)
	info := backend.DeviceInfo{
		Backend:            Name,
		Ordinal:            ordinal,
		Name:               name,
		Vendor:             vendor,
		Type:               typ,
		DriverVersion:      in.Description,
		APIVersion:         fmt.Sprintf("%s via wgpu-native %s", apiName(in.BackendType), wgpuVersion()),
		Units:              estimatedUnits(typ),
		MaxThreadsPerBlock: int(or32(l.MaxComputeInvocationsPerWorkgroup, defaultMaxInvocations)),
		MaxBlockDim: backend.Dim3{
			X: int(or32(l.MaxComputeWorkgroupSizeX, defaultMaxWorkgroupX)),
			Y: int(or32(l.MaxComputeWorkgroupSizeY, defaultMaxWorkgroupY)),
			Z: int(or32(l.MaxComputeWorkgroupSizeZ, defaultMaxWorkgroupZ)),
		},
		MaxGridDim: backend.Dim3{
			X: maxGridGroups,
			Y: int(or32(l.MaxComputeWorkgroupsPerDimension, defaultMaxWorkgroupsDim)),
			Z: int(or32(l.MaxComputeWorkgroupsPerDimension, defaultMaxWorkgroupsDim)),
		},
		SharedMemPerBlock: int(or32(l.MaxComputeWorkgroupStorageSize, defaultWorkgroupStorage)),
		MaxBufferBytes:    int64(maxBuffer),
		MemoryBytes:       int64(maxBuffer),
		ConcurrentKernels: false,
		FP16:              e.has(wgpu.FeatureNameShaderF16),
		FP64:              e.has(wgpu.NativeFeatureShaderF64),
		Extra: map[string]string{
			"adapter_type":             in.AdapterType.String(),
			"api":                      apiName(in.BackendType),
			"vendor_id":                fmt.Sprintf("0x%04x", in.VendorId),
			"device_id":                fmt.Sprintf("0x%04x", in.DeviceId),
			"max_storage_binding":      strconv.FormatUint(or64(l.MaxStorageBufferBindingSize, defaultMaxStorageBinding), 10),
			"max_workgroups_per_dim":   strconv.FormatUint(uint64(or32(l.MaxComputeWorkgroupsPerDimension, defaultMaxWorkgroupsDim)), 10),
			"streams":                  "every stream feeds the device's one queue, in order",
			"grid":                     "grids wider than 65535 groups are folded into x and y",
			"units":                    fmt.Sprintf("not reported by WebGPU: %d is an estimate for a %s", estimatedUnits(typ), typ),
			"memory":                   "not reported by WebGPU: memory_bytes is the largest buffer",
			"timing":                   timingName(e.has(wgpu.FeatureNameTimestampQuery)),
			"wgpu_native":              wgpuVersion(),
			"min_storage_offset_align": strconv.FormatUint(uint64(or32(l.MinStorageBufferOffsetAlignment, defaultOffsetAlignment)), 10),
		},
	}
	if in.Architecture != "" {
		info.Extra["architecture"] = in.Architecture
	}
	if subgroupFeature(e) != 0 && e.adapter != nil {
		mn, mx := wgpuc.SubgroupSizes(e.adapter)
		if mx > 0 {
			info.Extra["subgroup_sizes"] = fmt.Sprintf("%d..%d", mn, mx)
		}
		if mn == mx && mn > 0 {
			info.WarpSize = int(mn)
		}
	}
	if typ == backend.TypeSoftware {
		// A software adapter runs on the host's cores, in host memory.
		info.Units = runtime.NumCPU()
		delete(info.Extra, "units")
		if mem := hostmem.Total(); mem > 0 {
			info.MemoryBytes = mem
			info.UnifiedMemory = true
			delete(info.Extra, "memory")
		}
	}
	for _, f := range e.features {
		if s := f.String(); s != "" {
			info.Features = append(info.Features, s)
		}
	}
	return info
}

// estimatedUnits is DeviceInfo.Units for a GPU of type typ, whose compute
// units WebGPU does not report. Callers size launch grids and split work
// from Units (package tensor gives each unit a few groups and strides over
// the rest), so a count below the device's leaves all but a few of its
// units idle: reporting 1 ran GPT-2 on an H200 (132 SMs) at 11 tokens/s
// against Vulkan's 336, its launches a few groups each. A count above
// the device's costs little (some groups more, each with less work), so
// the estimate is what large GPUs of the type have: 128 for a discrete GPU
// (an H100 has 132 SMs, an RTX 4090 128, an MI300X 304 CUs), 32 for an
// integrated one or an adapter of unknown type (Apple M-series 8-40 cores,
// Intel Xe 96 EUs in 6-12 sub-slices, Radeon 780M 12 CUs).
func estimatedUnits(typ backend.DeviceType) int {
	if typ == backend.TypeDiscreteGPU {
		return 128
	}
	return 32
}

func timingName(timestamps bool) string {
	if timestamps {
		return "device timestamp queries"
	}
	return "host clock (the adapter has no timestamp queries)"
}

func apiName(b wgpu.BackendType) string {
	switch b {
	case wgpu.BackendTypeVulkan:
		return "Vulkan"
	case wgpu.BackendTypeMetal:
		return "Metal"
	case wgpu.BackendTypeD3D12:
		return "D3D12"
	case wgpu.BackendTypeD3D11:
		return "D3D11"
	case wgpu.BackendTypeOpenGL:
		return "OpenGL"
	case wgpu.BackendTypeOpenGLES:
		return "OpenGL ES"
	}
	return b.String()
}

// wgpuVersion is wgpu-native's version, "29.0.1.1".
func wgpuVersion() string {
	var v uint32
	_ = protect("version", func() error { v = uint32(wgpu.GetVersion()); return nil })
	return fmt.Sprintf("%d.%d.%d.%d", v>>24, v>>16&0xff, v>>8&0xff, v&0xff)
}
