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
//
// Like every backend it trusts the root package's checks (offsets and sizes
// in range, its own open buffers, events and kernels, each object closed
// once) and checks only what the host decides: memory it can spare, Go entry
// points, kernels that panic.
//
// # Files
//
// The files follow the backends' common map: driver.go (registration, Probe,
// Open), device.go, memory.go (buffers and allocation), stream.go, event.go,
// module.go (Go entry points and running a launch's groups), errors.go (a
// kernel panic as an Execution error) and info.go (the host's DeviceInfo,
// from /proc and /sys on Linux). One file is the CPU backend's own:
// parallel.go spreads a launch's groups, and large copies and fills, over the
// cores.
package cpu
