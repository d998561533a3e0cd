#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

// transpose(out buf, in buf, rows u32, cols u32): out[c*rows+r] = in[r*cols+c]
//
// Each group moves block-sized tiles through shared memory (padded against
// bank conflicts), so both the reads of in and the writes of out are
// coalesced; groups stride over the tiles by the grid.
layout(set = 0, binding = 0) writeonly buffer Out { float outv[]; };
layout(set = 0, binding = 1) readonly buffer In { float inv[]; };
layout(push_constant) uniform Params { uint rows; uint cols; } p;

shared float tile[gl_WorkGroupSize.y * (gl_WorkGroupSize.x + 1u)];

void main() {
    if (gl_WorkGroupID.z != 0u) return;
    uint rows = p.rows, cols = p.cols;
    if (!fits(uint(inv.length()), rows, cols) || !fits(uint(outv.length()), rows, cols)) return;
    uint bx = gl_WorkGroupSize.x, by = gl_WorkGroupSize.y;
    uint lx = gl_LocalInvocationID.x, ly = gl_LocalInvocationID.y;
    bool live = gl_LocalInvocationID.z == 0u;
    uint k = ly * bx + lx;             // this thread's element of the transposed write
    uint rr = k % by, cc = k / by;
    uint rstride = gl_NumWorkGroups.y * by, cstride = gl_NumWorkGroups.x * bx;
    for (uint r0 = gl_WorkGroupID.y * by; r0 < rows; r0 += rstride) {
        for (uint c0 = gl_WorkGroupID.x * bx; c0 < cols; c0 += cstride) {
            uint r = r0 + ly, c = c0 + lx;
            if (live && r < rows && c < cols) {
                tile[ly * (bx + 1u) + lx] = inv[r * cols + c];
            }
            barrier();
            r = r0 + rr;
            c = c0 + cc;
            if (live && r < rows && c < cols) {
                outv[c * rows + r] = tile[rr * (bx + 1u) + cc];
            }
            barrier();
            if (cols - c0 <= cstride) break;
        }
        if (rows - r0 <= rstride) break;
    }
}
