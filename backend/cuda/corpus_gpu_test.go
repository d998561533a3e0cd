package cuda

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/backend/backendtest"
	"github.com/anygpu/gpu/errors"
	"github.com/anygpu/gpu/nvrtc"
)

// The corpus of issue 16: CUDA kernels written the way open-source projects
// write them, compiled with no options, each checked against a CPU
// reference on the GPU. They need a GPU and NVRTC (skipped without, failed
// when ANYGPU_TEST_REQUIRE names cuda):
//
//	ANYGPU_TEST_REQUIRE=cuda go test -count=1 -v -run 'TestCorpus16' ./backend/cuda

// corpusTemplates: a template with a type and a non-type parameter, looked
// up by its C++ name; one instantiation listed at Compile, one found later.
const corpusTemplates = `
template <typename T, int BLOCK>
__global__ void block_sum(const T* __restrict__ x, T* __restrict__ out, int n) {
	__shared__ T partial[BLOCK];
	int i = blockIdx.x * BLOCK + threadIdx.x;
	partial[threadIdx.x] = i < n ? x[i] : T(0);
	__syncthreads();
	for (int stride = BLOCK / 2; stride > 0; stride /= 2) {
		if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
		__syncthreads();
	}
	if (threadIdx.x == 0) out[blockIdx.x] = partial[0];
}
`

// corpusCG: cooperative groups, a warp tile and cg::reduce (integers, so the
// sums are exact whatever the order), C++ linkage.
const corpusCG = `
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

__global__ void warp_sums(const int* x, int* out, int n) {
	cg::thread_block block = cg::this_thread_block();
	cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	int v = i < n ? x[i] : 0;
	int sum = cg::reduce(warp, v, cg::plus<int>());
	if (warp.thread_rank() == 0) out[i / 32] = sum;
}
`

// corpusHalf: <cuda_bf16.h> and <cuda_fp16.h> vector types. The inputs are
// multiples of 1/8 below 8 in magnitude: exact in bf16 and fp16, so the
// reference is plain float arithmetic.
const corpusHalf = `
#include <cuda_bf16.h>
#include <cuda_fp16.h>

extern "C" __global__ void half_math(const float* x, float* bf, float* hf, int n) {
	int i = 2 * (blockIdx.x * blockDim.x + threadIdx.x);
	if (i + 1 >= n) return;
	__nv_bfloat162 b = __floats2bfloat162_rn(x[i], x[i + 1]);
	__nv_bfloat162 b2 = __hmul2(b, __floats2bfloat162_rn(2.0f, 2.0f));
	bf[i] = __low2float(b2);
	bf[i + 1] = __high2float(b2);
	__half2 h = __floats2half2_rn(x[i], x[i + 1]);
	__half2 h2 = __hadd2(h, h);
	hf[i] = __low2float(h2);
	hf[i + 1] = __high2float(h2);
}
`

// corpusShared: dynamic shared memory above 64 KiB: each block reverses its
// part of x through shared memory.
const corpusShared = `
extern "C" __global__ void reverse_blocks(const float* x, float* y, int per_block) {
	extern __shared__ float tile[];
	const float* in = x + (size_t)blockIdx.x * per_block;
	float* out = y + (size_t)blockIdx.x * per_block;
	for (int i = threadIdx.x; i < per_block; i += blockDim.x) tile[i] = in[i];
	__syncthreads();
	for (int i = threadIdx.x; i < per_block; i += blockDim.x) out[i] = tile[per_block - 1 - i];
}
`

// corpusGridSync: a cooperative launch with a grid-wide barrier: every
// thread reads what a thread of the next block wrote before the barrier.
const corpusGridSync = `
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

extern "C" __global__ void rotate_after_sync(const float* x, float* tmp, float* y, int n) {
	cg::grid_group grid = cg::this_grid();
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) tmp[i] = 2.0f * x[i];
	grid.sync();
	if (i < n) y[i] = tmp[(i + blockDim.x) % n];
}
`

// corpusPTX is hand-written PTX (as a PTX emitter writes it): x[i] += 1 for
// i < n.
const corpusPTX = `
.version 7.0
.target sm_75
.address_size 64

.visible .entry add_one(
	.param .u64 add_one_param_0,
	.param .u32 add_one_param_1
)
{
	.reg .pred 	%p<2>;
	.reg .b32 	%r<8>;
	.reg .b64 	%rd<5>;

	ld.param.u64 	%rd1, [add_one_param_0];
	ld.param.u32 	%r1, [add_one_param_1];
	mov.u32 	%r2, %ctaid.x;
	mov.u32 	%r3, %ntid.x;
	mov.u32 	%r4, %tid.x;
	mad.lo.s32 	%r5, %r2, %r3, %r4;
	setp.ge.u32 	%p1, %r5, %r1;
	@%p1 bra 	$L__done;
	cvta.to.global.u64 	%rd2, %rd1;
	mul.wide.u32 	%rd3, %r5, 4;
	add.s64 	%rd4, %rd2, %rd3;
	ld.global.u32 	%r6, [%rd4];
	add.s32 	%r7, %r6, 1;
	st.global.u32 	[%rd4], %r7;
$L__done:
	ret;
}
`

// compileCorpus compiles src with no options but opts, failing with the
// compiler's log, and closes the module when the test ends.
func compileCorpus(t *testing.T, dev *gpu.Device, src gpu.Source, opts ...gpu.CompileOption) *gpu.Module {
	t.Helper()
	mod, err := dev.Compile(context.Background(), src, opts...)
	require.NoError(t, err, "compile log:\n%s", errors.LogOf(err))
	t.Cleanup(func() { _ = mod.Close() })
	return mod
}

// requireNVRTCForGPU skips (or fails, under ANYGPU_TEST_REQUIRE=cuda)
// without NVRTC.
func requireNVRTCForGPU(t *testing.T) {
	t.Helper()
	if err := nvrtc.Available(); err != nil {
		if backendtest.Required(Name) {
			t.Fatalf("NVRTC is required (ANYGPU_TEST_REQUIRE names cuda) but unavailable: %v", err)
		}
		t.Skipf("NVRTC unavailable: %v", err)
	}
}

func TestCorpus16Templates(t *testing.T) {
	dev := openGPU(t)
	requireNVRTCForGPU(t)
	ctx := context.Background()
	mod := compileCorpus(t, dev, gpu.Source{Name: "templates", CUDA: corpusTemplates}, gpu.KernelNames("block_sum<double, 128>"))
	s := dev.DefaultStream()

	const n = 100000
	xf, xd := make([]float32, n), make([]float64, n)
	for i := range xf {
		xf[i] = float32(i%7) - 3 // small integers: sums are exact in float
		xd[i] = float64(i%11) * 0.5
	}
	for _, tc := range []struct {
		name  string
		block int
		f32   bool
	}{
		{"block_sum<float, 256>", 256, true}, // not listed: compiled again for it
		{"block_sum<double, 128>", 128, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k, err := mod.Kernel(tc.name)
			require.NoError(t, err)
			blocks := (n + tc.block - 1) / tc.block
			if tc.f32 {
				x, err := gpu.FromSlice(ctx, dev, xf)
				require.NoError(t, err)
				defer x.Close()
				out, err := gpu.AllocSlice[float32](dev, blocks)
				require.NoError(t, err)
				defer out.Close()
				require.NoError(t, s.Launch(k, gpu.D1(blocks), gpu.D1(tc.block), gpu.Buf(x), gpu.Buf(out), gpu.I32(n)))
				got, err := gpu.ToSlice[float32](ctx, out)
				require.NoError(t, err)
				for b := 0; b < blocks; b++ {
					var want float32
					for i := b * tc.block; i < min(n, (b+1)*tc.block); i++ {
						want += xf[i]
					}
					require.Equal(t, want, got[b], "block %d", b)
				}
				return
			}
			x, err := gpu.FromSlice(ctx, dev, xd)
			require.NoError(t, err)
			defer x.Close()
			out, err := gpu.AllocSlice[float64](dev, blocks)
			require.NoError(t, err)
			defer out.Close()
			require.NoError(t, s.Launch(k, gpu.D1(blocks), gpu.D1(tc.block), gpu.Buf(x), gpu.Buf(out), gpu.I32(n)))
			got, err := gpu.ToSlice[float64](ctx, out)
			require.NoError(t, err)
			for b := 0; b < blocks; b++ {
				var want float64
				for i := b * tc.block; i < min(n, (b+1)*tc.block); i++ {
					want += xd[i]
				}
				require.Equal(t, want, got[b], "block %d", b)
			}
		})
	}
	_, err := mod.Kernel("block_sum<int, no_such_thing>")
	require.Error(t, err)
	t.Logf("an unresolvable name: %v", err)
}

func TestCorpus16CooperativeGroupsReduce(t *testing.T) {
	dev := openGPU(t)
	requireNVRTCForGPU(t)
	ctx := context.Background()
	mod := compileCorpus(t, dev, gpu.Source{Name: "cg", CUDA: corpusCG})
	k, err := mod.Kernel("warp_sums") // C++ linkage: found through a name expression
	require.NoError(t, err)
	const n = 1 << 16
	xs := make([]int32, n)
	for i := range xs {
		xs[i] = int32(i%13) - 6
	}
	x, err := gpu.FromSlice(ctx, dev, xs)
	require.NoError(t, err)
	defer x.Close()
	out, err := gpu.AllocSlice[int32](dev, n/32)
	require.NoError(t, err)
	defer out.Close()
	require.NoError(t, dev.DefaultStream().Launch(k, gpu.D1(n/256), gpu.D1(256), gpu.Buf(x), gpu.Buf(out), gpu.I32(n)))
	got, err := gpu.ToSlice[int32](ctx, out)
	require.NoError(t, err)
	for w := range got {
		var want int32
		for i := w * 32; i < (w+1)*32; i++ {
			want += xs[i]
		}
		require.Equal(t, want, got[w], "warp %d", w)
	}
}

func TestCorpus16HalfTypes(t *testing.T) {
	dev := openGPU(t)
	requireNVRTCForGPU(t)
	ctx := context.Background()
	mod := compileCorpus(t, dev, gpu.Source{Name: "half", CUDA: corpusHalf})
	k, err := mod.Kernel("half_math")
	require.NoError(t, err)
	const n = 4096
	xs := make([]float32, n)
	for i := range xs {
		xs[i] = float32(i%128-64) / 8 // multiples of 1/8 in [-8, 8): exact in bf16 and fp16
	}
	x, err := gpu.FromSlice(ctx, dev, xs)
	require.NoError(t, err)
	defer x.Close()
	bf, err := gpu.AllocSlice[float32](dev, n)
	require.NoError(t, err)
	defer bf.Close()
	hf, err := gpu.AllocSlice[float32](dev, n)
	require.NoError(t, err)
	defer hf.Close()
	require.NoError(t, dev.DefaultStream().Launch(k, gpu.D1(n/2/128), gpu.D1(128), gpu.Buf(x), gpu.Buf(bf), gpu.Buf(hf), gpu.I32(n)))
	gotB, err := gpu.ToSlice[float32](ctx, bf)
	require.NoError(t, err)
	gotH, err := gpu.ToSlice[float32](ctx, hf)
	require.NoError(t, err)
	for i, v := range xs {
		require.Equal(t, 2*v, gotB[i], "bf16 %d", i)
		require.Equal(t, 2*v, gotH[i], "fp16 %d", i)
	}
}

func TestCorpus16DynamicSharedOver64KiB(t *testing.T) {
	dev := openGPU(t)
	requireNVRTCForGPU(t)
	ctx := context.Background()
	mod := compileCorpus(t, dev, gpu.Source{Name: "shared", CUDA: corpusShared})
	k, err := mod.Kernel("reverse_blocks")
	require.NoError(t, err)
	const smem = 96 << 10 // above 64 KiB: needs the opt-in
	const per = smem / 4
	const blocks = 8
	xs := make([]float32, per*blocks)
	for i := range xs {
		xs[i] = float32(i)
	}
	x, err := gpu.FromSlice(ctx, dev, xs)
	require.NoError(t, err)
	defer x.Close()
	y, err := gpu.AllocSlice[float32](dev, len(xs))
	require.NoError(t, err)
	defer y.Close()
	s := dev.DefaultStream()
	require.NoError(t, s.LaunchWith(k, gpu.LaunchConfig{Grid: gpu.D1(blocks), Block: gpu.D1(512), SharedMemBytes: smem}, gpu.Buf(x), gpu.Buf(y), gpu.I32(per)))
	got, err := gpu.ToSlice[float32](ctx, y)
	require.NoError(t, err)
	for b := 0; b < blocks; b++ {
		for i := 0; i < per; i++ {
			require.Equal(t, xs[b*per+per-1-i], got[b*per+i], "block %d element %d", b, i)
		}
	}
	// More than the device has: refused before the launch, the device
	// stays usable.
	limit := dev.Info().SharedMemPerBlockOptin
	err = s.LaunchWith(k, gpu.LaunchConfig{Grid: gpu.D1(1), Block: gpu.D1(512), SharedMemBytes: limit + 1}, gpu.Buf(x), gpu.Buf(y), gpu.I32(per))
	require.Error(t, err)
	t.Logf("too much shared memory: %v", err)
	require.NoError(t, s.Synchronize(ctx))
}

func TestCorpus16CooperativeGridSync(t *testing.T) {
	dev := openGPU(t)
	requireNVRTCForGPU(t)
	ctx := context.Background()
	mod := compileCorpus(t, dev, gpu.Source{Name: "gridsync", CUDA: corpusGridSync})
	k, err := mod.Kernel("rotate_after_sync")
	require.NoError(t, err)
	blocks, block := dev.Info().Units, 256 // one block per SM: always resident at once
	n := blocks * block
	xs := make([]float32, n)
	for i := range xs {
		xs[i] = float32(i)
	}
	x, err := gpu.FromSlice(ctx, dev, xs)
	require.NoError(t, err)
	defer x.Close()
	tmp, err := gpu.AllocSlice[float32](dev, n)
	require.NoError(t, err)
	defer tmp.Close()
	y, err := gpu.AllocSlice[float32](dev, n)
	require.NoError(t, err)
	defer y.Close()
	require.NoError(t, dev.DefaultStream().LaunchWith(k, gpu.LaunchConfig{Grid: gpu.D1(blocks), Block: gpu.D1(block), Cooperative: true},
		gpu.Buf(x), gpu.Buf(tmp), gpu.Buf(y), gpu.I32(int32(n))))
	got, err := gpu.ToSlice[float32](ctx, y)
	require.NoError(t, err)
	for i := range got {
		require.Equal(t, 2*xs[(i+block)%n], got[i], "element %d", i)
	}
	// A grid that cannot be resident at once is refused, not hung.
	err = dev.DefaultStream().LaunchWith(k, gpu.LaunchConfig{Grid: gpu.D1(blocks * 64), Block: gpu.D1(1024), Cooperative: true},
		gpu.Buf(x), gpu.Buf(tmp), gpu.Buf(y), gpu.I32(int32(n)))
	require.Error(t, err)
	t.Logf("too large a cooperative grid: %v", err)
}

// TestCorpus16Binaries loads device code compiled elsewhere: hand-written
// PTX, PTX that NVRTC made on a machine without a GPU (hostPTX), and NVRTC's PTX and CUBIN of a kernel passed as Source.PTX and
// Source.CUBIN (no CUDA source).
func TestCorpus16Binaries(t *testing.T) {
	dev := openGPU(t)
	ctx := context.Background()
	const n = 1000
	run := func(t *testing.T, src gpu.Source) {
		mod, err := dev.Compile(ctx, src)
		require.NoError(t, err)
		defer mod.Close()
		k, err := mod.Kernel("add_one")
		require.NoError(t, err)
		xs := make([]uint32, n)
		for i := range xs {
			xs[i] = uint32(i * 3)
		}
		x, err := gpu.FromSlice(ctx, dev, xs)
		require.NoError(t, err)
		defer x.Close()
		require.NoError(t, dev.DefaultStream().Launch(k, gpu.D1((n+127)/128), gpu.D1(128), gpu.Buf(x), gpu.U32(n)))
		got, err := gpu.ToSlice[uint32](ctx, x)
		require.NoError(t, err)
		for i := range got {
			require.Equal(t, xs[i]+1, got[i], "element %d", i)
		}
	}
	t.Run("hand-written PTX", func(t *testing.T) { run(t, gpu.Source{Name: "ptx", PTX: corpusPTX}) })
	t.Run("PTX made without a GPU", func(t *testing.T) {
		// testdata/add_one_host.ptx: NVRTC 11.8 on the development machine, which has no GPU.
		require.Contains(t, hostPTX, "release 11.8")
		run(t, gpu.Source{Name: "host-ptx", PTX: hostPTX})
	})

	requireNVRTCForGPU(t)
	const cudaSrc = `extern "C" __global__ void add_one(unsigned* x, unsigned n) {
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) x[i] += 1;
}`
	info := dev.Info()
	arch := fmt.Sprintf("sm_%d%d", info.ComputeMajor, info.ComputeMinor)
	ptx, err := nvrtc.Compile(cudaSrc, nvrtc.Options{Arch: arch, PTX: true, NoCache: true})
	require.NoError(t, err)
	cubin, err := nvrtc.Compile(cudaSrc, nvrtc.Options{Arch: arch, NoCache: true})
	require.NoError(t, err)
	t.Run("NVRTC's PTX", func(t *testing.T) { run(t, gpu.Source{Name: "nvrtc-ptx", PTX: ptx.PTX}) })
	t.Run("NVRTC's CUBIN", func(t *testing.T) { run(t, gpu.Source{Name: "nvrtc-cubin", CUBIN: cubin.CUBIN}) })
	t.Run("PTX with launch bounds and JIT options", func(t *testing.T) {
		mod, err := dev.Compile(ctx, gpu.Source{Name: "jit", PTX: corpusPTX}, gpu.LaunchBounds(128), gpu.MaxRegisters(32), gpu.OptimizationLevel(3))
		require.NoError(t, err)
		defer mod.Close()
		k, err := mod.Kernel("add_one")
		require.NoError(t, err)
		a, err := k.Attributes()
		require.NoError(t, err)
		require.LessOrEqual(t, a.Registers, 32, "the register cap reached the JIT")
		t.Logf("attributes with launch bounds 128, 32 registers, -O3: %+v", a)
	})
}

// TestCorpus16Borrow runs a kernel in place on memory borrowed by its
// device pointer (here from another Buffer, as from another library).
func TestCorpus16Borrow(t *testing.T) {
	dev := openGPU(t)
	ctx := context.Background()
	const n = 4096
	xs := make([]uint32, n)
	for i := range xs {
		xs[i] = uint32(i)
	}
	owner, err := gpu.FromSlice(ctx, dev, xs)
	require.NoError(t, err)
	defer owner.Close()
	h, err := owner.NativeHandle()
	require.NoError(t, err)
	b, err := dev.Borrow(h, 4*n)
	require.NoError(t, err)
	mod := compileCorpus(t, dev, gpu.Source{Name: "ptx", PTX: corpusPTX})
	k, err := mod.Kernel("add_one")
	require.NoError(t, err)
	require.NoError(t, dev.DefaultStream().Launch(k, gpu.D1(n/128), gpu.D1(128), gpu.Buf(b), gpu.U32(n)))
	require.NoError(t, dev.DefaultStream().Synchronize(ctx))
	require.NoError(t, b.Close())
	got, err := gpu.ToSlice[uint32](ctx, owner)
	require.NoError(t, err)
	for i := range got {
		require.Equal(t, xs[i]+1, got[i], "element %d", i)
	}
	_, err = dev.Borrow(h, 4*n+(64<<20))
	require.Error(t, err, "past the allocation")
	t.Logf("borrowing past the allocation: %v", err)
}
