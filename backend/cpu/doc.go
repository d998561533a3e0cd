// Package cpu is the CPU backend: always available, and the device
// github.com/anygpu/gpu falls back to when a machine has no usable GPU.
//
// Buffers are 64-byte-aligned host memory. Each stream is a FIFO executed in
// order by its own goroutine; events carry monotonic timestamps. Kernels are Go
// functions (Source.Go) run one work group per call, the groups of a launch
// spread over every core. Large copies and fills are split across cores as
// well, since one core cannot saturate memory bandwidth.
//
// The package registers itself as "cpu"; the root package imports it, so the
// CPU device is there in every program.
package cpu
