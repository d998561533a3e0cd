//go:build (darwin || freebsd || linux || netbsd || windows) && (amd64 || arm64)

package vulkan

import (
	_ "embed"
	"os"
	"strings"

	"github.com/anygpu/gpu/backend"
)

// The backend's own kernels, GLSL in shaders/, SPIR-V generated and
// committed:
//
//go:generate glslc --target-env=vulkan1.1 -O -o shaders/copy16.spv shaders/copy16.comp
//go:generate spirv-val --target-env vulkan1.1 shaders/copy16.spv

//go:embed shaders/copy16.spv
var copy16SPIRV []byte

// EnvD2D chooses how Stream.Copy moves large blocks within a device:
// "kernel" (a compute kernel moving 16-byte words, for copies whose offsets
// and size are multiples of 16) or "copy" (vkCmdCopyBuffer).
const EnvD2D = "ANYGPU_VULKAN_D2D"

// copyKernelMin is the smallest copy the copy kernel takes.
const copyKernelMin = 1 << 20

// d2dKernelDefault is the D2D method when EnvD2D is unset: the kernel, as
// vkCmdCopyBuffer moved 424 GB/s on an H200 where the kernel moved 2118 GB/s.
const d2dKernelDefault = true

// internalKernels builds the backend's own kernels (before the device is
// shared, so without d.mu).
func (d *device) internalKernels() error {
	use := d2dKernelDefault
	switch strings.ToLower(os.Getenv(EnvD2D)) {
	case "kernel":
		use = true
	case "copy":
		use = false
	}
	if !use {
		return nil
	}
	m, err := d.compile(backend.Source{Name: "copy16", SPIRV: copy16SPIRV}, backend.CompileOptions{}, "compile the copy kernel")
	if err != nil {
		return err
	}
	d.copy16 = m.kernels["main"]
	return nil
}
