package kernels

// cudaSource is the built-in ops in CUDA C++ (NVRTC); filled by the CUDA backend's issue.
// Empty until then: a backend given an empty dialect reports NotSupported.
const cudaSource = ""
