// Package cuda emits CUDA C++ for NVRTC from the kernel IR
// (kernel/internal/ir): one translation unit per module, with an
// extern "C" __global__ entry point per kernel, named as the Go function, and
// the module's helpers as __device__ functions.
//
// # ABI
//
// The entry points keep the built-in kernels' ABI (backend/cuda/doc.go,
// backend/cuda/launchargs.go): every Go parameter is one kernel parameter, in
// the Go signature's order. A slice is a pointer to its element type (the
// CUdeviceptr of the buffer); a scalar is passed by value as its own
// parameter, 4 bytes for int32, uint32 and float32 and 8 for int64, uint64
// and float64 (each parameter is naturally aligned by the CUDA ABI, which is
// what cuLaunchKernel's kernelParams array of pointers to values expects).
// There is no packed scalar block on CUDA. The block size is the launch's.
//
// # Semantics
//
// The text keeps Go's semantics where C++ would not (ir/expr.go):
//
//   - signed +, -, * and unary - are computed in the unsigned type and cast
//     back (signed overflow is undefined in C++);
//   - shifts by the type's width or more give 0 (or the sign, for a signed
//     right shift), through anygpu_shl_* and anygpu_shr_* helpers;
//   - x/0 == x, x%0 == 0 and most-negative/-1 wraps (anygpu_div_*, anygpu_rem_*);
//   - float to integer conversion truncates, saturates at the type's limits,
//     and gives 0 for NaN, with explicit comparisons (anygpu_cvt_*) rather
//     than a C++ cast, whose out-of-range result is undefined;
//   - min and max of floats are Go's (NaN if either is NaN, min(-0, +0) is -0),
//     which fminf and fmaxf are not; Abs of the most negative integer is itself;
//   - float constants are exact: a decimal literal that reads back to the same
//     value however the compiler rounds it, else a hexadecimal one; infinities
//     and NaNs are bit patterns (__uint_as_float, __longlong_as_double).
//
// Math calls are the full-precision CUDA functions (sqrtf, expf, ...; sqrt,
// exp, ... for float64); nothing assumes --use_fast_math. float16 is not
// supported yet (NVRTC does not always find cuda_fp16.h): Emit reports
// NotSupported.
//
// Names are the Go names, except where one is a C++ or CUDA word or one the
// emitted text uses itself (those get a numeric suffix). The emitter's own
// helpers are named anygpu_*. The text is deterministic: the same module
// gives the same bytes.
package cuda
