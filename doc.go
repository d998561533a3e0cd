// Package gpu is one Go API over every GPU a machine has.
//
// A program calls Open and gets the best device present — CUDA, Metal,
// Vulkan, WebGPU, OpenGL — or the CPU device when there is none, with the same
// buffers, streams, events, kernels, memory pools and profiler on all of them:
//
//	dev, err := gpu.Open(ctx)
//	if err != nil { ... }
//	defer dev.Close()
//	x, _ := gpu.FromSlice(ctx, dev, []float32{1, 2, 3})
//
// # Selection
//
// Open tries backends in the order cuda, metal, vulkan, webgpu, opengl, cpu
// (DefaultOrder), probing them concurrently, and opens the first one that has
// the requested device. The CPU backend is always compiled in: if no GPU
// backend works, Open returns the CPU device and logs one warning listing every
// backend's reason; WithFallback(false) makes that an error of category
// Unavailable. Other backends are linked in by importing them, usually all at
// once with
//
//	import _ "github.com/anygpu/gpu/backend/all"
//
// Probe reports every backend's state (available, no devices, unavailable, not
// compiled) with a reason and a hint; `go run ./cmd/gpu info` prints it.
//
// # Environment
//
// Open and Probe read:
//
//	ANYGPU_BACKEND        comma-separated backends to try, in order ("vulkan,cpu")
//	ANYGPU_DEVICE         device ordinal within the chosen backend (default 0)
//	ANYGPU_FAKE           simulated devices for tests, e.g. "cuda:h100,vulkan:rtx4090" (needs backend/sim)
//
// Backend names match ignoring case. A malformed value (an unknown backend, an
// ordinal that is not 0, 1, ...) makes Open fail with an InvalidArgument error
// naming the variable, its value and what is accepted, with a guess for a
// near miss; Probe reports it as every backend's reason.
//
// The backends they open read, each documented with its package:
//
//	ANYGPU_CACHE_DIR      kernel cache directory (default: os.UserCacheDir()/anygpu)
//	ANYGPU_CUDA_LIBRARY, ANYGPU_NVRTC_LIBRARY, ANYGPU_VULKAN_LIBRARY, ANYGPU_EGL_LIBRARY
//	                      explicit native library paths
//	ANYGPU_CUDA_INCLUDE   CUDA header directories for NVRTC (a path list; default: searched)
//	ANYGPU_CUBLASLT_LIBRARY the cuBLASLt library of Stream.MatMul on CUDA (default: searched)
//	ANYGPU_SUBGROUPS      off: kernels' portable variant (subgroups of one thread) on Vulkan, OpenGL, WebGPU
//	ANYGPU_METAL_STORAGE  Metal buffer storage: shared, private or auto (default)
//	ANYGPU_OPENGL_API     OpenGL context: gl (desktop 4.3), gles (ES 3.1) or auto (default: gl, else gles)
//
// A profiler (WithProfiler) reads ANYGPU_NVTX_LIBRARY, the NVTX library its
// ranges are also sent to (package profiling); package health reads
// ANYGPU_NVML_LIBRARY, the NVML library it samples the GPUs through.
//
// # Several devices
//
// OpenAll opens every device of the first usable backend; each Device keeps
// its own pools, streams, statistics and error history, and may be driven
// from its own goroutine. OpenAll enables peer access between devices that
// can reach each other (DeviceInfo.Peers, Device.IsPeer).
//
// A stream takes only its own device's buffers and kernels, with two
// exceptions, Copy's source and Wait's event: a buffer or kernel of another
// device anywhere else is refused with InvalidArgument (compile a Source on
// each device that runs it), and Event.Elapsed refuses events of two devices,
// which share no clock. Between devices:
//
//   - Stream.Copy is issued on a stream of the destination's device (a
//     stream of the source's device refuses the destination) and takes a
//     source buffer of another device. It goes peer to peer where the backend
//     can (CUDA: cuMemcpyPeerAsync, over NVLink or PCIe between peers, staged
//     by the driver otherwise), else Copy stages it through host memory
//     itself, synchronously (devices of two backends, or a backend without
//     peer copies; counted in Stats.Fallbacks). A peer copy is ordered on the
//     destination stream only: order it after the work that wrote the source
//     with an event of the source device (below), and record an event after
//     it before the source device overwrites the source.
//   - Stream.Wait takes an event of another device, of any backend: on the
//     device where the backend can (CUDA: cuStreamWaitEvent across
//     contexts), else Wait blocks the caller until the event completes
//     (counted in Stats.Fallbacks), which orders the work just the same.
//
// Staged copies, host waits, the CPU fallback and selection (each backend
// passed over and why, the one chosen) are logged at debug level through the
// logger of WithLogger (slog.Default otherwise), as are compiles with their
// durations. Collectives over several devices (all-reduce, broadcast, ...)
// are in package github.com/anygpu/gpu/collective, over NCCL.
//
// # Memory and streams
//
// Device.Alloc serves buffers from a pool of power-of-two size classes
// (PoolConfig; DefaultPool, HighThroughputPool, LowMemoryPool). A Stream is an
// ordered queue: Write, Read, Copy, Fill and Launch enqueue and return.
// Write's source may be reused when it returns; Read's destination is valid
// after the stream (or an event recorded after it) is synchronized. Events
// order streams against each other (Stream.Wait) and time work (Event.Elapsed).
//
// # Graphs
//
// Work that repeats (one decode step of a model) can be recorded once and
// replayed with one call: between Stream.BeginCapture and Stream.EndCapture,
// Launch, LaunchWith, Copy, Fill and MatMul on the stream are checked and
// recorded instead of run; Graph.Launch replays them on any stream of the
// device, with the arguments they were recorded with. On CUDA the driver
// captures the stream into a CUDA graph and a replay is one cuGraphLaunch
// (Graph.Native); elsewhere, and with a driver that lacks the graph entry
// points, the package records the backend calls and replays them in order,
// with the same results. A capturing stream refuses, with InvalidArgument,
// what a graph cannot hold: host transfers (Write, Read, WriteHost,
// ReadHost, a Copy from another device), Record, Wait and Synchronize. A
// graph holds the buffers it uses: one closed while the graph is open goes
// back to the pool only when the graph closes. Each replay counts the
// graph's kernels in Stats.KernelLaunches and one Stats.GraphLaunches.
//
// # Kernels
//
// A Source carries one program in several dialects (CUDA C++, SPIR-V, GLSL,
// WGSL, MSL, Go); a backend compiles the one it runs. Write a kernel once, in
// Go, with package github.com/anygpu/gpu/kernel: `go generate` (gpu kernels)
// or kernel.Translate makes every dialect of it. Arguments follow one
// portable ABI: buffers bind at 0..n-1 in argument order, scalars pack in order
// into one parameter block. Source.Params declares each entry point's
// parameters, so every backend rejects a wrong argument list the same way.
//
// # Errors
//
// Every error carries a category from github.com/anygpu/gpu/errors
// (errors.Is(err, errors.OutOfMemory)) and a recovery hint (errors.Hint). A
// fatal error (a sticky CUDA fault, a lost device) makes the device fail fast
// with DeviceLost until it is closed and reopened. Nothing panics on bad
// input; every Close is idempotent, and use after Close is category Closed.
//
// # Build tags
//
// The library builds with CGO_ENABLED=0: native libraries are opened at run
// time. The WebGPU backend needs cgo and reports "not compiled" without it.
package gpu
