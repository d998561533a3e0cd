// Package backend is the service-provider interface of anygpu: what a backend
// (CUDA, Vulkan, OpenGL, WebGPU, Metal, CPU, ...) implements so the root package
// github.com/anygpu/gpu can drive it, in the way database/sql/driver serves
// database/sql.
//
// Backends register a Driver from init() and do nothing else there: no library
// is opened, nothing is printed. The root package does argument checking,
// closed-state tracking, pooling, accounting and profiling before calling into a
// backend, so a backend may assume that offsets and sizes are in range, that
// buffers passed to it are its own and open, and that kernel arguments match the
// kernel's declared parameters where the Source declares them.
//
// Optional capabilities are discovered by type assertion: MemInfoer,
// PeerCopier, NativeHandle, KernelAttributer, HostMemory.
package backend
