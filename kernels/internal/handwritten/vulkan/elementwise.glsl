// Element-wise ops (fill.comp ... mul.comp). Each group keeps the chunks of
// B = block.x elements the grid-stride semantics give it (element i of chunk
// c*G*B + g*B + t), and when B is a multiple of 4 moves every whole chunk as
// B/4 16-byte vectors, the first B/4 threads one vector each (fewer, wider
// memory transactions: the ops are bound by memory bandwidth); a partial last
// chunk and other block sizes go element by element. The including file
// defines ELEMENT(i) and VECTOR(v) (the op on element i, on vector v) and
// inputsFit(n).

void main() {
    uint n = p.n;
    if (skip1D() || !inputsFit(n)) return;
    uint B = gl_WorkGroupSize.x;
    uint t = gl_LocalInvocationID.x;
    uint stride = stride1D();
    if (B % 4u == 0u) {
        uint q = B / 4u;
        for (uint start = gl_WorkGroupID.x * B; start < n; start += stride) {
            if (n - start >= B) {
                if (t < q) {
                    uint v = start / 4u + t;
                    VECTOR(v);
                }
            } else {
                uint i = start + t;
                if (i < n) {
                    ELEMENT(i);
                }
            }
            if (n - start <= stride) break;
        }
        return;
    }
    for (uint i = first1D(); i < n; i += stride) {
        ELEMENT(i);
        if (n - i <= stride) break;
    }
}
