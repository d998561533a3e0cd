// Package metal is the Metal backend of anygpu: Apple GPUs (Apple silicon,
// and the AMD and Intel GPUs of Intel Macs) through Metal.framework, reached
// through the Objective-C runtime with github.com/ebitengine/purego — no cgo,
// so the package cross-compiles from any OS.
//
// State: the backend compiles for darwin/arm64 and darwin/amd64 and is
// checked every way that does not need a Mac (cross builds and vet, unit
// tests of its pure logic on Linux, a clang++ parse of every MSL source); it
// has not yet run on Apple hardware.
//
// # Platforms
//
// The real implementation is built only for darwin (//go:build darwin). On
// every other OS the package still registers the "metal" driver, and its
// Probe reports Unavailable: Metal exists only on Apple platforms.
//
// On darwin nothing is loaded until the first Probe or Open: then libobjc,
// Foundation and Metal.framework are opened through internal/dl (the
// binding internal/objc holds every foreign call), and a missing framework
// or symbol is an Unavailable error, never a crash.
//
// # Devices
//
// Ordinal 0 is the system default device (MTLCreateSystemDefaultDevice); the
// other devices of MTLCopyAllDevices follow in ascending registryID order, so
// ordinals are stable between runs. DeviceInfo comes from the MTLDevice
// (name, registryID, recommendedMaxWorkingSetSize as MemoryBytes,
// hasUnifiedMemory, maxThreadsPerThreadgroup, maxThreadgroupMemoryLength,
// maxBufferLength, the GPU families of supportsFamily:) and, for the core
// count, the IORegistry entry of the GPU ("gpu-core-count", Apple GPUs only).
//
// # Memory
//
// Buffers are MTLBuffers in one of two storage modes, chosen per device:
//
//   - shared (MTLResourceStorageModeShared), the default on unified-memory
//     devices (every Apple-silicon Mac): the CPU and GPU address the same
//     memory, so a transfer on an idle stream is a memcpy on the calling
//     goroutine, and a transfer behind queued work is a blit from a staging
//     buffer (writes) or waits for the queued work and then copies (reads).
//   - private (MTLResourceStorageModePrivate), the default on devices without
//     unified memory (discrete GPUs): every transfer is a blit through a
//     shared staging buffer.
//
// The mode is asked for with Driver.Storage (gpu.OpenDriver(ctx,
// metal.Driver{Storage: metal.StoragePrivate}, 0)) or, for the registered
// driver, with the environment variable ANYGPU_METAL_STORAGE=shared|private|auto.
// Host buffers (AllocHost) are always shared MTLBuffers; a copy between one
// and a device buffer is a blit, never a staging copy.
//
// # Streams, events, timing
//
// A stream is an MTLCommandQueue. Each operation is encoded into its own
// command buffer and committed at once, so work starts as soon as it is
// enqueued. Record commits a command buffer that signals the stream's
// MTLSharedEvent; Wait on another stream encodes a wait for that value
// (encodeWaitForEvent:value:), so cross-stream ordering stays on the GPU.
// Event times are the GPU timestamps (GPUEndTime) of the event's command
// buffer, in the host's mach time base, so Elapsed works across streams.
// Command-buffer failures are collected when the stream next looks at its
// finished work and returned by the next Synchronize.
//
// # Kernels
//
// Source.MSL is compiled at run time with newLibraryWithSource:options:error:
// (fast math off unless FastMath is asked for; Defines become preprocessor
// macros; the only flag understood is -std=metalX.Y, which picks the
// language version). Kernel creates the compute pipeline state of the kernel
// function of that name. Launch follows the portable argument ABI: buffer
// arguments bind at [[buffer(0)]] .. [[buffer(n-1)]] in argument order, and
// the scalars, packed as backend.PackScalars lays them out, at [[buffer(n)]]
// through setBytes:length:atIndex:. The grid is dispatched with
// dispatchThreadgroups:threadsPerThreadgroup:.
//
// # Errors
//
// NSErrors map to categories by domain and code (MTLCommandBufferErrorDomain,
// MTLLibraryErrorDomain); the NSError's localizedDescription is kept as the
// error's Log, so a compile error carries the compiler's output.
//
// # Object lifetimes
//
// No test here can catch a leak or a double release, so every Objective-C
// object the backend touches follows these rules, and each type documents
// which objects it owns:
//
//  1. Owned references (+1). Objects returned by alloc/init, new…, copy… and
//     by the C functions MTLCreateSystemDefaultDevice and MTLCopyAllDevices
//     belong to the caller. Each is stored in exactly one Go field (or local
//     variable) that owns it, and released exactly once, by the owner's
//     release path.
//  2. Autoreleased references (+0). Everything else a message returns
//     (commandBuffer, computeCommandEncoder, blitCommandEncoder, name,
//     localizedDescription, the NSError of an error: out-parameter,
//     dictionaryWithObjects:…) is valid until the enclosing autorelease pool
//     drains. Such objects are used only inside that pool: encoders are
//     ended before it drains, strings are copied into Go strings. The one
//     kept longer, the command buffer, is retained (+1) as soon as it is
//     created and from then on follows rule 1.
//  3. Pools. Every sequence of messages that can autorelease runs between
//     objc.EnterPool and Exit, which pins the goroutine to its OS thread for
//     the duration (autorelease pools are per thread) and drains the pool on
//     every return path (Exit is deferred).
//  4. Children of a device. Buffers, host buffers, streams, events and
//     modules register with their device; closing one releases its objects
//     and unregisters it, and closing the device releases whatever its
//     children still hold. The root package skips the backend's Close of
//     objects whose device is closed, so without rule 4 those would leak.
//     The device's lock orders a child's Close against the device's, so no
//     object is released twice.
//     A borrowed buffer (Device.Borrow of another library's MTLBuffer,
//     borrow.go) is such a child: Borrow retains the MTLBuffer (+1), and
//     its release is the only one the backend sends it.
//  5. Work in flight. A command buffer keeps strong references to the buffers
//     its commands use (retainedReferences, the default), so closing a
//     buffer while queued work uses it cannot free memory under the GPU. The
//     stream also holds its own reference to each committed command buffer,
//     plus any object the command buffer needs that anygpu created for it (a
//     launch's pipeline state, a staging buffer), until it has completed and
//     the stream has collected its status.
//  6. Go never releases from a finalizer: releases happen only on the paths
//     above, at times the code chooses.
//
// # What the backend trusts
//
// The root package validates arguments and owns lifecycle: offsets and
// sizes are in range, buffers, kernels and events are this device's and
// open, Close runs at most once per object and never after the device's.
// The backend checks only what the root cannot know: a pipeline's thread
// limit, Metal's 32-bit grid, the argument slots of a kernel, and the
// failures Metal reports.
//
// # Files
//
// Beside the file map every backend shares (driver.go, device.go,
// memory.go, stream.go, event.go, module.go, errors.go, info.go, doc.go and
// the binding internal/objc) and borrow.go (native device handles and
// borrowed MTLBuffers, which run only on a Mac and are not yet tested on
// one), two files hold ideas of Metal's own:
// launch.go, the pure rules of encoding work (argument bindings and packed
// scalars, grid limits, fill patterns, internal-kernel chunks) and of the
// compile options, kept out of the darwin-only files so that they are
// tested on every OS; msl.go, the backend's internal kernels.
// stub_other.go is the driver off Apple platforms; mslcheck checks MSL
// sources with clang++ where there is no Mac.
package metal
