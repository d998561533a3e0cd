// Package sim simulates GPUs, for testing device selection and failure
// handling on machines without them. A simulated device presents itself as a
// device of another backend — a CUDA H100, a Vulkan RTX 4090, a Metal M2 Max
// — with that device's real DeviceInfo, and executes on the CPU: it is the
// CPU backend's device (cpu.OpenInfo) underneath, so buffers hold real data
// and Go kernels (Source.Go) compute real results.
//
// Importing the package registers one driver, "sim", and does nothing else:
//
//	import _ "github.com/anygpu/gpu/backend/sim"
//
// The "sim" driver has no devices of its own; its Probe reports Unavailable
// with a reason that says how to configure simulated devices. It implements
// backend.Simulator: when ANYGPU_FAKE (or gpu.WithFake) names a backend, the
// root package asks it for a driver that stands in for that backend, with one
// device per listed preset. Tests can also build such a driver directly with
// NewDriver and open it with gpu.OpenDriver.
//
// # ANYGPU_FAKE
//
// ANYGPU_FAKE is a comma-separated list of entries, each naming a backend and
// one simulated device of it; entries of the same backend become its devices
// 0, 1, ... in order:
//
//	ANYGPU_FAKE=cuda:h100,cuda:a100,vulkan:rx7900xtx
//
// The part after the colon (what Simulate, NewDriver and ParseSpec receive)
// has this grammar; names and keywords are case-insensitive, spaces around
// tokens are ignored:
//
//	spec   = [preset] { "+" fault }
//	preset = a preset name of the backend (see below); empty: the default
//	fault  = "oom@" N          the Nth allocation fails with OutOfMemory, once
//	       | "oom%" N          every Nth allocation fails with OutOfMemory
//	       | "memlimit=" SIZE  device allocations beyond SIZE live bytes fail
//	       | "nocompile"       every Compile fails with a Compilation error and log
//	       | "lose@" N         launch N+1 loses the device (fatal DeviceLost)
//	       | "unavailable" [ "=" REASON ]   the backend's Probe and Open fail
//	N      = a decimal count, at least 1
//	SIZE   = a number with an optional unit: B, KiB, MiB, GiB, TiB (also K,
//	         M, G, T) are powers of 1024; KB, MB, GB, TB powers of 1000
//	         ("1GiB", "512MiB", "1.5G", "1048576")
//	REASON = any text without "+" or ","
//
// When the spec starts with a fault, the preset is the default one:
// "cuda:unavailable" is "cuda:+unavailable". Examples:
//
//	cuda:h100+oom@3+lose@10+nocompile+memlimit=1GiB
//	vulkan:rtx4090+unavailable
//	cuda:a100+unavailable=driver 470 is too old
//
// A malformed spec (unknown preset, unknown or repeated fault, bad count or
// size) is an InvalidArgument error that names the bad token and lists the
// known presets and faults. The Faults type documents each fault's exact
// behaviour; faults are counted per opened device.
//
// "unavailable" applies to the whole simulated backend (Probe is one call
// for all its devices): if any entry of a backend has it, that backend
// reports Unavailable with the reasons given, and Open moves on to the next
// backend or falls back to the CPU. A reason-less "unavailable" reports the
// usual cause on a machine without the backend ("libcuda.so.1: cannot open
// shared object file ...") marked "(simulated)".
//
// # Presets
//
//	cuda     h100 (default; SXM5 80 GB HBM3), h200, a100 (SXM4 80 GB), rtx4090, t4, l4
//	vulkan   rtx4090 (default), rx7900xtx (RADV), arc-a770 (ANV), lavapipe (software)
//	opengl   rtx4090 (default), llvmpipe (software)
//	webgpu   rtx4090 (default), lavapipe (software)
//	metal    m2-max (default; 38-core GPU, 64 GB), m3-pro (18-core GPU, 36 GB)
//
// Each preset reports what the real device reports through that API —
// compute capability, SMs, clocks, memory and bus width, L2, per-block and
// per-SM limits, copy engines, ECC, FP16/BF16/FP8 support for CUDA; the
// compute limits and subgroup size for Vulkan, OpenGL and WebGPU; the
// threadgroup limits and working-set size for Metal — and leaves zero what
// that API cannot tell, as a real backend does. Software presets (lavapipe,
// llvmpipe) report the host's cores and memory. Each simulated device gets a
// UUID (and a discrete GPU a PCI address) that is stable for its backend,
// preset and ordinal and differs between devices. Every preset sets
// Extra["simulated"] = "true" and Extra["preset"] to its name, and
// Extra["faults"] when it injects any. PresetInfo returns a preset's
// DeviceInfo; Presets and DefaultPreset list them.
//
// # Memory
//
// A simulated device reports its preset's memory (85 GB for an H100), but its
// allocations really come from host RAM. The CPU device underneath refuses
// what the host cannot hold (host memory available, checked for large
// requests), so allocating what the preset promises can still fail with
// OutOfMemory on a small machine; such a failure is reported with the
// simulated backend's native code. Use memlimit= for a deterministic limit.
//
// # Errors
//
// Errors read like the simulated backend's: a simulated CUDA out-of-memory is
// errors.FromCUDA's CUDA_ERROR_OUT_OF_MEMORY (code 2, Retryable), a lost
// CUDA device is CUDA_ERROR_LAUNCH_FAILED (719) with Fatal set and category
// DeviceLost, a failed CUDA compile is NVRTC_ERROR_COMPILATION with an NVRTC
// program log; Vulkan uses VK_ERROR_OUT_OF_DEVICE_MEMORY,
// VK_ERROR_OUT_OF_HOST_MEMORY and VK_ERROR_DEVICE_LOST, OpenGL
// GL_OUT_OF_MEMORY and GL_CONTEXT_LOST, WebGPU its error types and
// device-lost reasons, Metal its command-buffer and library errors. Messages
// of injected failures say "simulated" and name the fault. Once a device is
// lost, every stream operation, allocation, compile and MemInfo of it fails at
// once with the fatal DeviceLost error until it is closed; the root package
// marks the Device lost on the first such error as it does for real ones.
//
// Simulated devices compile only the Go dialect of a Source, whatever backend
// they present; a Source without one is NotSupported.
//
// # Files
//
// The package has the backends' file map where it has their concerns:
// driver.go (the sim driver and the simulating drivers), device.go (the
// device and its lost state), memory.go (allocation faults and the memory
// limit), stream.go, module.go (Compile), errors.go (the simulated backends'
// native codes, and the CPU device's errors made theirs) and info.go (a
// preset's DeviceInfo as a device reports it). Events and kernels are the CPU
// device's, unchanged. Two files are the simulator's own: presets.go (the
// device models) and spec.go (the ANYGPU_FAKE grammar and Faults). Like
// every backend it trusts the root package's checks, and checks only its
// injected faults and lost state.
package sim
