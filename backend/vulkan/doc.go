// Package vulkan is anygpu's Vulkan compute backend: any Vulkan 1.1+ driver
// (NVIDIA, AMD, Intel, Mesa's lavapipe, MoltenVK), loaded at run time with no
// cgo. Import it for its side effect (or import backend/all):
//
//	import _ "github.com/anygpu/gpu/backend/vulkan"
//
// init only registers the driver: the loader library is opened the first
// time the backend is probed, and the process's VkInstance is created then
// and kept. A missing loader, a missing driver (no ICD) or only Vulkan 1.0
// devices make Probe report the backend unavailable with the reason and a
// hint, never a crash. The binding (internal/vk) is anygpu's own: calls
// through internal/dl on function pointers resolved with
// vkGetInstanceProcAddr and vkGetDeviceProcAddr, struct layouts generated
// from vulkan_core.h and checked against it; libshaderc has its own binding
// (internal/shaderc).
//
// # Environment
//
//	ANYGPU_VULKAN_LIBRARY     the Vulkan loader to open instead of libvulkan.so.1,
//	                          vulkan-1.dll or libvulkan.1.dylib
//	ANYGPU_VULKAN_VALIDATION  1: enable VK_LAYER_KHRONOS_validation with a
//	                          VK_EXT_debug_utils messenger that records every
//	                          warning and error (ValidationMessages); "sync" adds
//	                          synchronization validation. Read once, when the
//	                          instance is created. Off by default. The package's
//	                          own tests turn it on and fail on any message.
//	ANYGPU_VULKAN_D2D         "kernel" (default) or "copy": how Stream.Copy moves
//	                          large 16-byte-aligned blocks within a device
//	ANYGPU_VULKAN_PIPE_BATCH_KIB  how large (KiB) a pipelined transfer's batches
//	                          of copies grow while the GPU is busy (default 8192;
//	                          0: one submission per 2 MiB copy). A tuning knob.
//	ANYGPU_CACHE_DIR          where each device's VkPipelineCache is kept
//	                          (vulkan/<vendor>-<device>-<cache UUID>.bin; default
//	                          os.UserCacheDir()/anygpu)
//	ANYGPU_SHADERC_LIBRARY    libshaderc for GLSL sources (default libshaderc.so.1,
//	                          libshaderc_shared.*)
//	ANYGPU_GLSLC              glslc for GLSL sources when libshaderc does not load
//	                          (default: glslc on PATH)
//	ANYGPU_SPIRV_VAL          spirv-val for SPIR-V validation when libshaderc does not
//	                          load (default: spirv-val on PATH; "off" skips it)
//	ANYGPU_DEVICE             the device ordinal (package gpu)
//
// The loader's own variables apply too: VK_DRIVER_FILES / VK_ICD_FILENAMES
// choose the drivers, VK_LOADER_DEBUG=all explains what the loader finds.
//
// # Devices
//
// Physical devices are ordered discrete GPU, integrated GPU, virtual GPU,
// then CPU (lavapipe, reported as TypeSoftware), in enumeration order within
// a kind; ordinals index that order. DeviceInfo carries the name, vendor,
// driver and API versions, memory (the device-local heap; every heap and
// memory type in Extra), compute limits (work-group count, size and
// invocations, shared memory, push-constant and storage-buffer limits), the
// subgroup size and the timestamp period; Units is the SM count where
// VK_NV_shader_sm_builtins tells it, AMD's compute units, or the CPU count
// for a CPU device.
//
// # Memory
//
// Device buffers live in the first device-local memory type, sub-allocated
// from 64 MiB VkDeviceMemory blocks (first fit, coalescing frees, one empty
// block kept; requests above a quarter of a block get their own allocation);
// each buffer has its own VkBuffer bound at its offset, so NativeHandle is a
// plain VkBuffer. Host buffers (AllocHost) are host-visible and coherent,
// cached where the driver offers it (system memory, not a device-local
// window), persistently mapped, and sub-allocated the same way; the stream's
// WriteHost and ReadHost copy from and to them directly (backend.HostCopier).
// Where device-local memory is also host-visible (integrated GPUs, lavapipe)
// buffers are mapped too, and Write and Read copy directly when the stream
// has no pending work. Otherwise Write copies the slice into 8 MiB staging
// slabs (host-visible memory, at most 64 MiB in flight per stream) and
// returns once the slice is copied; Read copies into staging and moves the
// bytes to the slice when the stream (or a later event) is synchronized.
// Transfers of 4 MiB or more (with timeline semaphores) are pipelined, as
// the CUDA backend's are: up to 12 copy workers (at most GOMAXPROCS), each
// with two 2 MiB slots of staging, copy their ranges while the GPU copies
// the slots filled before (Write), or copy each slot out as soon as its
// copy completes and refill it (Read, which then returns with the data in
// the slice), so host copies overlap the copy engine; such a transfer holds
// 4 MiB of staging per worker (48 MiB with 12). A worker waiting for a
// slot's copy polls the timeline semaphore for up to 2 ms before blocking
// in vkWaitSemaphores: NVIDIA's driver wakes blocked host waits late
// enough (0.7-0.8 ms) to hold an H200's staged Reads at 15.7 GB/s, against
// 41.6 polling. While the GPU has two of the stream's batches queued, a
// pipelined transfer lets its copies collect into batches of 8 MiB (or for
// at most 100 µs) rather than submitting each 2 MiB copy on its own, since
// every submission adds a semaphore signal and a gap to the queue
// (ANYGPU_VULKAN_PIPE_BATCH_KIB; 0 submits each copy).
// ANYGPU_VULKAN_PIPE_SPLIT (default "transfer"; "off" keeps one queue) puts every other copy of a
// pipelined transfer, and the second half of a WriteHost or ReadHost of
// 8 MiB or more, on a second queue, so two copy engines can work at once:
// "transfer" another queue of the dedicated transfer family (else another
// compute queue), "compute" the stream's compute queue, "same" a second
// lane on the transfer's own queue (for tests). That lane has its own
// command pool and timeline semaphore; its first batch of a transfer waits
// for the stream's submitted work and the events the stream waits for, and
// a stream batch of its own waits for the lane's last copy before the
// transfer returns, so stream order, events and staging reuse hold as on
// one queue; workers wait on the semaphore of their slot's lane. With no
// second queue (lavapipe has one) the modes other than "same" keep one
// queue. A buffer closed while
// streams still have work queued is destroyed once they pass that work.
//
// # Interoperation
//
// gpu.Device.NativeDevice gives the VkInstance, VkPhysicalDevice and
// VkDevice, the Vulkan version they may be used at, and the queue families
// of the streams (compute first). Another library that creates a VkBuffer
// on that VkDevice and binds its memory hands it to gpu.Device.Borrow
// (borrow.go): the VkBuffer needs BorrowUsage (STORAGE_BUFFER, TRANSFER_SRC,
// TRANSFER_DST), which Vulkan cannot report and the backend therefore cannot
// check, and VK_SHARING_MODE_CONCURRENT over the queue families when there
// are more than one. Borrow checks that the driver reports memory
// requirements for the handle and that the size is within them; the
// borrowed Buffer binds and copies its first size bytes, is read and
// written through staging (its memory may not be mappable), and its Close
// destroys neither the VkBuffer nor its memory. The owner keeps both until
// the Buffer is closed and the work that used it has completed.
//
// # Streams and events
//
// A stream records command buffers for one of up to four queues of the
// compute family (a compute-only family where the device has one) and, for
// host transfers of 1 MiB or more, for a queue of the transfer-only family
// where there is one. It submits them in batches: at Synchronize, when the
// host waits for an event, on a cross-stream Wait, every 64 commands and
// every 4 MiB. Commands are ordered with pipeline barriers, inserted only
// where an operation touches memory an earlier one wrote (or writes memory an
// earlier one read). Each stream signals a timeline semaphore: an Event is a
// value on it plus a timestamp query (reset on the host where the device
// allows), Wait makes the next submission wait on another stream's
// semaphore, and the switch between a stream's two queues is ordered the
// same way. Without timeline semaphores (Vulkan 1.1 without
// VK_KHR_timeline_semaphore) each submission gets a fence, and Wait blocks
// the host until the event completes. Elapsed reads the timestamps
// (timestampPeriod). A closed stream's queues, command buffers and semaphore
// go to the next stream; semaphores are destroyed with the device.
//
// # Kernels
//
// A kernel with subgroup operations is built from Source.Subgroups'
// SPIR-V where the device has, in the compute stage, the subgroup
// operations its GroupNonUniform capabilities need (DeviceInfo.Extra
// "subgroup_ops" lists them) and a subgroup size of a power of two up to
// 128; otherwise, and with ANYGPU_SUBGROUPS=off (EnvSubgroups), from
// Source.SPIRVKernels, which runs it with subgroups of one thread. Where the
// device has computeFullSubgroups (Vulkan 1.3, VK_EXT_subgroup_size_control)
// the variant's pipelines for a block whose x is a whole number of subgroups
// require full subgroups; the size is the device's subgroupSize either way
// (the modules are SPIR-V 1.3, whose subgroup size does not vary). A launch
// whose block's thread count is not a multiple of that size runs the
// kernel's portable form, so that no subgroup is partial.
//
// Source.SPIRVKernels (one module per kernel, entry point "main") or
// Source.SPIRV (one module, one GLCompute entry point per kernel) are used as
// they are; a Source with only GLSL is compiled at run time, for Vulkan 1.1,
// with libshaderc when it loads and with glslc otherwise, and is NotSupported
// without either. SPIR-V is checked before it reaches the driver (size, magic
// number, header, instruction stream, a GLCompute entry point) and validated
// with SPIRV-Tools (libshaderc's, or spirv-val) where installed; a bad module
// is a Compilation error with the reason in its log. Buffers bind at set 0,
// bindings 0..n-1, push descriptors where the device has them (descriptor
// pools recycled with the command buffers otherwise); scalars are packed into
// push constants (the portable ABI), or into a uniform block at binding n
// when the GLSL declares one (the OpenGL backend's ABI). A kernel whose
// work-group size is specialization constants (local_size_x_id = 0 and so
// on, as the built-in kernels declare it) runs with any block size: a
// pipeline is built per block size and kept per device; a fixed local_size
// must match the launch's block. The VkPipelineCache is saved under
// ANYGPU_CACHE_DIR when the device closes. Large device-to-device copies
// whose offsets and size are multiples of 16 bytes run as a compute kernel,
// which moved 2.1 TB/s on an H200 where vkCmdCopyBuffer moved 0.42 TB/s.
//
// # Files
//
// The backend has every backend's files: driver.go, device.go, memory.go,
// stream.go, event.go, module.go (compile and kernels), errors.go (VkResult
// codes to categories), info.go (physical devices and DeviceInfo) and this
// doc.go. The ideas only Vulkan has keep files of their own:
//
//	instance.go          the process's VkInstance and the loader search
//	validation.go        the validation layer's messages (debug messenger)
//	staging.go           staging slabs and pipelined host transfers
//	spirv.go             SPIR-V checks and reflection
//	shaderc.go           GLSL compiling and SPIR-V validation (libshaderc, glslc, spirv-val)
//	pcache.go            the VkPipelineCache kept on disk
//	internal_kernels.go  the backend's own kernels (copy16)
//	borrow.go            native device handles and borrowed VkBuffers
//	name.go              names, environment variables and types every platform shares
//	stub.go              the driver on platforms the backend does not support
package vulkan
