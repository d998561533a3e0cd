// Package all links every anygpu backend into a program:
//
//	import _ "github.com/anygpu/gpu/backend/all"
//
// Each backend only registers itself here; native libraries are opened when a
// backend is first probed, so linking them all costs nothing on a machine that
// lacks them. The CPU backend is linked by the root package in any case.
package all

import (
	_ "github.com/anygpu/gpu/backend/cpu"    // always available
	_ "github.com/anygpu/gpu/backend/cuda"   // NVIDIA GPUs through the CUDA driver API and NVRTC
	_ "github.com/anygpu/gpu/backend/metal"  // Apple GPUs through the Objective-C runtime (darwin)
	_ "github.com/anygpu/gpu/backend/opengl" // OpenGL 4.3 compute through headless EGL
	_ "github.com/anygpu/gpu/backend/sim"    // simulated devices, active only with ANYGPU_FAKE
	_ "github.com/anygpu/gpu/backend/vulkan" // Vulkan 1.1+ compute through the loader (libvulkan)
	_ "github.com/anygpu/gpu/backend/webgpu" // WebGPU through wgpu-native (needs cgo; "not compiled" without)
)
