// Package cuda is the CUDA backend of anygpu: NVIDIA GPUs through the CUDA
// driver API, opened at run time (libcuda.so.1 on Linux, nvcuda.dll on
// Windows, or ANYGPU_CUDA_LIBRARY) through purego, so it builds without cgo
// and without the CUDA toolkit, and a machine without the driver reports the
// backend Unavailable with the reason and a hint. Kernels are CUDA C++
// (Source.CUDA), compiled by NVRTC (package github.com/anygpu/gpu/nvrtc) to
// CUBIN for the device's architecture and kept in the on-disk kernel cache.
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
// memory.go, stream.go, event.go, module.go (NVRTC compile, modules,
// kernels), errors.go (what becomes of a CUresult: the code table itself is
// the errors package's), info.go (DeviceInfo from the device attributes), and
// internal/cu for the foreign calls. Three files hold what only CUDA has:
// launchargs.go (the parameter block launches pass their arguments in),
// staging.go (pageable transfers through pinned chunks) and peer.go (several
// GPUs: peer access, peer copies and waits, RunNative).
package cuda
