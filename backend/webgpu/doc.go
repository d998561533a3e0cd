// Package webgpu is the WebGPU backend: compute through wgpu-native 29, linked
// statically by github.com/oliverbestmann/webgpu v1.36.0, over Vulkan,
// Metal, D3D12 or OpenGL, whichever the machine has.
//
// # Build
//
// The binding is C code, so the backend needs cgo. Built without cgo
// (CGO_ENABLED=0, or a cross build) the package still registers "webgpu" and
// Probe reports an error wrapping backend.ErrNotCompiled ("built without
// cgo"), which the root package shows as NotCompiled, with a hint.
//
// # Adapters and devices
//
// Probe lists every adapter wgpu finds, best first: discrete GPUs, then
// integrated, unknown and software ones (lavapipe, llvmpipe), and within a
// type Vulkan, Metal and D3D12 before OpenGL. ANYGPU_DEVICE (through the root
// package) picks one by its index in that list. A device is created with
// WebGPU's default limits raised to the adapter's for what compute needs
// (buffer and storage-binding sizes, storage buffers per shader, work-group
// size and memory, offset alignments); if the driver refuses those, with the
// defaults. DeviceInfo comes from the adapter's info and those limits;
// WebGPU reports neither compute units nor memory size, so for a GPU Units
// is an estimate, what large GPUs of its type have (128 for a discrete GPU,
// 32 otherwise: callers size grids from Units, and too few units leave most
// of a GPU idle where too many cost little), and MemoryBytes is the largest
// buffer (Extra says so; a software adapter reports the host's cores and
// memory).
//
// # Memory and transfers
//
// Buffers are storage buffers padded to 16 bytes (kernels may view them as
// vec4s). Small writes (under 1 MiB) go through the queue's buffer write,
// which stages the data. Larger ones go through the backend's upload
// buffers (MAP_WRITE | COPY_SRC, 8 MiB each, up to 64 MiB kept mapped in a
// pool): each 8 MiB chunk is copied into a mapped upload buffer by several
// goroutines (one core's memcpy is far below the memory's bandwidth) while
// the previous chunk is unmapped, copied into the destination by the
// queue's copy command and submitted; an upload buffer is mapped again once
// its copy has run. Write never waits for the device: when no upload buffer
// is mapped it creates another. So the caller's slice is free when Write
// returns and the host's copies overlap the device's. Where the adapter
// has wgpu-native's mappable primary buffers, upload buffers are mappable
// for reading too, so that wgpu gives them cached host memory rather than
// memory written across the bus; ANYGPU_WEBGPU_UPLOAD=write (EnvUpload)
// keeps WebGPU's write-only staging usage, and DeviceInfo.Extra["upload"]
// names the usage in use. Downloads copy into
// mappable staging buffers (pooled, up to 256 MiB), one per 8 MiB chunk,
// each chunk submitted at once so that the chunks map one after another;
// each is copied out (in parallel) into the caller's slice when a poll of
// the device (a wait, or enqueuing work) finds its mapping arrived. WebGPU has no pinned memory and
// no mapping a copy can use while the host holds it: host buffers are
// ordinary aligned memory, and WriteHost and ReadHost take the paths of
// Write and Read. WebGPU copies and clears whole words only, so unaligned
// writes (their partial end words), unaligned copies, copies within one
// buffer and fills with a non-zero value run small kernels of the backend;
// fills with zero use the queue's clear. Device-to-device copies of whole
// vec4s run a copy kernel on GPUs and the queue's copy command on software
// adapters; ANYGPU_WEBGPU_D2D (EnvD2D) picks either, and
// DeviceInfo.Extra["d2d"] names the one in use.
//
// # Streams, submission and events
//
// A device has one queue, and every stream feeds it: all work of a device
// runs in the order it was enqueued, so Stream.Wait has nothing left to do,
// and streams do not overlap. Launches (and the backend's own kernels) are
// recorded into one command encoder and compute pass per submission; every
// other operation is encoded into its own command buffer. What could make a
// launch invalid is checked before it is recorded (its bind group is created
// and validated on its own, and each new combination of kernel and bindings
// is dispatched once into a throwaway encoder, where wgpu reports conflicts
// such as one buffer bound both read-only and read-write), so a bad launch
// fails alone, at once, from Launch, with InvalidArgument. Should the shared
// pass fail anyway, its dispatches are recorded again, each validated alone,
// so that only the bad one is lost. A combination is the kernel with the
// sizes of its bindings and which of them share a buffer: the buffers and
// offsets themselves do not matter to the check. The pending work is
// submitted together when the queue is found idle and the batch holds 16
// operations or is 200 µs old (long work at once), after 64 operations, or
// when something waits for it; enqueuing
// polls the device for the queue's state at most every 50 µs, as a poll or
// a submission per launch costs more than the launch. Scalars of launches
// live in a uniform arena (1 MiB) that keeps its blocks across
// submissions, one place per distinct block, the new ones written with
// their submission; bind groups (up to 4096, least recently used evicted)
// are kept for reuse while their buffers and kernels live. So a launch
// repeated with the same buffers and scalars, as a model's decode step
// repeats the step before, reuses its bind group rather than creating and
// validating one.
//
// wgpu runs its callbacks only inside a device poll; the backend polls while
// waiting (spinning until 2 ms pass without progress, then every
// millisecond) and never blocks in
// wgpu, so that waiting streams do not hold back others. Events complete
// with the submission that holds them (the queue's submitted-work-done
// callback). Their time is a GPU timestamp when the adapter has timestamp
// queries (an empty compute pass writes the clock after the work before it);
// otherwise the host clock when the work-done callback ran, and the event's
// HostTimed method reports true. A submission holding long work (a copy,
// fill or transfer chunk of 1 MiB or more) ends with a timestamp of its own;
// an event recorded right after it, with nothing enqueued since, takes that
// time (when the device finished the work before it) instead of a
// submission of its own, which the device would reach only after the
// host's submission round trip (tailstamp.go).
//
// # Kernels
//
// A device whose adapter has wgpu's subgroup feature is opened with it,
// and the kernels with subgroup operations are then compiled from
// Source.Subgroups' WGSL, a shader module of their own (without its
// "enable subgroups;" line, which wgpu-native v25 refuses while it takes
// the built-ins); DeviceInfo.Extra "subgroups" says so. Otherwise, and with
// ANYGPU_SUBGROUPS=off (EnvSubgroups), they run from Source.WGSL with
// subgroups of one thread.
//
// Source.WGSL is compiled into one shader module whose @compute entry points
// are the kernels. Without WGSL, GLSL is taken (#version 430 raised to 450,
// one module per kernel with ANYGPU_KERNEL_<name> defined, entry point main),
// then SPIR-V; WebGPU has no push constants, so SPIR-V must read its scalars
// from the uniform at binding n. A compile failure is a Compilation error
// with wgpu's report as its log; WGSL or GLSL that is not text (not UTF-8,
// or with a NUL byte) is refused before wgpu sees it, as the binding would
// cut it at the NUL and naga aborts the process on some invalid UTF-8.
// WGSL is compiled with bounds checks but without wgpu's loop-bounding
// counters (wgpu-native's trusted shader modules), so that drivers unroll a
// kernel's constant loops; a kernel whose loop never ends hangs the device,
// as on the other backends.
//
// Launches follow the portable ABI: buffers at @group(0) @binding(0..n-1),
// whole, as read_write storage (the same buffer may be bound twice); the
// scalars, packed in argument order and followed at the next 16-byte
// boundary by the launch geometry (grid and block as launched, two vec4<u32>),
// in a uniform at @binding(n).
//
// WGSL that declares the work-group size as three module constants
//
//	const anygpu_block_x: u32 = 64u;
//	const anygpu_block_y: u32 = 1u;
//	const anygpu_block_z: u32 = 1u;
//
// (as the kernel language's translation does) runs at any block: its entry
// points of @workgroup_size(anygpu_block_x, anygpu_block_y, anygpu_block_z)
// are compiled as the source declares for launches of that block, and for
// every other block with the three values rewritten in the text, one shader
// module per block and one pipeline per (kernel, block), of which a module
// keeps the 8 most recently launched blocks besides its own. Those kernels
// always get the uniform, the launch geometry alone when they have no
// scalars.
//
// Other WGSL (and GLSL, SPIR-V) fix the work-group size in the source, so
// the launch's block reaches a kernel only through that geometry: a launch whose block differs from the size the source fixes
// (@workgroup_size of integer literals or constants, local_size, LocalSize)
// is refused with InvalidArgument, unless the kernel's uniform reaches past
// the scalars into the geometry (which the backend learns once per kernel by
// binding the scalars alone), as the built-in kernels' does. WebGPU
// dispatches at most 65535 groups per dimension: a wider grid (up to 2³¹-1
// groups) is dispatched folded into x and y, and a kernel finds its group
// from the linear dispatch index and the geometry, as the built-in kernels
// of package kernels do. A WGSL entry point E that declares
//
//	const anygpu_coarsen_E: u32 = K;
//
// is dispatched one group per K groups of the launch (rounded up): for
// kernels that do more work per group than the launch's block implies (the
// built-in element-wise ops move 8 floats per thread; on an H200 that takes
// saxpy from 2.6 to 3.7 TB/s, as groups that would only exit cost time).
//
// # Errors
//
// Every binding call runs inside error scopes (out of memory, validation),
// and the device has an uncaptured-error callback (without one wgpu-native
// aborts the process on the first stray error). Errors carry the WebGPU enum
// value they came from (WGPUErrorType_Validation, WGPUMapAsyncStatus_Error,
// WGPUDeviceLostReason_Unknown, ...) with a category and hint from this
// package's tables, and wgpu's message; the operation refines the category (a
// validation error is a Compilation error when compiling, a Launch error when
// launching). A lost device makes every later call fail with DeviceLost. The
// binding panics where it cannot return an error; the backend recovers those
// panics into Internal errors. What no Go code can catch: wgpu-native 29
// aborts the process when a queue submission or a device poll fails, which
// the backend never provokes (it submits only command buffers that encoded
// without error, never destroys buffers, and maps staging buffers only
// after their copies are submitted) but a device lost in the middle of one
// can.
//
// # What the backend trusts
//
// The root package validates arguments and owns lifecycle: the backend is
// handed only open buffers, events and kernels of its own device, ranges
// inside them and sizes above zero, and each of its objects is closed once,
// before its device. It checks none of that again. What it does check is
// what only it can know: wgpu's validation errors, its limits (the largest
// storage binding, the dispatch size), and the device's loss, which wgpu
// reports asynchronously. The device also refuses work once it is closed,
// as its background poller and a wait in progress may outlive a Close.
//
// # Files
//
// The common file map of the backends: driver.go (registration), device.go
// (opening a device, error scopes, submission and polling), memory.go
// (buffers and download staging), stream.go, event.go (events and their
// timestamp slots), module.go (compiling and launching kernels), errors.go
// (the WebGPU enums' table of categories and hints), info.go (adapters and
// DeviceInfo) and internal/wgpuc, the cgo shim for the few webgpu.h calls
// the binding lacks. Files for ideas of this backend alone: batch.go
// (recording dispatches into one shared compute pass per submission),
// block.go (WGSL compiled per launch block, from the block constants),
// guard.go (turning the binding's panics into errors, and running probing
// and opening under a context), internal.go (the WGSL kernels behind
// unaligned writes, copies and fills), transfer.go (chunked, pipelined
// writes through upload buffers and chunked reads), hostcopy.go (host
// copies split over goroutines), d2d.go (EnvD2D), upload_memory.go
// (EnvUpload), tailstamp.go (events
// timed by the end of the long work before them) and nocgo.go (the build
// without cgo).
package webgpu
