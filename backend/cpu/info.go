package cpu

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/internal/hostmem"
	"github.com/anygpu/gpu/internal/units"
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

// interestingFeatures are the /proc/cpuinfo flags worth showing a user who
// tunes numeric code.
var interestingFeatures = []string{
	"sse4_2", "avx", "avx2", "fma", "f16c", "avx512f", "avx512bw", "avx512vl", "avx512_bf16", "avx512_fp16",
	"amx_tile", "amx_bf16", "asimd", "fphp", "asimdhp", "sve", "sve2", "bf16", "i8mm",
}

// readHost reads /proc and /sys on Linux; elsewhere every field is unknown.
func readHost() host {
	var h host
	if runtime.GOOS != "linux" {
		return h
	}
	if data, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		parseCPUInfo(data, &h)
	}
	h.memTotal = hostmem.Total()
	for _, idx := range []string{"index2", "index3"} {
		dir := filepath.Join("/sys/devices/system/cpu/cpu0/cache", idx)
		size := parseCacheSize(readTrim(filepath.Join(dir, "size")))
		switch readTrim(filepath.Join(dir, "level")) {
		case "2":
			h.l2 = size
		case "3":
			h.l3 = size
		}
	}
	if h.mhz == 0 {
		if khz, err := strconv.Atoi(readTrim("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq")); err == nil {
			h.mhz = khz / 1000
		}
	}
	return h
}

func parseCPUInfo(data []byte, h *host) {
	flags := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		key, val, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		key, val = strings.TrimSpace(key), strings.TrimSpace(val)
		switch key {
		case "model name", "Model", "cpu model":
			if h.model == "" {
				h.model = val
			}
		case "vendor_id", "CPU implementer":
			if h.vendor == "" {
				h.vendor = val
			}
		case "cpu MHz":
			if h.mhz == 0 {
				if f, err := strconv.ParseFloat(val, 64); err == nil {
					h.mhz = int(f + 0.5)
				}
			}
		case "flags", "Features":
			if len(flags) == 0 {
				for _, f := range strings.Fields(val) {
					flags[f] = true
				}
			}
		}
	}
	for _, f := range interestingFeatures {
		if flags[f] && !slices.Contains(h.features, f) {
			h.features = append(h.features, f)
		}
	}
}

func readTrim(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// parseCacheSize reads sysfs cache sizes such as "2048K" or "32M".
func parseCacheSize(s string) int64 {
	if s == "" {
		return 0
	}
	mult := int64(1)
	switch s[len(s)-1] {
	case 'K':
		mult, s = 1<<10, s[:len(s)-1]
	case 'M':
		mult, s = 1<<20, s[:len(s)-1]
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0
	}
	return n * mult
}

// availableMemory is what the kernel says can be allocated without swapping.
func availableMemory() int64 {
	if runtime.GOOS != "linux" {
		return 0 // unknown: the device falls back to total minus live
	}
	return hostmem.Available()
}
