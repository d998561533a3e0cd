package kernels

// glslSource is the built-in ops in GLSL 430 for OpenGL (scalars in a uniform block at binding n); filled by the OpenGL backend's issue.
// Empty until then: a backend given an empty dialect reports NotSupported.
const glslSource = ""
