// Declarations of the CUDA built-ins the emitted text uses, for checking it
// with clang (-nocudainc -nocudalib) where no CUDA toolkit is installed. NVRTC
// declares all of these itself; the emitted text includes nothing.
#include "__clang_cuda_builtin_vars.h"
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __shared__ __attribute__((shared))
#define __forceinline__ __attribute__((always_inline))
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))

struct __attribute__((aligned(16))) float4 { float x, y, z, w; };
__device__ float4 make_float4(float x, float y, float z, float w);
#define __align__(n) __attribute__((aligned(n)))
struct __attribute__((aligned(8))) float2 { float x, y; };
__device__ float2 make_float2(float x, float y);

__device__ void __syncthreads();
__device__ unsigned __float_as_uint(float);
__device__ float __uint_as_float(unsigned);
__device__ long long __double_as_longlong(double);
__device__ double __longlong_as_double(long long);

#define ATOMIC(T) \
	__device__ T atomicAdd(T*, T); __device__ T atomicMin(T*, T); __device__ T atomicMax(T*, T); \
	__device__ T atomicAnd(T*, T); __device__ T atomicOr(T*, T); __device__ T atomicXor(T*, T); \
	__device__ T atomicExch(T*, T); __device__ T atomicCAS(T*, T, T);
ATOMIC(int)
ATOMIC(unsigned)
__device__ float atomicAdd(float*, float);

#define MATH(f, T) __device__ T f(T);
#define MATH2(f, T) __device__ T f(T, T);
MATH(sqrtf, float) MATH(rsqrtf, float) MATH(expf, float) MATH(exp2f, float) MATH(logf, float)
MATH(log2f, float) MATH(sinf, float) MATH(cosf, float) MATH(tanhf, float) MATH2(powf, float)
MATH(floorf, float) MATH(ceilf, float) MATH(truncf, float) MATH(fabsf, float)
__device__ float fmaf(float, float, float);
MATH(sqrt, double) MATH(rsqrt, double) MATH(exp, double) MATH(exp2, double) MATH(log, double)
MATH(log2, double) MATH(sin, double) MATH(cos, double) MATH(tanh, double) MATH2(pow, double)
MATH(floor, double) MATH(ceil, double) MATH(trunc, double) MATH(fabs, double)
__device__ double fma(double, double, double);
#undef MATH
#undef MATH2
#undef ATOMIC
#define SHFL(T) \
	__device__ T __shfl_sync(unsigned, T, int, int = 32); __device__ T __shfl_xor_sync(unsigned, T, int, int = 32);
SHFL(int)
SHFL(unsigned)
SHFL(float)
