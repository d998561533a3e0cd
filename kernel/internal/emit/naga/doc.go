// Package naga turns the per-kernel WGSL modules of the WGSL emitter into the
// other dialects — SPIR-V for Vulkan, GLSL 4.30 and GLSL ES 3.10 for OpenGL,
// and the Metal Shading Language — through github.com/gogpu/naga (pure Go),
// keeping the portable kernel ABI of every backend.
//
// # The modules this package takes
//
// SPIRV, GLSL, GLSLES and MSL take a map from kernel name to that kernel's
// WGSL module. Each module is a whole WGSL program for the native backends
// (not the WebGPU one):
//
//   - it declares exactly
//     const anygpu_block_x: u32 = 64u; (and anygpu_block_y, anygpu_block_z,
//     usually 1u), each on its own, with a decimal u32 literal;
//   - it has one @compute entry point named as the kernel (other entry
//     points are dropped), with
//     @workgroup_size(anygpu_block_x, anygpu_block_y, anygpu_block_z);
//   - the kernel's buffers are @group(0) @binding(i) var<storage, read_write>
//     name: array<T> (T may be atomic<u32> or atomic<i32>), i = 0..n-1 in
//     argument order;
//   - when the kernel has scalars, @group(0) @binding(n) var<uniform> of a
//     struct holding just the scalars in argument order (no AgLaunch: the
//     launch geometry exists only for WebGPU, which folds wide grids);
//   - the ids come from the real built-ins: local_invocation_id,
//     workgroup_id, num_workgroups (global_invocation_id too), and the
//     block size is read from the anygpu_block_* constants, in run-time
//     expressions only (not in array sizes or other constants: see below);
//   - no override declarations (the backends set only the block size);
//   - Go's integer semantics are written out in the WGSL (x/0 == x, x%0 == 0,
//     MinInt32/-1 wraps, shifts by the width or more): naga's GLSL writes
//     /, % and shifts bare, where GLSL leaves those cases undefined.
//
// # The block size
//
// The block size is the launch's on every backend, so the anygpu_block_*
// constants are not constants in the output. Before naga reads a module, each
// declaration becomes a private variable initialised to its value
// (var<private> anygpu_block_x: u32 = 64u;) and the attribute takes the
// values as literals, so naga cannot fold the block size into another
// constant and every use reads the variable. The dialects then initialise the
// variables with the launch's block: in SPIR-V with specialization constants
// SpecId 0, 1 and 2 (the WGSL values their defaults), composed into the
// WorkgroupSize built-in as glslc does for local_size_x_id = 0 etc., which
// backend/vulkan sets per launch; in GLSL with uint(ANYGPU_BLOCK_X) etc., the
// layout being local_size_x = ANYGPU_BLOCK_X etc. with #ifndef defaults; in MSL
// from the [[threads_per_threadgroup]] built-in. A module that uses the
// constants where WGSL needs a constant expression (an array size, another
// const) is refused by naga. To be sure nothing escaped, each module is
// translated twice with two different sets of sentinel values in place of
// the literals, and the two results, once the sentinels are replaced, must be
// the same.
//
// # The outputs
//
// SPIRV gives one module per kernel, entry point "main" (what backend/vulkan
// expects of Source.SPIRVKernels), SPIR-V 1.3, buffers at set 0 bindings
// 0..n-1 and the scalars' uniform block at binding n (which backend/vulkan
// recognises as the OpenGL-style scalar block); all() and any() become OpAll
// and OpAny, isNan and isInf are refused (test the bits instead). naga moves
// a module to SPIR-V 1.4 when it copies a workgroup array's row; such copies
// that nothing reads are dropped and the module kept 1.3.
//
// GLSL and GLSLES give one text with an #ifdef ANYGPU_KERNEL_<name> section
// per kernel (the form of backend.Source's GLSL), SSBOs at bindings 0..n-1
// and the scalars as a std140 uniform block at binding n.
//
// MSL gives one text with a kernel function per kernel named as the kernel,
// buffers at [[buffer(0..n-1)]] (pointers to their elements) and the scalars
// at [[buffer(n)]]; the kernels' #include lines are merged, naga's helper
// functions that several kernels share identically are kept once, and any
// other top-level name two kernels both declare is prefixed with the kernel's
// name in each, so kernels never clash.
//
// Every output is deterministic: kernels go in name order.
//
// # Files
//
//	module.go     reading a module: the block constants, the entry point, lowering
//	block.go      the sentinel translation that checks every use reads the launch's block
//	spirv.go      SPIRV
//	specconst.go  the SPIR-V word rewriter: LocalSize to specialization constants
//	relational.go all() and any() in SPIR-V (naga v0.19.0's writer lacks them)
//	version.go    SPIR-V 1.3 kept where naga moved to 1.4 for copies nothing reads
//	glsl.go       GLSL and GLSLES
//	msl.go        MSL
package naga
