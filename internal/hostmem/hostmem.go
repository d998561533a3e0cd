// Package hostmem reads how much memory the host has: the fields of
// Linux's /proc/meminfo, which the CPU backend and the backends of
// software and integrated devices report as their memory. On other
// systems every figure is 0 (unknown).
package hostmem

import (
	"os"
	"strconv"
	"strings"
)

// meminfoPath is the file the figures come from; tests point it elsewhere.
var meminfoPath = "/proc/meminfo"

// Field returns the /proc/meminfo field name ("MemTotal", "MemAvailable")
// in bytes, 0 when it is absent or cannot be read.
func Field(name string) int64 {
	data, err := os.ReadFile(meminfoPath)
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

// Total is the host's physical memory in bytes (MemTotal), 0 if unknown.
func Total() int64 { return Field("MemTotal") }

// Available is what the host can allocate without swapping, in bytes
// (MemAvailable), 0 if unknown.
func Available() int64 { return Field("MemAvailable") }
