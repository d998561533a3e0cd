package metal

// internalMSL holds the kernels the backend itself runs, compiled once per
// device on first use:
//
//   - anygpu_fill32 fills count 32-bit words with value: Fill of a pattern
//     whose four bytes differ (a uniform byte is a blit fillBuffer:range:value:).
//   - anygpu_copy8 copies count bytes: Copy at offsets or sizes that are not
//     multiples of 4, which the blit copy on macOS does not take.
//
// Both loop grid-stride over a count of at most maxKernelChunk, bound with
// setBuffer:offset:atIndex: at the range's start.
const internalMSL = `// anygpu internal kernels of the Metal backend.
#include <metal_stdlib>

struct anygpu_fill32_params { uint count; uint value; };
struct anygpu_copy8_params { uint count; };

kernel void anygpu_fill32(device uint* dst [[buffer(0)]],
                          constant anygpu_fill32_params& p [[buffer(1)]],
                          uint i [[thread_position_in_grid]],
                          uint n [[threads_per_grid]])
{
    for (uint j = i; j < p.count; j = (p.count - j > n) ? j + n : p.count) {
        dst[j] = p.value;
    }
}

kernel void anygpu_copy8(device uchar* dst [[buffer(0)]],
                         device const uchar* src [[buffer(1)]],
                         constant anygpu_copy8_params& p [[buffer(2)]],
                         uint i [[thread_position_in_grid]],
                         uint n [[threads_per_grid]])
{
    for (uint j = i; j < p.count; j = (p.count - j > n) ? j + n : p.count) {
        dst[j] = src[j];
    }
}
`

// Names of the internal kernels in internalMSL.
const (
	kernelFill32 = "anygpu_fill32"
	kernelCopy8  = "anygpu_copy8"
)

// FaultMSL is the MSL dialect of the conformance suite's faulting kernel
// (backendtest's faultSource: fault(x buffer, n u32)): it writes n*65536
// floats past x, far outside any buffer, which the GPU reports as a page
// fault (MTLCommandBufferErrorPageFault). It is here so that the MSL check
// parses it; the suite's Source is where it belongs.
const FaultMSL = `#include <metal_stdlib>
kernel void fault(device float* x [[buffer(0)]],
                  constant uint& n [[buffer(1)]],
                  uint i [[thread_position_in_grid]])
{
    x[ulong(i) + ulong(n) * 65536ul] = 1.0f;
}
`
