//go:build cgo

package webgpu

import (
	"os"

	"github.com/oliverbestmann/webgpu/wgpu"
)

// EnvUpload picks the usage, and so the memory, of the upload buffers
// large writes go through: "write" (the default: MAP_WRITE | COPY_SRC) or
// "readwrite" (MAP_READ | MAP_WRITE | COPY_SRC, through wgpu-native's
// mappable-primary-buffers feature, where the adapter has it). wgpu
// chooses a buffer's memory from its usage: for a write-only mappable
// buffer its allocator may prefer memory on the device that the host
// writes across the bus (a BAR), for a readable one host memory, which the
// device's copy engine reads at the bus's full speed. It is read when a
// device opens; DeviceInfo.Extra["upload"] names the usage in use.
const EnvUpload = "ANYGPU_WEBGPU_UPLOAD"

// uploadReadWrite reports whether the upload buffers should also be
// mappable for reading, as EnvUpload asks, on an adapter that has
// mappable primary buffers.
func uploadReadWrite(e adapterEntry) bool {
	return os.Getenv(EnvUpload) == "readwrite" && e.has(wgpu.NativeFeatureMappablePrimaryBuffers)
}

// uploadUsage is the usage of upload buffers, readable too when readWrite.
func uploadUsage(readWrite bool) wgpu.BufferUsage {
	if readWrite {
		return wgpu.BufferUsageMapRead | wgpu.BufferUsageMapWrite | wgpu.BufferUsageCopySrc
	}
	return wgpu.BufferUsageMapWrite | wgpu.BufferUsageCopySrc
}

// uploadName describes the upload buffers' usage, for DeviceInfo.Extra.
func uploadName(readWrite bool) string {
	if readWrite {
		return "MAP_READ|MAP_WRITE|COPY_SRC"
	}
	return "MAP_WRITE|COPY_SRC"
}
