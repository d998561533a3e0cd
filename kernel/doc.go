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
// # What the language accepts
//
//   - Types: bool, int32, uint32, float32; int64, uint64 and float64 where the
//     device has them. int and uint are 32-bit in a kernel (as on GPUs).
//     Float4 is four float32s, for 4-wide loads and stores (Load4, Store4).
//   - Parameters: slices of those scalar types (buffers) and scalars.
//   - Locals: scalars, Float4, fixed-size arrays ([8]float32, [4][4]int32).
//   - Work-group shared arrays of a constant size: sh := kernel.Shared[[256]float32]().
//   - Statements: declarations (var, :=, const), assignment (=, op=, ++, --),
//     if/else, for (three-clause, condition only, infinite, and range over an
//     integer), break and continue (with labels), return (early return from a
//     kernel included), calls of helper functions declared in the same
//     package, and Barrier().
//   - Expressions: arithmetic, comparison, logical and bitwise operators on
//     scalars, conversions between scalar types, indexing of buffers and
//     arrays, the built-ins min, max and len (of arrays), and this package's
//     functions.
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
// remainder by zero gives 0 (as in WGSL), where Go would panic. Float
// results may differ by a few units in the last place between backends (a
// GPU may fuse a*b+c), and math functions are as accurate as the device's.
//
// Outside a translated kernel (a plain Go call), the thread and group
// functions return 0 and Barrier does nothing: run a kernel through a device
// (the CPU backend runs it as compiled Go) to execute it.
package kernel
