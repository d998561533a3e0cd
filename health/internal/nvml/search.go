package nvml

import (
	"path/filepath"
	"runtime"

	"github.com/anygpu/gpu/internal/dl"
)

// EnvLibrary names an explicit NVML library to load instead of searching.
const EnvLibrary = "ANYGPU_NVML_LIBRARY"

// Candidates lists what Load tries, in order, on system env.GOOS:
//
//  1. ANYGPU_NVML_LIBRARY, alone when set;
//  2. the driver's library by name, for the system's own search:
//     libnvidia-ml.so.1 (the NVIDIA driver installs it; the unversioned
//     libnvidia-ml.so is the CUDA toolkit's stub) or nvml.dll;
//  3. where drivers put it outside that search: /usr/lib/wsl/lib under
//     WSL; on Windows %ProgramW6432%\NVIDIA Corporation\NVSMI (older
//     drivers) and %WINDIR%\System32.
//
// Directory candidates are listed only when the file exists.
func Candidates(env dl.Env) []string {
	if env.GOOS == "windows" {
		return env.Search(EnvLibrary, []string{"nvml.dll"}, func() []string {
			return append(env.EnvDirs([]string{"ProgramW6432", "ProgramFiles"}, filepath.Join("NVIDIA Corporation", "NVSMI")),
				env.EnvDirs([]string{"WINDIR"}, "System32")...)
		})
	}
	return env.Search(EnvLibrary, []string{"libnvidia-ml.so.1"}, func() []string {
		return []string{filepath.Join(env.Root, "/usr/lib/wsl/lib")}
	})
}

// Unavailable is why NVML cannot exist on system goos, "" where it can:
// NVIDIA ships it with its Linux, FreeBSD and Windows drivers.
func Unavailable(goos string) string {
	switch {
	case !dl.Supported:
		return dl.Unsupported("NVML", goos)
	case goos == "linux" || goos == "freebsd" || goos == "windows":
		return ""
	}
	return dl.Unsupported("NVML", goos)
}

// System is the search environment of this process.
func System(getenv func(string) string) dl.Env {
	return dl.Env{GOOS: runtime.GOOS, Getenv: getenv}
}
