package kernels

// spirvModule and spirvKernels are the built-in ops as SPIR-V for Vulkan (one
// module with an entry point per op, or one module per op), generated from
// GLSL by `go generate` with glslc and committed; filled by the Vulkan
// backend's issue. Empty until then.
var (
	spirvModule  []byte
	spirvKernels map[string][]byte
)
