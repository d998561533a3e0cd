package cuda

import (
	"testing"

	"github.com/anygpu/gpu/kernel/internal/front"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// subgroupAndHalf uses every subgroup operation and float16 buffers.
const subgroupAndHalf = `package k

import "github.com/anygpu/gpu/kernel"

//gpu:kernel
func Sg(out []float32, iout []int32, uout []uint32, in []float32, n uint32) {
	i := kernel.GlobalX()
	var v float32
	if i < n {
		v = in[i]
	}
	lane := kernel.SubgroupInvocationID()
	s := kernel.SubgroupAdd(v) + kernel.SubgroupMin(v) + kernel.SubgroupMax(v)
	a := kernel.SubgroupAdd(int32(i)) + kernel.SubgroupMin(int32(i)) + kernel.SubgroupMax(int32(i))
	u := kernel.SubgroupAdd(i) + kernel.SubgroupMin(i) + kernel.SubgroupMax(i)
	x := kernel.SubgroupShuffleXor(v, 1&(kernel.SubgroupSize()-1)) + kernel.SubgroupShuffle(v, lane)
	f := kernel.SubgroupBroadcastFirst(lane)
	if i < n {
		out[i] = s + x
		iout[i] = a
		uout[i] = u + f
	}
}

//gpu:kernel
func Half(y, x []kernel.Float16, a float32, n uint32) {
	if i := kernel.GlobalX(); i < n {
		y[i] = kernel.ToFloat16(a * kernel.ToFloat32(x[i]))
	}
}
`

// Subgroup operations are warp intrinsics on full warps (mask 0xffffffff,
// size 32, reductions as butterflies that leave the result in every lane),
// and float16 buffers are 16-bit elements converted by PTX cvt (no
// cuda_fp16.h), in text clang accepts.
func TestSubgroupAndFloat16(t *testing.T) {
	m, err := front.Load([]front.File{{Name: "k.go", Src: subgroupAndHalf}})
	require.NoError(t, err)
	text, err := Emit(m)
	require.NoError(t, err)
	for _, want := range []string{
		"for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);", // float sum
		"for (int o = 16; o > 0; o >>= 1) u += __shfl_xor_sync(0xffffffffu, u, o);", // int32 sum, in unsigned: it wraps
		"v = anygpu_min_f32(v, __shfl_xor_sync(0xffffffffu, v, o));",                // Go's min of floats (NaN, -0)
		"v = anygpu_max_u32(v, __shfl_xor_sync(0xffffffffu, v, o));",
		"unsigned lane = (threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)) & 31u;",
		"__shfl_xor_sync(0xffffffffu, v, (int)(1u & (32u - 1u)))",
		"__shfl_sync(0xffffffffu, v, (int)(lane))",
		"__shfl_sync(0xffffffffu, lane, 0)",
		`extern "C" __global__ void Half(unsigned short* y, unsigned short* x, float a, unsigned n)`,
		"y[i] = anygpu_f2h(a * anygpu_h2f(x[i]));",
		`asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));`,
		`asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f));`,
	} {
		assert.Contains(t, text, want)
	}
	assert.NotContains(t, text, "cuda_fp16")
	clangCheck(t, text)
}
