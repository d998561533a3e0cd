package health

import (
	"strconv"
	"strings"

	"github.com/anygpu/gpu/backend"
)

// Find returns the NVML device that is the device info describes (a
// gpu.Device's Info), matched by UUID, else by PCI bus id: CUDA reports
// both, Vulkan both for NVIDIA GPUs. A device that has neither (OpenGL,
// WebGPU, a software renderer) or that NVML does not list is not found:
// NVML's indices need not match another API's ordinals, so Find does not
// guess by ordinal.
func (m *Monitor) Find(info backend.DeviceInfo) (Device, bool) {
	if m == nil {
		return Device{}, false
	}
	if u := normalUUID(info.UUID); u != "" {
		for _, d := range m.devs {
			if normalUUID(d.UUID) == u {
				return d, true
			}
		}
	}
	if b, ok := normalBusID(info.PCIBus); ok {
		for _, d := range m.devs {
			if nb, ok := normalBusID(d.PCIBusID); ok && nb == b {
				return d, true
			}
		}
	}
	return Device{}, false
}

// normalUUID is a UUID without NVML's and CUDA's "GPU-" prefix, in lower
// case: Vulkan writes the same 16 bytes bare.
func normalUUID(u string) string {
	u = strings.ToLower(strings.TrimSpace(u))
	return strings.TrimPrefix(u, "gpu-")
}

// busID is a PCI address.
type busID struct{ domain, bus, device, function uint64 }

// normalBusID parses "domain:bus:device.function" in hex, whatever the
// width of its domain: NVML writes "00000000:3B:00.0", CUDA and Vulkan
// "0000:3b:00.0".
func normalBusID(s string) (busID, bool) {
	parts := strings.Split(strings.TrimSpace(s), ":")
	if len(parts) != 3 {
		return busID{}, false
	}
	devFn := strings.Split(parts[2], ".")
	if len(devFn) != 2 {
		return busID{}, false
	}
	var v [4]uint64
	for i, p := range []string{parts[0], parts[1], devFn[0], devFn[1]} {
		n, err := strconv.ParseUint(p, 16, 32)
		if err != nil {
			return busID{}, false
		}
		v[i] = n
	}
	return busID{v[0], v[1], v[2], v[3]}, true
}
