// Package opengl is the OpenGL backend of anygpu: OpenGL 4.3 compute
// shaders, or OpenGL ES 3.1 ones (ARM boards, Android, embedded Linux), in a
// headless EGL context, with no window and no X server. It registers itself
// as "opengl".
//
// # Client API
//
// A context is desktop OpenGL 4.3 core or OpenGL ES 3.1; Driver.API, else
// the environment variable ANYGPU_OPENGL_API (EnvAPI), picks which:
//
//	auto  the default: OpenGL 4.3 core on a device that gives it, else OpenGL ES 3.1
//	gl    desktop OpenGL 4.3 core only (a device without it is not listed)
//	gles  OpenGL ES 3.1 only
//
// Case and surrounding spaces do not matter; anything else makes Probe and
// Open fail with an InvalidArgument error naming the variable, its value and
// the accepted forms, with a guess for a near miss. A device is listed once,
// with one API: with auto, the OpenGL ES context of a device that also has
// desktop OpenGL is not listed (the desktop one compiles more, float64
// included); ask for gles to get it. Open a device of each through
// gpu.OpenDriver with Driver{API: APIGL} and Driver{API: APIGLES}.
//
// An OpenGL ES device says so: DeviceInfo.APIVersion is "OpenGL ES 3.2" (the
// context's version; drivers may give more than 3.1), DriverVersion the
// GL_VERSION ("OpenGL ES 3.2 Mesa 22.3.6"), Extra["api"] is "gles" ("gl" on
// desktop OpenGL), the name is the renderer's followed by " (OpenGL ES)", and
// FP64 is false (GLSL ES has no double).
//
// # Loading
//
// Nothing is linked: libEGL.so.1 (or the file ANYGPU_EGL_LIBRARY names) is
// opened at run time without cgo, and every GL entry point is resolved
// with eglGetProcAddress, so programs build with CGO_ENABLED=0 and start on
// machines without EGL. (go-gl/gl links libGL at link time: such a binary
// does not even start where libGL is missing.) The backend works on Linux;
// elsewhere it registers and reports Unavailable.
//
// # Devices
//
// Probe lists the EGL devices of EGL_EXT_platform_device (NVIDIA's driver,
// Mesa's DRM and software devices), hardware before software renderers;
// when that platform gives none it falls back to Mesa's surfaceless display.
// On each it creates a context of the API asked for (an OpenGL 4.3
// core-profile context, or an OpenGL ES 3.1 one: EGL_OPENGL_ES_API), made
// current with no surface (EGL_KHR_surfaceless_context), and reads
// GL_VERSION: a driver that gives less is not used. Missing EGL, a missing
// vendor library, a missing driver or an old OpenGL each make Probe return an
// Unavailable error with the reason (with auto, that of both APIs) and a
// hint; nothing crashes. The first successful enumeration is kept for the
// life of the process, per API, and displays stay initialised (EGL counts no references, so eglTerminate would pull a
// display from under another Device).
//
// Mesa prints loader warnings on stderr when a driver is missing. While the
// first display is initialised, the backend sets EGL_LOG_LEVEL=fatal (unless
// the user set it) and restores the environment afterwards; Mesa reads the
// variable once per process. os.Setenv changes the C environment too, and C's
// setenv is not safe against a getenv running at that instant on another
// thread, such as another backend's native library probing concurrently: the
// window is a few microseconds, once per process. Set EGL_LOG_LEVEL yourself
// to avoid it.
//
// DeviceInfo comes from GL_VENDOR, GL_RENDERER and GL_VERSION and the compute
// limits (GL_MAX_COMPUTE_WORK_GROUP_COUNT, _SIZE and _INVOCATIONS,
// GL_MAX_COMPUTE_SHARED_MEMORY_SIZE); SM count and warp size from
// GL_NV_shader_thread_group, video memory from GL_NVX_gpu_memory_info (which
// MemInfo also uses), the UUID from GL_EXT_memory_object. Software renderers
// report the host's threads and memory. Extra holds the API, the EGL
// platform, vendor and version, the GLSL version and max_storage_block, the
// largest shader storage block (GL_MAX_SHADER_STORAGE_BLOCK_SIZE).
//
// # Threads, streams and events
//
// A GL context is current on one thread at a time. Each Device owns one
// context and one goroutine locked to its OS thread; every GL call of the
// device is a closure sent to that goroutine over a channel, which runs them
// in batches and flushes once a batch. Users never lock threads.
//
// OpenGL has one command queue per context. Streams are ordered queues onto
// it: every stream of a device feeds the same queue in the order calls are
// made, so work of different streams never overlaps on the GPU, and
// Stream.Wait is satisfied by that order alone. Events are a fence
// (glFenceSync) plus a GL_TIMESTAMP query (glQueryCounter); the context's
// goroutine watches the fences, so Event.Done makes no GL call, and
// Event.Elapsed is the difference of the two GPU timestamps (GL_TIME_ELAPSED
// queries are not used: llvmpipe reports 1 ns for them). OpenGL ES has
// timestamps only through GL_EXT_disjoint_timer_query; without it
// Event.Elapsed is NotSupported. GL_GPU_DISJOINT_EXT is not watched: a clock
// change or GPU reset between two events can make their Elapsed wrong.
//
// # Memory
//
// Buffers are GL buffer objects (immutable storage where
// GL_ARB_buffer_storage is there), bound to kernels as shader storage blocks.
// Write copies writes of up to 1 MiB and enqueues glBufferSubData. Where
// transfers are staged (below) on desktop OpenGL, buffers get immutable
// storage without GL_DYNAMIC_STORAGE_BIT, which drivers have no reason to
// keep in host memory (on an H200, NVIDIA's driver copied between buffers
// the client may update at 40 GB/s, a host-memory figure), and small Writes
// go through an upload ring instead: glBufferSubData into the ring (orphaned
// when full), then glCopyBufferSubData. Read
// enqueues glGetBufferSubData into the caller's slice, Fill
// glClearBufferSubData (GL_R32UI).
//
// Where the driver maps buffers persistently (glBufferStorage: OpenGL 4.4,
// GL_ARB_buffer_storage, or GL_EXT_buffer_storage on OpenGL ES;
// DeviceInfo.Extra["host_buffers"] says which), AllocHost returns a GL
// buffer in host memory (GL_CLIENT_STORAGE_BIT) mapped persistently and
// coherently, and WriteHost and ReadHost are one glCopyBufferSubData run by
// the GPU. Elsewhere AllocHost returns aligned Go memory, which the driver
// stages itself.
//
// A Write or Read of 2 MiB or more goes, on hardware devices with persistent
// mapping, through a device's ring of 16 mapped 4 MiB staging buffers
// (staging.go): up to 12 goroutines take 4 MiB chunks in turn and copy each
// into a slot (or out of it) while the GPU copies others, with a fence
// behind each chunk; a
// Write returns once its last chunk is staged, a Read once the caller's
// slice holds the data. On software renderers, where staging only adds a
// memcpy, a larger Write hands the caller's slice to glBufferSubData and
// returns once the driver has copied it. EnvStaging ("on", "off", "auto")
// overrides the choice.
//
// Copy moves, on hardware devices, the 16-byte-aligned bulk of a range with
// a compute shader (one uvec4 per invocation, grid-stride; copy.go), since
// glCopyBufferSubData may run on a copy engine that moves a fraction of the
// memory bandwidth; an unaligned range, the tail, and software renderers use
// glCopyBufferSubData. EnvCopy ("shader", "driver", "auto") overrides it.
// Copies to and from host and staging buffers use glCopyBufferSubData, or
// the copy shader with EnvHostCopy=shader (a knob for comparing the two on a
// GPU).
//
// OpenGL ES 3.1 has neither glGetBufferSubData nor glClearBufferSubData:
// there Read maps the range (glMapBufferRange, GL_MAP_READ_BIT) and copies
// it into the caller's slice, and Fill maps it for writing
// (GL_MAP_INVALIDATE_RANGE_BIT) and writes the value; both run in order on
// the context's thread, and the map waits for the work before it that uses
// the buffer, so a Fill there holds the queue until the GPU has finished
// with the buffer. ES buffers are mutable (glBufferData), since mapping
// immutable storage needs map bits at allocation.
//
// A buffer larger than GL_MAX_SHADER_STORAGE_BLOCK_SIZE (128 MiB on
// llvmpipe) can be allocated, transferred, copied and filled, but a launch
// that passes it to a kernel is refused with an InvalidArgument error naming
// the limit. DeviceInfo.MaxBufferBytes stays 0, so allocations are not
// capped at the storage-block size.
//
// # Kernels
//
// A kernel with subgroup operations is compiled from Source.Subgroups'
// GLSL (or GLSL ES) where the context has GL_KHR_shader_subgroup with every
// feature its section requires in the compute stage (DeviceInfo.Extra
// "subgroup_ops"); otherwise (llvmpipe in Mesa 22.3 has no
// GL_KHR_shader_subgroup), and with ANYGPU_SUBGROUPS=off (EnvSubgroups),
// from the text below, which runs it with subgroups of one thread; so do a
// launch whose block's thread count is not a multiple of the subgroup size
// (no subgroup is then partial) and a kernel whose subgroup GLSL the driver
// refuses.
//
// Source.GLSL is GLSL 430 compute, Source.GLSLES GLSL ES 3.10 compute
// ("#version 310 es"; one is put first where the text has none). A desktop
// context compiles Source.GLSL, or Source.GLSLES when the source has no GLSL
// and the driver has GL_ARB_ES3_1_compatibility. An OpenGL ES context
// compiles Source.GLSLES; a source without it but with Source.GLSL is
// compiled as GLSL ES derived from that text: its #version line becomes
// "#version 310 es", followed by the default precisions GLSL ES asks for
// ("precision highp float; precision highp int;", and highp for the image
// types and atomic_uint, which have no default), and a #line directive that
// keeps the line numbers those of Source.GLSL. Nothing else is rewritten: a
// text that uses what GLSL ES 3.10 lacks (implicit int/uint/float
// conversions, double, fma, desktop #extension lines) fails with the
// compiler's log and a hint saying the text was derived; such a text can keep
// its ES forms in "#ifdef GL_ES" sections (GL_ES is predefined by GLSL ES
// compilers), or the source can carry Source.GLSLES. This is how the built-in
// kernels (GLSL 430) run on OpenGL ES.
//
// A text holds one kernel, named after the Source, or several, named by
// Source.Params: the text is compiled once per kernel with "#define
// ANYGPU_KERNEL_<name> 1" (and the CompileOptions' defines) inserted after
// its #version line, with a #line directive that keeps the compiler's line
// numbers those of the source. CompileOptions.Debug
// adds "#pragma optimize(off)" and "#pragma debug(on)"; compiler flags are
// refused (NotSupported). A kernel that does not compile or link is a
// Compilation error whose log (errors.LogOf) holds each failing kernel's
// info log.
//
// Arguments follow the portable ABI: buffers at shader storage bindings
// 0..n-1, the scalars packed by backend.PackScalars as a std140 uniform block
// at binding n. A launch is checked against the program: storage bindings
// the arguments do not cover, a uniform block at another binding or larger
// than the scalars, and more buffers than
// GL_MAX_COMPUTE_SHADER_STORAGE_BLOCKS are refused before anything runs.
//
// The work-group size a kernel declares (local_size) is checked against the
// launch's block: a mismatch is a Launch error naming both. A kernel sized
// with the macros ANYGPU_BLOCK_X, _Y and _Z (see BlockMacroX) lets the launch
// choose: the backend compiles a variant per block size on first use, as the
// built-in kernels (kernels.Source) do. The same holds for GLSL ES.
// The launch limits are the context's (GL_MAX_COMPUTE_WORK_GROUP_COUNT,
// _SIZE and _INVOCATIONS, GL_MAX_COMPUTE_SHARED_MEMORY_SIZE and
// GL_MAX_SHADER_STORAGE_BLOCK_SIZE, all queried): OpenGL ES 3.1 guarantees
// less than desktop OpenGL (128 invocations per work group, 16 KiB of shared
// memory, 4 storage blocks per compute shader), so a block that runs on the
// desktop context may be refused on the ES one.
//
// Errors are *errors.Error values with Backend "opengl"; GL and EGL error
// codes map to categories and hints through the package's code tables.
//
// # Files
//
// The package has every backend's file map: driver.go (registration),
// device.go (the context and its thread), memory.go (buffers), stream.go
// (transfers and launches), event.go (fences and timestamps), module.go
// (compiling and kernels), errors.go (the GL and EGL code tables), info.go
// (probing and DeviceInfo); the client API setting (ANYGPU_OPENGL_API) is
// the driver's, in driver.go. The foreign calls live in internal/egl and
// internal/gl. Two more files hold what only this backend has: glsl.go, how a
// GLSL text is chosen (GLSL, GLSL ES, or GLSL ES derived from GLSL) and
// prepared for one kernel (kernel, define and block macros), and
// unsupported.go, what the backend reports on systems other than Linux.
package opengl
