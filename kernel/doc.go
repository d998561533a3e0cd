// Package kernel is the language GPU kernels are written in: ordinary Go,
// type-checked by the Go compiler, translated to every backend's dialect.
//
// A kernel is a Go function marked with the directive //gpu:kernel. Its slice
// parameters are buffers (bound in argument order), its scalar parameters are
// scalars (packed in argument order into one block), and it returns nothing.
// It finds its thread through the functions of this package:
//
//	//gpu:kernel
//	func Saxpy(y, x []float32, n uint32, a float32) {
//		i := kernel.GlobalX()
//		if i < n {
//			y[i] = a*x[i] + y[i]
//		}
//	}
//
// The same text becomes CUDA C++ (NVRTC), WGSL (WebGPU), SPIR-V (Vulkan), GLSL
// 4.30 and GLSL ES 3.10 (OpenGL, OpenGL ES), MSL (Metal) and compiled Go (the
// CPU backend): at build time through
//
//	//go:generate go run github.com/anygpu/gpu/cmd/gpu kernels
//
// which writes one file per package with each kernel's gpu.Source, or at run
// time through Translate.
//
// A second directive under //gpu:kernel, //gpu:maxthreads N (1 to 1024),
// promises that the kernel is never launched with more than N threads per
// group. CUDA compiles for it (__launch_bounds__(N): NVRTC may give each
// thread as many registers as N threads leave) and refuses a larger launch;
// other dialects ignore it. Under it, //gpu:mingroups M (1 to 32) asks CUDA
// to fit M such groups on a compute unit at once (__launch_bounds__(N, M):
// fewer registers a thread, more groups in flight to hide latency; too few
// registers spill). Loops with a constant trip count are unrolled
// before any dialect is written when they are small (register tiles: an
// [8][8]float32 indexed by loop counters stays in registers); a larger one
// stays a loop, which CUDA is asked to unroll (#pragma unroll).
//
// //gpu:variant NAME PARAM=VALUE ... (any number of lines under
// //gpu:kernel) adds kernel NAME: the kernel with each named scalar
// parameter fixed to VALUE, a literal or the name of a constant of the
// package. The variant keeps the kernel's parameters (a launch passes the
// same arguments; the fixed ones are not read), so a generic kernel, say one
// that branches on a dtype code, is written once and launched as the copy of
// the dtype at hand, which each compiler folds to that dtype's path: fewer
// instructions and registers, as a C++ template instantiation gives.
//
// # What the language accepts
//
//   - Types: bool, int32, uint32, float32; int64, uint64 and float64 where the
//     device has them. int and uint are 32-bit in a kernel (as on GPUs).
//     Float4 is four float32s, for 4-wide loads and stores (Load4, Store4).
//     Float16 is a buffer element only ([]kernel.Float16), read through
//     ToFloat32 and written with ToFloat16: arithmetic is in float32.
//   - Parameters: slices of those scalar types (buffers) and scalars.
//   - Locals: scalars, Float4, fixed-size arrays ([8]float32, [4][4]int32).
//   - Work-group shared arrays of a constant size: sh := kernel.Shared[[256]float32]().
//   - Statements: declarations (var, :=, const), assignment (=, op=, ++, --),
//     if/else, for (three-clause, condition only, infinite, and range over an
//     integer), break and continue (with labels), return (early return from a
//     kernel included), calls of helper functions declared in the same
//     package, Barrier(), and MatMulAdd (a group's tile multiply-accumulate
//     on shared float32 arrays: CUDA's tensor cores for bfloat16 and float16
//     precision, the packed matrix multiply of the CPU's sgemm on the CPU,
//     a loop over the tile elsewhere) and MatMulAddFrom (the same with A and
//     B read straight from buffers), and MMA (a matrix unit's 16×16·16×8
//     multiply-accumulate on fragments held in local arrays, in PTX's
//     mma.m16n8k16 layout: mma.sync on CUDA, warp-synchronous; a shared
//     scratch between two Barriers elsewhere; the kernel declares
//     //gpu:maxthreads N with N a multiple of 32), LoadMatrices4 and
//     LoadMatrices2 (MMA's fragments from a shared array: ldmatrix on CUDA,
//     under MMA's rules) and CopyAsync, CopyAsyncCommit and CopyAsyncWait
//     (16-byte copies from a buffer to a shared array: cp.async on CUDA, a
//     plain copy elsewhere).
//   - Expressions: arithmetic, comparison, logical and bitwise operators on
//     scalars, conversions between scalar types, indexing of buffers and
//     arrays, the built-ins min, max and len (of arrays), and this package's
//     functions, the subgroup (warp) operations and PackHalves (two float32s
//     rounded to bfloat16 or float16 in one word: MMA's operands) among them.
//     Taking an address (&) is allowed only for an atomic's element and
//     MMA's and LoadMatrices' fragments.
//
// Everything else (maps, closures, goroutines, channels, interfaces, defer,
// allocation, strings, recursion, panics, pointers, methods, len of a buffer)
// is a compile error with the file:line:col of the Go source, what is not
// allowed and what to write instead.
//
// # Semantics every backend keeps
//
// Integer arithmetic wraps (two's complement). Shifts follow Go: a shift by
// the type's width or more gives 0 (or the sign, for a signed right shift).
// Integer division truncates; division by zero gives the dividend and the
// remainder by zero gives 0 (as in WGSL), where Go would panic. A float to
// integer conversion truncates and saturates, NaN giving 0. Integers are
// the same bits on every backend.
//
// Floats are where devices differ, within limits:
//
//   - a*b + c may be fused into one rounding (Go's spec allows it as well);
//   - math functions are as accurate as the device's own (a few units in the
//     last place on GPUs; Go's math package on the CPU);
//   - GPUs may flush subnormal results to zero;
//   - Vulkan, OpenGL and WebGPU compilers may assume that arithmetic meets
//     no NaN or infinity: x*0 and x-x may become 0 and x != x false. Test
//     for NaN through the bits (kernel.Float32bits(x)&0x7fffffff > 0x7f800000),
//     and keep NaN and Inf out of arithmetic whose result matters. CUDA,
//     Metal and the CPU keep IEEE semantics.
//
// Out-of-range indexing is the kernel's error: a GPU reads garbage or zero
// and drops the write; the CPU backend reports the launch as failed.
//
// # The block size and the ids
//
// The launch's block is the group size on every backend (WebGPU compiles a
// pipeline per block size, Vulkan sets specialization constants, OpenGL
// compiles per block, CUDA and Metal take it at dispatch). Grids wider than
// a backend's dispatch limit are folded by the backend; the kernel's ids are
// always the launch's.
//
// Outside a translated kernel (a plain Go call), the thread and group
// functions return 0, Barrier does nothing, MMA and LoadMatrices panic and
// CopyAsync copies: run a kernel through a device (the CPU backend runs it
// as compiled Go) to execute it.
//
// # Subgroups and float16 on each backend
//
// The subgroup operations (SubgroupSize, SubgroupAdd, SubgroupShuffle, ...)
// are CUDA's warp intrinsics on CUDA (a subgroup of 32). A kernel that uses
// them also gets a subgroup variant (Source.Subgroups: WGSL, SPIR-V with the
// GroupNonUniform capabilities, GLSL and GLSL ES with GL_KHR_shader_subgroup)
// that runs them on the device's own subgroups, of the device's size
// (DeviceInfo.WarpSize where the backend knows it): Vulkan uses it where
// VkPhysicalDeviceSubgroupProperties has, in the compute stage, the
// operations the kernel needs (basic; arithmetic for SubgroupAdd and the
// integer SubgroupMin and SubgroupMax; shuffle for the shuffles and the float
// SubgroupMin and SubgroupMax, which keep Go's min and max through a
// butterfly; ballot for SubgroupBroadcastFirst), OpenGL where the context has
// those GL_KHR_shader_subgroup features, WebGPU where the adapter has
// wgpu's subgroup feature. Everywhere else (those backends without the
// operations, Metal, the CPU) and with ANYGPU_SUBGROUPS=off, they run as a
// subgroup of one thread, which the contract (see SubgroupSize) makes
// correct: the same kernel gives the same results, only without the speed of
// a warp exchange.
//
// A []kernel.Float16 is a buffer of 16-bit elements on CUDA (converted with
// the PTX instructions). WGSL, and the SPIR-V, GLSL and MSL written from it,
// cannot address 16-bit elements without the shader-f16 feature, so there
// the buffer is read as 4-byte words (keep its length even) and a store
// replaces its half of a word by compare-and-swap, so that threads storing
// neighbouring elements never race; the CPU runs the same form. Every
// backend rounds to nearest even and keeps subnormals, infinities and NaN
// (a NaN's payload and sign may differ between CUDA and the others).
//
// # Not yet
//
// A length of a buffer is not in the language yet. Kernels with float64 or int64 arithmetic run on
// CUDA and the CPU only: the WGSL they would need does not exist, and the
// SPIR-V, GLSL and MSL dialects come from the WGSL, so those dialects leave
// such kernels out (Source.Unsupported), and Module.Kernel on those backends
// reports NotSupported with the reason.
package kernel
