//go:build cgo

package webgpu

import (
	"os"

	"github.com/oliverbestmann/webgpu/wgpu"
)

// EnvUpload picks the usage, and so the memory, of the upload buffers
// large writes go through: "readwrite" (the default where the adapter has
// wgpu-native's mappable primary buffers: MAP_READ | MAP_WRITE | COPY_SRC)
// or "write" (MAP_WRITE | COPY_SRC, WebGPU's own staging usage, the default
// elsewhere). wgpu chooses a buffer's memory from its usage: a write-only
// mappable buffer may get write-combined memory, or memory on the device
// that the host writes across the bus, while a readable one gets cached
// host memory, which the host fills at its memory's speed and the device's
// copy reads at the bus's. It is read when a device opens;
// DeviceInfo.Extra["upload"] names the usage in use.
const EnvUpload = "ANYGPU_WEBGPU_UPLOAD"

// uploadReadWrite reports whether the upload buffers are also mappable for
// reading: on an adapter with mappable primary buffers, unless EnvUpload
// asks for "write".
func uploadReadWrite(e adapterEntry) bool {
	return os.Getenv(EnvUpload) != "write" && e.has(wgpu.NativeFeatureMappablePrimaryBuffers)
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
