package kernels

// wgslSource is the built-in ops in WGSL for WebGPU; filled by the WebGPU backend's issue.
// Empty until then: a backend given an empty dialect reports NotSupported.
const wgslSource = ""
