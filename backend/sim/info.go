package sim

import (
	"context"
	"crypto/sha1"
	"fmt"
	"runtime"
	"sync"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/backend/cpu"
)

// Info returns the preset's DeviceInfo.
func (d *device) Info() backend.DeviceInfo {
	info := d.info
	info.Extra = make(map[string]string, len(d.info.Extra))
	for k, v := range d.info.Extra {
		info.Extra[k] = v
	}
	info.Features = append([]string(nil), d.info.Features...)
	return info
}

var (
	hostOnce sync.Once
	hostDev  backend.DeviceInfo
)

// host is what the CPU backend reports about this machine.
func host() backend.DeviceInfo {
	hostOnce.Do(func() {
		devs, err := cpu.Driver{}.Probe(context.Background())
		if err == nil && len(devs) > 0 {
			hostDev = devs[0]
		}
		if hostDev.Units <= 0 {
			hostDev.Units = runtime.NumCPU()
		}
		if hostDev.MemoryBytes <= 0 {
			hostDev.MemoryBytes = 1 << 40
		}
	})
	return hostDev
}

// build returns the preset's DeviceInfo as device ordinal of backendName,
// marked simulated, with f recorded in Extra when it has any fault.
func (p preset) build(backendName string, ordinal int, f Faults) backend.DeviceInfo {
	d := p.info()
	d.Backend, d.Ordinal = backendName, ordinal
	d.UUID, d.PCIBus = identity(backendName, p.name, ordinal, d.Type)
	if p.software {
		// A software driver runs on the host's cores and memory.
		h := host()
		d.Units, d.MemoryBytes = h.Units, h.MemoryBytes
	}
	extra := make(map[string]string, len(d.Extra)+3)
	for k, v := range d.Extra {
		extra[k] = v
	}
	extra["simulated"] = "true"
	extra["preset"] = p.name
	if s := f.String(); s != "" {
		extra["faults"] = s
	}
	d.Extra = extra
	d.Features = append([]string(nil), d.Features...)
	return d
}

// identity gives a simulated device a UUID and, for a discrete GPU, a PCI
// address, as real devices have: stable for a backend, preset and ordinal,
// and different for different devices. The UUID is an RFC 4122 name-based
// (SHA-1) UUID; CUDA's carries NVIDIA's "GPU-" prefix.
func identity(backendName, presetName string, ordinal int, t backend.DeviceType) (uuid, pciBus string) {
	sum := sha1.Sum([]byte(fmt.Sprintf("anygpu/sim %s %s %d", backendName, presetName, ordinal)))
	sum[6] = sum[6]&0x0f | 0x50
	sum[8] = sum[8]&0x3f | 0x80
	uuid = fmt.Sprintf("%x-%x-%x-%x-%x", sum[0:4], sum[4:6], sum[6:8], sum[8:10], sum[10:16])
	if backendName == "cuda" {
		uuid = "GPU-" + uuid
	}
	if t == backend.TypeDiscreteGPU {
		pciBus = fmt.Sprintf("0000:%02x:00.0", ordinal+1)
	}
	return uuid, pciBus
}
