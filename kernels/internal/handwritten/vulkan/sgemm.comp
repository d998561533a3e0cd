#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

// sgemm(c buf, a buf, b buf, m u32, n u32, k u32, alpha f32, beta f32):
// row-major C(m×n) = alpha·A(m×k)·B(k×n) + beta·C; C is not read when beta is 0.
//
// With 16×16 blocks (how every caller in anygpu launches it) each group
// computes 64×64 tiles of C, 4×4 per thread, from 64×16 and 16×64 tiles of
// A and B staged in shared memory; the groups stride over the tiles by the
// grid, so any grid is correct (groups beyond the tiles do nothing). Any
// other block shape takes a plain loop: thread x is a column and thread y a
// row, each striding by the grid.
layout(set = 0, binding = 0) buffer C { float c[]; };
layout(set = 0, binding = 1) readonly buffer A { float a[]; };
layout(set = 0, binding = 2) readonly buffer B { float b[]; };
layout(push_constant) uniform Params { uint m; uint n; uint k; float alpha; float beta; } p;

const uint T = 64u;  // tile of C
const uint TK = 16u; // depth of a step
shared float As[TK][T + 1u]; // As[kk][row], padded against bank conflicts
shared float Bs[TK][T];      // Bs[kk][col]

float result(float acc, uint idx) {
    float v = p.alpha * acc;
    if (p.beta != 0.0) v += p.beta * c[idx];
    return v;
}

void tiled(uint M, uint N, uint K) {
    uint lx = gl_LocalInvocationID.x, ly = gl_LocalInvocationID.y;
    uint tid = ly * 16u + lx;
    uint tilesM = (M + T - 1u) / T, tilesN = (N + T - 1u) / T;
    for (uint tm = gl_WorkGroupID.y; tm < tilesM; tm += gl_NumWorkGroups.y) {
        for (uint tn = gl_WorkGroupID.x; tn < tilesN; tn += gl_NumWorkGroups.x) {
            uint row0 = tm * T, col0 = tn * T;
            float acc[4][4];
            for (uint i = 0u; i < 4u; i++)
                for (uint j = 0u; j < 4u; j++) acc[i][j] = 0.0;
            for (uint k0 = 0u; k0 < K; k0 += TK) {
                for (uint e = tid; e < T * TK; e += 256u) {
                    uint r = e / TK, kk = e % TK;
                    uint gr = row0 + r, gk = k0 + kk;
                    As[kk][r] = (gr < M && gk < K) ? a[gr * K + gk] : 0.0;
                    uint kb = e / T, cb = e % T;
                    uint gkb = k0 + kb, gc = col0 + cb;
                    Bs[kb][cb] = (gkb < K && gc < N) ? b[gkb * N + gc] : 0.0;
                }
                barrier();
                for (uint kk = 0u; kk < TK; kk++) {
                    float ar[4], br[4];
                    for (uint i = 0u; i < 4u; i++) ar[i] = As[kk][ly + 16u * i];
                    for (uint j = 0u; j < 4u; j++) br[j] = Bs[kk][lx + 16u * j];
                    for (uint i = 0u; i < 4u; i++)
                        for (uint j = 0u; j < 4u; j++) acc[i][j] = fma(ar[i], br[j], acc[i][j]);
                }
                barrier();
            }
            for (uint i = 0u; i < 4u; i++) {
                uint r = row0 + ly + 16u * i;
                if (r >= M) continue;
                for (uint j = 0u; j < 4u; j++) {
                    uint col = col0 + lx + 16u * j;
                    if (col < N) c[r * N + col] = result(acc[i][j], r * N + col);
                }
            }
        }
    }
}

void plain(uint M, uint N, uint K) {
    if (gl_LocalInvocationID.z != 0u) return;
    uint rstride = gl_NumWorkGroups.y * gl_WorkGroupSize.y, cstride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    for (uint i = gl_WorkGroupID.y * gl_WorkGroupSize.y + gl_LocalInvocationID.y; i < M; i += rstride) {
        for (uint j = gl_WorkGroupID.x * gl_WorkGroupSize.x + gl_LocalInvocationID.x; j < N; j += cstride) {
            float acc = 0.0;
            for (uint q = 0u; q < K; q++) acc = fma(a[i * K + q], b[q * N + j], acc);
            c[i * N + j] = result(acc, i * N + j);
            if (N - j <= cstride) break;
        }
        if (M - i <= rstride) break;
    }
}

void main() {
    if (gl_WorkGroupID.z != 0u) return;
    uint M = p.m, N = p.n, K = p.k;
    if (!fits(uint(c.length()), M, N) || !fits(uint(a.length()), M, K) || !fits(uint(b.length()), K, N)) return;
    if (gl_WorkGroupSize.x == 16u && gl_WorkGroupSize.y == 16u && gl_WorkGroupSize.z == 1u) {
        tiled(M, N, K);
    } else {
        plain(M, N, K);
    }
}
