// Package cuda is the CUDA backend of anygpu: NVIDIA GPUs through the CUDA
// driver API, opened at run time (libcuda.so.1 on Linux, nvcuda.dll on
// Windows, or ANYGPU_CUDA_LIBRARY) through purego, so it builds without cgo
// and without the CUDA toolkit, and a machine without the driver reports the
// backend Unavailable with the reason and a hint. Kernels are CUDA C++
// (Source.CUDA), compiled by NVRTC (package github.com/anygpu/gpu/nvrtc) to
// CUBIN for the device's architecture and kept in the on-disk kernel cache,
// or device code compiled elsewhere (Source.PTX, CUBIN, Fatbin).
//
// Importing the package registers the "cuda" driver; nothing else happens
// until the first Probe or Open, which loads the library and calls cuInit.
//
// # Devices and threads
//
// A Device holds a reference to its GPU's primary context (every Device of
// one GPU in a process shares it). A CUDA context is current per OS thread,
// so every driver call locks the calling goroutine to its thread and makes
// the context current first (runtime.LockOSThread + cuCtxSetCurrent + the
// call + UnlockOSThread). Any goroutine may use any Device, Stream or Buffer.
//
// That design was measured against the alternative, one goroutine per device
// locked to a thread with the context current for good, fed through a channel
// (BenchmarkThreading and BenchmarkLaunchThreading, NVIDIA H200, driver
// 580.159.04, 16 cores):
//
//	                                     bind per call   locked worker
//	cuStreamQuery (293 ns by itself)     366 ns          14.9 µs
//	  the same from 16 goroutines        0.92 µs/call    1.61 µs/call
//	empty kernel launches back to back   3.33 µs         17.2 µs   (3.20 µs unbound)
//
// Binding costs 73 ns a call (cuCtxSetCurrent is 106 ns by itself, less when
// the context is already current); handing work to another thread costs a
// wake-up of that thread per call. Asking for the current context first
// (cuCtxGetCurrent) and setting it only when it differs saved nothing in the
// first measurement, but in two later runs on other H200 machines it did
// (empty launches back to back: 4.06 against 4.57 µs, and 3.88 against
// 4.66 µs), so the backend checks first. Driver calls on hot paths pass
// their arguments in reused memory (cu.Frame) and allocate nothing.
//
// Launch is the exception: it calls cuLaunchKernel first and binds only if
// the driver answers that the thread has no context or another one
// (CUDA_ERROR_INVALID_CONTEXT, _INVALID_HANDLE, _CONTEXT_IS_DESTROYED), then
// launches again. Such a failed launch enqueues nothing; the driver of CUDA
// 13 in fact launches on the stream's context whatever is current
// (TestLaunchForeignContext checks both). One foreign call per launch
// instead of two: in one process, alternating rounds of 10,000 launches
// with a C loop on the same stream (TestLaunchVsC, H200), gpu.Stream.Launch
// went from 1.18-1.23x the C loop's time to 1.15x.
//
// In builds with cgo on Linux, the calls that take a cu.Frame (launches,
// asynchronous copies, events: the hot ones) go through a C trampoline
// that calls the resolved function pointer, and the others through purego;
// without cgo all go through purego. A cgo call per launch cost 1.03-1.04x
// the C loop, a purego call 1.06-1.15x; with it, and with the checks of a
// launch kept in compact functions (errors are worded out of line),
// gpu.Stream.Launch measured 1.05-1.10x the C loop (TestLaunchVsC, four
// runs on two H200 machines).
//
// # Memory and transfers
//
// Alloc is cuMemAlloc (the root package pools it), AllocHost cuMemHostAlloc
// (portable pinned memory). Streams are non-blocking CUstreams. Pinned
// transfers (WriteHost, ReadHost) are asynchronous DMA. A pageable Go slice
// of more than 1 MiB moves through pinned staging chunks copied by several
// workers at once, each with two chunks of its own, so that the host copies
// of some chunks overlap the DMA of others (staging.go): Write returns once
// the slice has been copied out (the slice may be reused), Read once the
// slice holds the data. Smaller pageable transfers go through the driver,
// which stages them itself. Fill is cuMemsetD32Async; Copy
// cuMemcpyDtoDAsync; a copy from another Device's buffer is
// cuMemcpyPeerAsync (PeerCopier).
//
// # Synchronization and events
//
// Synchronize makes one blocking cuStreamSynchronize. With a context that
// can end it first asks cuStreamQuery, and if the work is not done blocks on
// a goroutine of its own while waiting for either that or the context, so it
// returns as soon as either happens (the goroutine ends with the work).
// Event.Synchronize does the same with cuEventSynchronize. Events are timing CUevents, reused after
// Close; Elapsed is cuEventElapsedTime; Wait is cuStreamWaitEvent.
//
// # Graphs
//
// Streams implement backend.GraphCapturer: BeginCapture is
// cuStreamBeginCapture_v2 in relaxed mode (allocations on other goroutines
// are not refused), EndCapture cuStreamEndCapture then
// cuGraphInstantiateWithFlags (flags 0), and a graph's Launch one
// cuGraphLaunch, on any stream of the device. Launches copy their scalars
// into the parameter block by value, copies and fills are asynchronous
// driver calls, and BeginCapture loads cuBLASLt where it is installed and
// creates the device's handle and the stream's 32 MiB workspace, so a MatMul
// under capture allocates nothing. A
// driver that lacks one of those entry points makes BeginCapture
// NotSupported, and the root package records the operations itself.
//
// # Kernels
//
// Arguments follow the portable ABI: each parameter is passed to
// cuLaunchKernel as a pointer to its value (buffers as their CUdeviceptr,
// scalars as 4- or 8-byte values), in a parameter block each stream reuses.
// Where the driver reports parameter sizes (cuFuncGetParamInfo, CUDA 12.4+) a
// launch with the wrong number of arguments, or an argument smaller than its
// parameter, is refused before it reaches the GPU. Kernels report their
// registers, shared, local and constant memory and maximum block size
// (KernelAttributer), which the profiler's occupancy calculation uses.
//
// # Compiling and loading
//
// Compile loads the first of Source.CUBIN, Fatbin, PTX and CUDA the source
// has; a binary the device cannot run (another architecture, newer PTX)
// falls through to the next. CUDA C++ is compiled by NVRTC with the CUDA
// headers on the include path (<cuda_fp16.h>, <cuda_bf16.h>,
// <cooperative_groups.h>, CUDA 13's <cuda/std/...>: found next to the NVRTC
// loaded, or in $CUDA_HOME, $CUDA_PATH, /usr/local/cuda*, the Python wheels;
// $ANYGPU_CUDA_INCLUDE overrides: see package nvrtc), after the directories
// of gpu.IncludePath and the in-memory gpu.Header files. The kernel cache's
// key covers every header the program's includes reach, so an edited header
// is never served stale; a program with a computed #include is compiled
// every time, and the root package logs why.
//
// The built-in kernels (kernels.Source) ship precompiled
// (package internal/prebuilt, embedded in the module): before NVRTC, a CUDA
// program is looked up by the hash of its text and the NVRTC options it would
// be compiled with (not the architecture), and the image that suits the
// device loads directly: a CUBIN for the device's major version at its minor
// version or an earlier one (sm_80 on 8.6), else PTX for an older
// architecture that the driver compiles (compute_75), when the driver is as
// new as the NVRTC that wrote it. So a fresh process runs its first built-in
// kernel without loading NVRTC. Any other program or option, gpu.Arch, a
// program that includes files, or ANYGPU_CUDA_PREBUILT=off compiles with
// NVRTC as below; so does an image the driver refuses (the next one is tried
// first). The Module says which image it came from (its Prebuilt method,
// "sm_90 CUBIN (NVRTC 13.0)"), as does the module cache's entry.
//
// Options: gpu.Define (-D), gpu.FastMath (--use_fast_math), gpu.DebugInfo
// (-lineinfo), gpu.Arch, gpu.MaxRegisters (--maxrregcount; for PTX, the JIT's
// CU_JIT_MAX_REGISTERS), gpu.CompilerFlags (verbatim). gpu.LaunchBounds and
// gpu.OptimizationLevel have no NVRTC flag in every version, so with either
// the program is compiled to PTX and loaded by cuModuleLoadDataEx with
// CU_JIT_THREADS_PER_BLOCK and CU_JIT_OPTIMIZATION_LEVEL: documented driver
// options, at the price of a JIT compile when the module loads (the driver
// caches those too).
//
// Every loaded CUmodule is kept in the device's module cache (256 entries),
// keyed by the source's code in every CUDA dialect, the options and the
// architecture: a second Compile of the same source and options returns the
// loaded module with no NVRTC call and no module load (5 to 16 µs over the
// fake driver on a busy 2-core machine, BenchmarkCompileWarm; the issue's
// target is 50 µs), once it
// has checked that no header the program included changed (a stat of each).
// Closing a Module leaves the code loaded for the next Compile; it is
// unloaded when the cache lets it go (a changed header, more than 256
// entries) and no Module uses it, or when the Device closes.
//
// # Kernel names
//
// Module.Kernel takes an extern "C" name, a symbol of compiled code, or any
// C++ name, template instantiations included ("softmax<float, 128>"):
// those are NVRTC name expressions, looked up by their lowered (mangled)
// names. Names listed with gpu.KernelNames at Compile are resolved by that
// compile. A name not listed, not found as a symbol, whose function name the
// source mentions, makes Kernel compile the source again with the name added as a name expression (through both
// caches: once per name and process, a disk-cache hit in later processes)
// and keep that module with the Module. Both, because listing names up front
// costs one compile for all of them but needs the names at Compile, while
// the lazy path lets Module.Kernel take any name the way CuPy's
// RawModule.get_function does; NVRTC cannot add name expressions to a
// program already compiled. A name NVRTC cannot resolve is InvalidArgument
// with NVRTC's log.
//
// # Dynamic shared memory and cooperative launches
//
// gpu.Stream.LaunchWith takes a LaunchConfig: SharedMemBytes is the
// sharedMemBytes of cuLaunchKernel. A kernel asked for more than it may use
// by default (48 KiB less its static shared memory) is opted in first, once
// per size: cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES) and the
// carveout preference CU_SHAREDMEM_CARVEOUT_MAX_SHARED. More than the
// device's CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN less the
// static shared memory is InvalidArgument before anything reaches the
// driver (the root package checks it too), so a kernel is never launched
// with less shared memory than it indexes. Cooperative is
// cuLaunchCooperativeKernel: NotSupported where
// CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH is 0, InvalidArgument when the grid
// has more blocks than fit on the device at once
// (cuOccupancyMaxActiveBlocksPerMultiprocessor × SMs).
//
// # Memory of other libraries
//
// gpu.Device.Borrow wraps a CUdeviceptr another library allocated as a
// Buffer, without copying, after cuPointerGetAttribute confirms it is device
// (or managed) memory of this GPU with the size within its allocation; its
// Close frees nothing. Package github.com/anygpu/gpu/dlpack exchanges such
// buffers, and the device's own, as DLPack tensors (PyTorch, CuPy, JAX).
// gpu.Device.NativeDevice gives the CUdevice and the primary CUcontext
// (nativedevice.go), for native libraries that act on the same context.
//
// # Matrix products (cuBLASLt)
//
// Streams implement backend.MatMuler through NVIDIA's cuBLASLt
// (libcublasLt.so.13 or .12, cublasLt64_*.dll), the library PyTorch uses,
// loaded at the first MatMul of the process, never at Open (package
// internal/cublaslt): ANYGPU_CUBLASLT_LIBRARY names it, else the sonames,
// $CUDA_HOME and $CUDA_PATH, /usr/local/cuda*, and the nvidia/cu13 and
// nvidia/cublas directories of NVIDIA's Python wheels are searched. The
// row-major product is cuBLASLt's column-major one transposed (B first, A
// second, M and N swapped). float32 is exact FP32 (CUBLAS_COMPUTE_32F, no
// TF32); float16 and bfloat16 accumulate in float32 on the tensor cores and
// write their own type or float32; int8 writes int32 with int32 scalars. A
// device has one cuBLASLt handle and a cache of plans (descriptors and the
// heuristic's algorithm, by shape, types, transposes, leading dimensions,
// batch and alignment); a stream allocates a 32 MiB workspace at its first
// MatMul. A missing library, a type pair or layout without a kernel are
// NotSupported: callers fall back to their own kernels (matmul.go).
//
// # Errors
//
// Every CUresult maps to an *errors.Error with category, flags and hint.
// Sticky errors (an illegal address, a failed launch, an uncorrectable ECC
// error, ...) are Fatal: the root package then fails every later call of the
// Device fast with DeviceLost. CUDA keeps a sticky error for the rest of the
// process (not even a new context can be made), so every later call on that
// GPU, and opening it again, fails fast with DeviceLost naming the original
// error; a new process works.
//
// # Contract and files
//
// The backend trusts the root package's checks: offsets and sizes in range,
// n > 0, buffers, host buffers, events and kernels of the stream's own device,
// arguments of a kind, each object closed once and never after its device.
// It checks what only the driver knows: sticky errors (the GPU is lost),
// parameter sizes (cuFuncGetParamInfo), and, in the peer operations, whose
// other device the root package knows only by its backend's name, that the
// other object is this backend's.
//
// The files follow the backends' common map: driver.go (loading the library,
// Probe, Open), device.go (the context, binding it to threads, Close),
// memory.go, stream.go, event.go, module.go (NVRTC compile, loading, the
// module cache, kernels and their names), prebuilt.go (the lookup of
// precompiled built-ins), launchopts.go (dynamic shared
// memory, cooperative launches), errors.go (what becomes of a CUresult: the code table itself is
// the errors package's), info.go (DeviceInfo from the device attributes), and
// internal/cu for the foreign calls. Four files hold what only CUDA has:
// launchargs.go (the parameter block launches pass their arguments in),
// staging.go (pageable transfers through pinned chunks), peer.go (several
// GPUs: peer access, peer copies and waits, RunNative) and matmul.go (matrix
// products through cuBLASLt, bound in internal/cublaslt).
package cuda
