// Package backend is the service-provider interface of anygpu: what a backend
// (CUDA, Vulkan, OpenGL, WebGPU, Metal, CPU, ...) implements so that the root
// package github.com/anygpu/gpu can drive it, as database/sql/driver serves
// database/sql. Programs use the root package; this one is for backend
// authors, the conformance suite (backend/backendtest) and tools.
//
// A backend registers its Driver with Register from its package's init
// function and does nothing else there: no native library is opened, nothing
// is printed. Every backend implements Driver, Device, Buffer, HostBuffer,
// Stream, Event, Module and Kernel; the optional interfaces (MemInfoer,
// HostCopier, PeerCopier, ArgsCopier, ...) are found by type assertion, and
// each says what the root package does when a backend lacks it.
//
// # Contract
//
// Checking happens once, in the root package. The root validates every
// argument and owns every object's lifecycle (closed, lost); a backend trusts
// what it is given, does the native work, and reports native failures. A check
// in a backend that repeats a guarantee below is dead code; a backend keeps
// only the checks of what the root cannot know.
//
// # What the root guarantees: lifecycle
//
// For every object a backend hands out (Device, Buffer, HostBuffer, Stream,
// Event, Module, Kernel):
//
//   - Close is called at most once.
//   - No method of an object is called after its Close, and no method of a
//     device's objects (its buffers, host buffers, streams, events, modules and
//     their kernels) after the device's Close. Objects still open when the
//     device closes are never closed one by one afterwards.
//   - Device.Close comes after Close of each of the device's streams (each
//     synchronized first, unless the device was lost), and after the root's
//     memory pools have closed the free buffers and host buffers they kept.
//   - No kernel of a module is launched after the module's Close.
//   - Once a device has returned a fatal error (errors.Error.Fatal, or category
//     DeviceLost), the root enqueues no more work on it and allocates nothing
//     more from it. It still closes its objects and reads the profiler's
//     events, so Close, Synchronize, Done and Elapsed must return (with an
//     error if need be) rather than hang or crash, and a host buffer's Bytes
//     stay valid until its Close.
//
// The root adds no locking: objects are used from several goroutines at once,
// as the root's own types allow, so every method must be safe for concurrent
// use. The guarantees above hold for calls the program orders; a program that
// races Close against use gets an error or a no-op from the root, but a call
// already past the root's checks may still reach the backend.
//
// # What the root guarantees: arguments
//
// Every call is made on an open object of an open device that is not lost
// (but for the calls a lost device still gets, above). Besides:
//
//   - Driver.Probe: ctx is not nil; when the caller set no deadline the root
//     adds one (its ProbeTimeout). Probes of several drivers run at once.
//   - Driver.Open: ctx is not nil; ordinal indexes the list the driver's Probe
//     returned (0 <= ordinal < len).
//   - Device.Alloc, Device.AllocHost: size > 0. The size may be larger than
//     the program asked for: the root's pools round requests up to a size
//     class, and hand a buffer freed by the program to the next request of its
//     class without telling the backend.
//   - Device.Compile: ctx is not nil; every kind in src.Params is an ArgKind
//     from ArgBuffer to ArgU64. Nothing else of the Source is checked.
//   - Buffers passed to a Stream (Write, Read, Copy, Fill, the buffer arguments
//     of Launch, HostCopier, the destination of PeerCopier) are the backend's
//     own, open, and of the stream's device; so are host buffers (HostCopier).
//   - Offsets and sizes: off >= 0, n > 0 and off+n <= Size() of the buffer
//     (len(Bytes()) of a host buffer), for every range of Write (n is
//     len(src)), Read (n is len(dst)), Copy, Fill, WriteHost, ReadHost and
//     CopyPeer. Empty transfers never reach the backend.
//   - Stream.Copy: when dst and src are the same buffer, the two ranges do not
//     overlap. Copies between devices go to PeerCopier instead, or through the
//     host.
//   - Stream.Fill: off and n are multiples of 4.
//   - Stream.Launch: k is a kernel of an open module compiled by this device;
//     grid and block have no zero Y or Z (Dim3.Norm) and every dimension is at
//     least 1; block.Count() is at most DeviceInfo.MaxThreadsPerBlock, and
//     block and grid are within MaxBlockDim and MaxGridDim per dimension,
//     wherever the DeviceInfo the backend reported sets that limit (non-zero).
//     Every argument's Kind is ArgBuffer to ArgU64; a buffer argument's Buffer
//     is as above; a 4-byte scalar has the upper 32 bits of Bits zero. When
//     the Source declares Params for the kernel, len(args) and every Kind match
//     them. args is freshly allocated for the call unless the stream is an
//     ArgsCopier.
//   - Stream.Wait, Event.Elapsed: the event passed is the backend's own, open,
//     and recorded on a stream of the same device. Whether Elapsed's two
//     events have completed is not checked.
//   - Stream.Synchronize, Event.Synchronize: ctx is not nil.
//   - Module.Kernel: the name is not checked; the root keeps each kernel it
//     got, so a name is looked up successfully at most once per module.
//   - The optional interfaces state their own guarantees.
//
// # What a backend must still do
//
//   - Report every native failure as an *errors.Error (errors.E, errors.Wrap,
//     or an errors.CodeTable of its native result codes): Backend set; a
//     Category, so that errors.Is works; the native code's Code and Name, so
//     that the message names it; and a Hint saying what to do. A failure after
//     which the device is unusable (a sticky CUDA error, a lost device) is
//     Fatal or of category DeviceLost: the root then marks the device lost.
//   - Check what only it can know: that the dialect it compiles is in the
//     Source (NotSupported, naming the dialect); that the source compiles
//     (Compilation, with the compiler's log); that a kernel name exists; that
//     a launch fits the kernel's own limits (registers, shared memory, a work
//     group size fixed in the source); that arguments fit a kernel whose Source
//     declares no Params, where it can tell; that Elapsed's events have
//     completed; and native limits and resources (OutOfMemory).
//   - Skip, when building kernels at Compile from Params, the kernels listed in
//     Source.Unsupported that its dialect does not hold (a float64 kernel has
//     no WGSL, SPIR-V, GLSL or MSL): Kernel then fails to find one, and the
//     root reports NotSupported with the reason.
//   - Keep the promises of the interfaces' methods: Write's source may be reused
//     when Write returns; Read's destination is written when the stream
//     reaches the Read; Synchronize returns the first asynchronous error since
//     the previous Synchronize, or returns when its ctx ends.
//   - Probe, on a machine without the native library, driver or device,
//     returns an error saying why (category Unavailable, or wrapping
//     ErrNotCompiled when the backend was left out of this build) and never
//     crashes.
//   - Device.Close releases whatever the device's objects still hold.
package backend
