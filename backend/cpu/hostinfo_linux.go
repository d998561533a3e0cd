//go:build linux

package cpu

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// interestingFeatures are the /proc/cpuinfo flags worth showing a user who
// tunes numeric code.
var interestingFeatures = []string{
	"sse4_2", "avx", "avx2", "fma", "f16c", "avx512f", "avx512bw", "avx512vl", "avx512_bf16", "avx512_fp16",
	"amx_tile", "amx_bf16", "asimd", "fphp", "asimdhp", "sve", "sve2", "bf16", "i8mm",
}

func readHost() host {
	var h host
	if data, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		parseCPUInfo(data, &h)
	}
	h.memTotal = meminfoField("MemTotal")
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

// meminfoField returns a /proc/meminfo field in bytes (0 if absent).
func meminfoField(name string) int64 {
	data, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		key, val, ok := strings.Cut(line, ":")
		if !ok || key != name {
			continue
		}
		fields := strings.Fields(val)
		if len(fields) == 0 {
			return 0
		}
		n, err := strconv.ParseInt(fields[0], 10, 64)
		if err != nil {
			return 0
		}
		if len(fields) > 1 && fields[1] == "kB" {
			n <<= 10
		}
		return n
	}
	return 0
}

// availableMemory is what the kernel says can be allocated without swapping.
func availableMemory() int64 { return meminfoField("MemAvailable") }
