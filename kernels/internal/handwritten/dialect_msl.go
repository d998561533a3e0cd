package handwritten

// mslSource is the built-in ops in Metal Shading Language, one kernel
// function per op, named after it. Arguments follow the portable ABI: buffers
// at [[buffer(0)]] .. [[buffer(b-1)]] in argument order, the scalars packed
// into one struct at [[buffer(b)]] (its fields in argument order, which is
// how backend.PackScalars lays them out).
//
// The semantics are the Go kernels' (gokernels.go): every op loops
// grid-stride, so any grid and block size is correct; the one-dimensional ops
// use the x dimension only and leave work items with a y or z index (of the
// thread or of the group) idle; transpose and sgemm leave work items with a z
// index idle. Idle threads of a group that uses threadgroup memory still take
// part in its barriers, and a whole group leaves only together.
//
// Nothing here uses `using namespace metal`: the kernel names dot and
// transpose would otherwise meet metal::dot and metal::transpose.
//
// Index arithmetic stays in 32 bits where the launch guarantees it fits (the
// Metal backend refuses grids of more than 2^32-1 threads per dimension) and
// steps with anygpu_next, which cannot overflow; linear indices of the
// two-dimensional ops are 64-bit, since rows*cols may pass 2^32.
const mslSource = `// anygpu built-in kernels, Metal Shading Language.
#include <metal_stdlib>

// The most threads a threadgroup has on any Metal device, and so the size of
// the reductions' threadgroup arrays.
#define ANYGPU_MAX_THREADS 1024
// Floats in each of sgemm's two threadgroup tiles (4 KiB each).
#define ANYGPU_TILE_FLOATS 1024

struct anygpu_fill_params { uint n; float value; };
struct anygpu_n_params { uint n; };
struct anygpu_scale_params { uint n; float a; };
struct anygpu_transpose_params { uint rows; uint cols; };
struct anygpu_sgemm_params { uint m; uint n; uint k; float alpha; float beta; };

// anygpu_next is the next index of a grid-stride loop: i + step, or n when
// that reaches n or would overflow.
static inline uint anygpu_next(uint i, uint step, uint n) {
    return (n - i > step) ? i + step : n;
}

kernel void fill(device float* y [[buffer(0)]],
                 constant anygpu_fill_params& p [[buffer(1)]],
                 uint3 group [[threadgroup_position_in_grid]],
                 uint3 groups [[threadgroups_per_grid]],
                 uint3 lid [[thread_position_in_threadgroup]],
                 uint3 bsize [[threads_per_threadgroup]])
{
    if (group.y != 0 || group.z != 0 || lid.y != 0 || lid.z != 0) {
        return;
    }
    const uint step = groups.x * bsize.x;
    for (uint i = group.x * bsize.x + lid.x; i < p.n; i = anygpu_next(i, step, p.n)) {
        y[i] = p.value;
    }
}

kernel void copy(device float* y [[buffer(0)]],
                 device const float* x [[buffer(1)]],
                 constant anygpu_n_params& p [[buffer(2)]],
                 uint3 group [[threadgroup_position_in_grid]],
                 uint3 groups [[threadgroups_per_grid]],
                 uint3 lid [[thread_position_in_threadgroup]],
                 uint3 bsize [[threads_per_threadgroup]])
{
    if (group.y != 0 || group.z != 0 || lid.y != 0 || lid.z != 0) {
        return;
    }
    const uint step = groups.x * bsize.x;
    for (uint i = group.x * bsize.x + lid.x; i < p.n; i = anygpu_next(i, step, p.n)) {
        y[i] = x[i];
    }
}

kernel void scale(device float* y [[buffer(0)]],
                  device const float* x [[buffer(1)]],
                  constant anygpu_scale_params& p [[buffer(2)]],
                  uint3 group [[threadgroup_position_in_grid]],
                  uint3 groups [[threadgroups_per_grid]],
                  uint3 lid [[thread_position_in_threadgroup]],
                  uint3 bsize [[threads_per_threadgroup]])
{
    if (group.y != 0 || group.z != 0 || lid.y != 0 || lid.z != 0) {
        return;
    }
    const uint step = groups.x * bsize.x;
    for (uint i = group.x * bsize.x + lid.x; i < p.n; i = anygpu_next(i, step, p.n)) {
        y[i] = p.a * x[i];
    }
}

kernel void axpy(device float* y [[buffer(0)]],
                 device const float* x [[buffer(1)]],
                 constant anygpu_scale_params& p [[buffer(2)]],
                 uint3 group [[threadgroup_position_in_grid]],
                 uint3 groups [[threadgroups_per_grid]],
                 uint3 lid [[thread_position_in_threadgroup]],
                 uint3 bsize [[threads_per_threadgroup]])
{
    if (group.y != 0 || group.z != 0 || lid.y != 0 || lid.z != 0) {
        return;
    }
    const uint step = groups.x * bsize.x;
    for (uint i = group.x * bsize.x + lid.x; i < p.n; i = anygpu_next(i, step, p.n)) {
        y[i] = p.a * x[i] + y[i];
    }
}

kernel void add(device float* z [[buffer(0)]],
                device const float* x [[buffer(1)]],
                device const float* y [[buffer(2)]],
                constant anygpu_n_params& p [[buffer(3)]],
                uint3 group [[threadgroup_position_in_grid]],
                uint3 groups [[threadgroups_per_grid]],
                uint3 lid [[thread_position_in_threadgroup]],
                uint3 bsize [[threads_per_threadgroup]])
{
    if (group.y != 0 || group.z != 0 || lid.y != 0 || lid.z != 0) {
        return;
    }
    const uint step = groups.x * bsize.x;
    for (uint i = group.x * bsize.x + lid.x; i < p.n; i = anygpu_next(i, step, p.n)) {
        z[i] = x[i] + y[i];
    }
}

kernel void mul(device float* z [[buffer(0)]],
                device const float* x [[buffer(1)]],
                device const float* y [[buffer(2)]],
                constant anygpu_n_params& p [[buffer(3)]],
                uint3 group [[threadgroup_position_in_grid]],
                uint3 groups [[threadgroups_per_grid]],
                uint3 lid [[thread_position_in_threadgroup]],
                uint3 bsize [[threads_per_threadgroup]])
{
    if (group.y != 0 || group.z != 0 || lid.y != 0 || lid.z != 0) {
        return;
    }
    const uint step = groups.x * bsize.x;
    for (uint i = group.x * bsize.x + lid.x; i < p.n; i = anygpu_next(i, step, p.n)) {
        z[i] = x[i] * y[i];
    }
}

// anygpu_group_sum adds partial[0 .. count) into partial[0] in a tree that
// works for any count up to ANYGPU_MAX_THREADS. Every thread of the
// threadgroup must call it (it holds barriers); only lanes (threads whose y
// and z are 0) add.
static inline void anygpu_group_sum(threadgroup float* partial, uint count, uint t, bool lane) {
    for (uint active = count; active > 1;) {
        const uint upper = (active + 1) / 2;
        if (lane && t < active - upper) {
            partial[t] += partial[t + upper];
        }
        metal::threadgroup_barrier(metal::mem_flags::mem_threadgroup);
        active = upper;
    }
}

// reduce_sum writes group g's grid-stride partial sum to out[g]. With a grid
// of one group out[0] is the total, and out may be x: every read of x comes
// before the barrier that precedes the write.
kernel void reduce_sum(device float* out [[buffer(0)]],
                       device const float* x [[buffer(1)]],
                       constant anygpu_n_params& p [[buffer(2)]],
                       uint3 group [[threadgroup_position_in_grid]],
                       uint3 groups [[threadgroups_per_grid]],
                       uint3 lid [[thread_position_in_threadgroup]],
                       uint3 bsize [[threads_per_threadgroup]])
{
    threadgroup float partial[ANYGPU_MAX_THREADS];
    if (group.y != 0 || group.z != 0) {
        return; // the whole threadgroup leaves together
    }
    const bool lane = lid.y == 0 && lid.z == 0;
    if (lane) {
        float s = 0.0f;
        const uint step = groups.x * bsize.x;
        for (uint i = group.x * bsize.x + lid.x; i < p.n; i = anygpu_next(i, step, p.n)) {
            s += x[i];
        }
        partial[lid.x] = s;
    }
    metal::threadgroup_barrier(metal::mem_flags::mem_threadgroup);
    anygpu_group_sum(partial, bsize.x, lid.x, lane);
    if (lane && lid.x == 0) {
        out[group.x] = partial[0];
    }
}

// dot writes group g's grid-stride partial sum of x[i]*y[i] to out[g]; its
// second pass is reduce_sum.
kernel void dot(device float* out [[buffer(0)]],
                device const float* x [[buffer(1)]],
                device const float* y [[buffer(2)]],
                constant anygpu_n_params& p [[buffer(3)]],
                uint3 group [[threadgroup_position_in_grid]],
                uint3 groups [[threadgroups_per_grid]],
                uint3 lid [[thread_position_in_threadgroup]],
                uint3 bsize [[threads_per_threadgroup]])
{
    threadgroup float partial[ANYGPU_MAX_THREADS];
    if (group.y != 0 || group.z != 0) {
        return;
    }
    const bool lane = lid.y == 0 && lid.z == 0;
    if (lane) {
        float s = 0.0f;
        const uint step = groups.x * bsize.x;
        for (uint i = group.x * bsize.x + lid.x; i < p.n; i = anygpu_next(i, step, p.n)) {
            s = metal::fma(x[i], y[i], s);
        }
        partial[lid.x] = s;
    }
    metal::threadgroup_barrier(metal::mem_flags::mem_threadgroup);
    anygpu_group_sum(partial, bsize.x, lid.x, lane);
    if (lane && lid.x == 0) {
        out[group.x] = partial[0];
    }
}

// transpose: out[c*rows + r] = src[r*cols + c]; thread x walks columns,
// thread y rows.
kernel void transpose(device float* out [[buffer(0)]],
                      device const float* src [[buffer(1)]],
                      constant anygpu_transpose_params& p [[buffer(2)]],
                      uint3 group [[threadgroup_position_in_grid]],
                      uint3 groups [[threadgroups_per_grid]],
                      uint3 lid [[thread_position_in_threadgroup]],
                      uint3 bsize [[threads_per_threadgroup]])
{
    if (group.z != 0 || lid.z != 0) {
        return;
    }
    const uint stepx = groups.x * bsize.x;
    const uint stepy = groups.y * bsize.y;
    for (uint r = group.y * bsize.y + lid.y; r < p.rows; r = anygpu_next(r, stepy, p.rows)) {
        for (uint c = group.x * bsize.x + lid.x; c < p.cols; c = anygpu_next(c, stepx, p.cols)) {
            out[ulong(c) * p.rows + r] = src[ulong(r) * p.cols + c];
        }
    }
}

// sgemm: row-major C(m×n) = alpha·A(m×k)·B(k×n) + beta·C, in tiles of
// bsize.y rows × bsize.x columns of C. Each tile walks k in steps of tk,
// staging a bsize.y×tk piece of A and a tk×bsize.x piece of B in threadgroup
// memory; tk is chosen so both fit ANYGPU_TILE_FLOATS for any block shape.
// When beta is 0, C is not read.
kernel void sgemm(device float* c [[buffer(0)]],
                  device const float* a [[buffer(1)]],
                  device const float* b [[buffer(2)]],
                  constant anygpu_sgemm_params& p [[buffer(3)]],
                  uint3 group [[threadgroup_position_in_grid]],
                  uint3 groups [[threadgroups_per_grid]],
                  uint3 lid [[thread_position_in_threadgroup]],
                  uint3 bsize [[threads_per_threadgroup]])
{
    threadgroup float as[ANYGPU_TILE_FLOATS];
    threadgroup float bs[ANYGPU_TILE_FLOATS];
    if (group.z != 0) {
        return; // the whole threadgroup leaves together
    }
    const bool lane = lid.z == 0;
    const uint bx = bsize.x;
    const uint by = bsize.y;
    const uint tk = metal::max(1u, metal::min(16u, ANYGPU_TILE_FLOATS / metal::max(bx, by)));
    const uint nthreads = bx * by;
    const uint t = lid.y * bx + lid.x;
    const uint stepx = groups.x * bx;
    const uint stepy = groups.y * by;
    for (uint i0 = group.y * by; i0 < p.m; i0 = anygpu_next(i0, stepy, p.m)) {
        for (uint j0 = group.x * bx; j0 < p.n; j0 = anygpu_next(j0, stepx, p.n)) {
            float acc = 0.0f;
            for (uint k0 = 0; k0 < p.k; k0 = anygpu_next(k0, tk, p.k)) {
                const uint kn = metal::min(tk, p.k - k0);
                if (lane) {
                    for (uint e = t; e < by * tk; e += nthreads) {
                        const uint r = e / tk;
                        const uint kk = e % tk;
                        as[e] = (r < p.m - i0 && kk < kn) ? a[ulong(i0 + r) * p.k + (k0 + kk)] : 0.0f;
                    }
                    for (uint e = t; e < tk * bx; e += nthreads) {
                        const uint kk = e / bx;
                        const uint cc = e % bx;
                        bs[e] = (kk < kn && cc < p.n - j0) ? b[ulong(k0 + kk) * p.n + (j0 + cc)] : 0.0f;
                    }
                }
                metal::threadgroup_barrier(metal::mem_flags::mem_threadgroup);
                if (lane) {
                    for (uint kk = 0; kk < kn; ++kk) {
                        acc = metal::fma(as[lid.y * tk + kk], bs[kk * bx + lid.x], acc);
                    }
                }
                metal::threadgroup_barrier(metal::mem_flags::mem_threadgroup);
            }
            if (lane && lid.y < p.m - i0 && lid.x < p.n - j0) {
                device float* dst = c + (ulong(i0 + lid.y) * p.n + (j0 + lid.x));
                *dst = (p.beta == 0.0f) ? p.alpha * acc : p.alpha * acc + p.beta * *dst;
            }
        }
    }
}
`
