//go:build cgo

package webgpu

import (
	"os"

	"github.com/anygpu/gpu/backend"
)

// EnvD2D picks how Stream.Copy moves large blocks of whole vec4s between
// two buffers: "kernel" (the vec4 copy kernel, the default on GPUs) or
// "copy" (the queue's copy command, the default on software adapters). It
// is read when a device opens; DeviceInfo.Extra["d2d"] says which one the
// device uses.
const EnvD2D = "ANYGPU_WEBGPU_D2D"

// d2dKernel reports whether a device of type ty copies vec4 blocks with the
// copy kernel, as EnvD2D asks or else by default.
func d2dKernel(ty backend.DeviceType) bool {
	switch os.Getenv(EnvD2D) {
	case "kernel":
		return true
	case "copy":
		return false
	}
	return ty != backend.TypeSoftware
}

// d2dName describes the way Copy moves vec4 blocks, for DeviceInfo.Extra.
func d2dName(kernel bool) string {
	if kernel {
		return "copy kernel"
	}
	return "copy command"
}
