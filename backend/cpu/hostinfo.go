package cpu

import (
	"fmt"
	"github.com/anygpu/gpu/internal/units"
	"runtime"
	"sync"

	"github.com/anygpu/gpu/backend"
)

// host is what the operating system tells about the machine; zero fields are
// unknown on this platform.
type host struct {
	model, vendor string
	mhz           int
	memTotal      int64
	l2, l3        int64
	features      []string
}

var (
	hostOnce   sync.Once
	hostCached host
)

func hostInfo() backend.DeviceInfo {
	hostOnce.Do(func() { hostCached = readHost() })
	h := hostCached
	cores := runtime.NumCPU()
	name := h.model
	if name == "" {
		name = fmt.Sprintf("%s/%s CPU", runtime.GOOS, runtime.GOARCH)
	}
	info := backend.DeviceInfo{
		Backend:            Name,
		Name:               name,
		Vendor:             h.vendor,
		Type:               backend.TypeCPU,
		DriverVersion:      runtime.Version(),
		Units:              cores,
		ClockMHz:           h.mhz,
		MemoryBytes:        h.memTotal,
		L2CacheBytes:       h.l2,
		MaxThreadsPerBlock: 1024,
		MaxBlockDim:        backend.Dim3{X: 1024, Y: 1024, Z: 64},
		MaxGridDim:         backend.Dim3{X: 1<<31 - 1, Y: 65535, Z: 65535},
		UnifiedMemory:      true,
		UnifiedAddressing:  true,
		ConcurrentKernels:  true,
		FP64:               true,
		TimestampPeriodNs:  1,
		Features:           h.features,
		Extra: map[string]string{
			"goos":       runtime.GOOS,
			"goarch":     runtime.GOARCH,
			"gomaxprocs": fmt.Sprint(runtime.GOMAXPROCS(0)),
		},
	}
	if h.l3 > 0 {
		info.Extra["l3_cache"] = units.ByteSize(h.l3)
	}
	if info.MemoryBytes == 0 {
		// Unknown platform: report what the Go runtime can address as a
		// conservative stand-in, so size checks still have a bound.
		info.MemoryBytes = 1 << 40
		info.Extra["memory"] = "unknown on this platform"
	}
	return info
}
