// A host stand-in for the CUDA built-ins the emitted text uses, so that the
// tests can compile kernels as C++ (with the undefined-behaviour sanitizer
// in trap mode) and run them one thread after another on the CPU. Atomics
// are plain read-modify-writes (the threads run one at a time) done in
// unsigned arithmetic, so that only the emitted code can overflow.
#include <cmath>
#include <cstdio>
#include <cstring>

#define __global__
#define __device__
#define __shared__ static
#define __forceinline__ inline

struct anygpu_host_dim { unsigned x, y, z; };
static anygpu_host_dim threadIdx, blockIdx, blockDim, gridDim;

struct float4 { float x, y, z, w; };
static float4 make_float4(float x, float y, float z, float w) { return float4{x, y, z, w}; }
static void __syncthreads() {}

static unsigned __float_as_uint(float f) { unsigned u; memcpy(&u, &f, 4); return u; }
static float __uint_as_float(unsigned u) { float f; memcpy(&f, &u, 4); return f; }
static long long __double_as_longlong(double f) { long long u; memcpy(&u, &f, 8); return u; }
static double __longlong_as_double(long long u) { double f; memcpy(&f, &u, 8); return f; }
static float rsqrtf(float x) { return 1.0f / sqrtf(x); }
static double rsqrt(double x) { return 1.0 / sqrt(x); }

static int atomicAdd(int* p, int v) { int o = *p; *p = (int)((unsigned)o + (unsigned)v); return o; }
static unsigned atomicAdd(unsigned* p, unsigned v) { unsigned o = *p; *p = o + v; return o; }
static float atomicAdd(float* p, float v) { float o = *p; *p = o + v; return o; }
template <typename T> static T atomicMin(T* p, T v) { T o = *p; *p = v < o ? v : o; return o; }
template <typename T> static T atomicMax(T* p, T v) { T o = *p; *p = v > o ? v : o; return o; }
template <typename T> static T atomicAnd(T* p, T v) { T o = *p; *p = o & v; return o; }
template <typename T> static T atomicOr(T* p, T v) { T o = *p; *p = o | v; return o; }
template <typename T> static T atomicXor(T* p, T v) { T o = *p; *p = o ^ v; return o; }
template <typename T> static T atomicExch(T* p, T v) { T o = *p; *p = v; return o; }
template <typename T> static T atomicCAS(T* p, T c, T v) { T o = *p; if (o == c) *p = v; return o; }
