// The two reductions (reduce_sum.comp, dot.comp): each group adds its
// grid-stride share, four chunks of the grid at a time to keep several loads
// in flight, then the group's partial sums are added in shared memory (a
// tree for any block size) and the total goes to out[g]. A group with no
// elements writes 0; with a grid of one group out may be the input itself,
// since out[0] is written after every read.
shared float partial[gl_WorkGroupSize.x];

void main() {
    if (gl_WorkGroupID.y != 0u || gl_WorkGroupID.z != 0u) return;
    uint g = gl_WorkGroupID.x;
    if (g >= uint(outv.length())) return;
    uint n = p.n;
    bool live = gl_LocalInvocationID.y == 0u && gl_LocalInvocationID.z == 0u && inputsFit(n);
    uint t = gl_LocalInvocationID.x;
    uint B = gl_WorkGroupSize.x;
    uint stride = stride1D();
    float s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
    if (live) {
        uint i = g * B + t;
        // Four chunks at once while the fourth is in range (no overflow:
        // i < n and 3*stride fits in what is left).
        while (i < n && stride <= (n - i) / 4u) {
            s0 += term(i);
            s1 += term(i + stride);
            s2 += term(i + 2u * stride);
            s3 += term(i + 3u * stride);
            i += 4u * stride;
        }
        while (i < n) {
            s0 += term(i);
            if (n - i <= stride) break;
            i += stride;
        }
    }
    if (gl_LocalInvocationID.y == 0u && gl_LocalInvocationID.z == 0u) {
        partial[t] = (s0 + s1) + (s2 + s3);
    }
    barrier();
    for (uint w = B; w > 1u;) {
        uint h = (w + 1u) / 2u;
        if (gl_LocalInvocationID.y == 0u && gl_LocalInvocationID.z == 0u && t < w - h) {
            partial[t] += partial[t + h];
        }
        barrier();
        w = h;
    }
    if (t == 0u && gl_LocalInvocationID.y == 0u && gl_LocalInvocationID.z == 0u) {
        outv[g] = partial[0];
    }
}
