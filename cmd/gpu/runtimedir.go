package main

import (
	"os"
	"path/filepath"
	"runtime"
)

// privateRuntimeDir gives the process a usable XDG_RUNTIME_DIR when it has
// none, before any backend loads a driver. Mesa's Vulkan, EGL and WebGPU
// drivers connect to Wayland through libwayland-client, which prints
// "error: XDG_RUNTIME_DIR is invalid or not set in the environment." on
// stderr for every probe when the variable is unset or not an absolute
// path (in containers, over ssh, in CI): four lines before `gpu info`
// says anything. The CLI draws nothing, so an empty private directory
// (mode 0700, as the XDG spec wants) is all it needs: the drivers find no
// compositor there and say nothing. A value that names an existing
// directory is left alone. It returns the function that removes the
// directory it made (a no-op when it made none).
func privateRuntimeDir() (cleanup func()) {
	noop := func() {}
	if runtime.GOOS != "linux" && runtime.GOOS != "freebsd" {
		return noop
	}
	if d := os.Getenv("XDG_RUNTIME_DIR"); filepath.IsAbs(d) {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			return noop
		}
	}
	dir, err := os.MkdirTemp("", "gpu-runtime-")
	if err != nil {
		return noop
	}
	os.Setenv("XDG_RUNTIME_DIR", dir)
	return func() { os.RemoveAll(dir) }
}
