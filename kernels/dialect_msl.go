package kernels

// mslSource is the built-in ops in Metal Shading Language; filled by the Metal backend's issue.
// Empty until then: a backend given an empty dialect reports NotSupported.
const mslSource = ""
