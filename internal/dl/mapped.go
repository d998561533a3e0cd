package dl

import (
	"os"
	"path/filepath"
	"strings"
)

// MappedFile is the path of the first file mapped into the process whose
// base name starts with prefix ("libnvrtc.so"): the file a library opened
// by its soname came from. It is "" when there is none, or where
// /proc/self/maps cannot be read (systems other than Linux).
func MappedFile(prefix string) string {
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(maps), "\n") {
		f := strings.Fields(line)
		if len(f) < 6 {
			continue
		}
		if p := f[len(f)-1]; strings.HasPrefix(filepath.Base(p), prefix) {
			return p
		}
	}
	return ""
}
