package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu/backend"
)

// Device descriptions of the kinds ChooseSgemm meets (the fields it reads,
// with the values those devices report).
var (
	h200 = backend.DeviceInfo{Backend: "cuda", Type: backend.TypeDiscreteGPU, Units: 132, WarpSize: 32,
		MaxThreadsPerBlock: 1024, MaxBlockDim: backend.Dim3{X: 1024, Y: 1024, Z: 64},
		MaxGridDim: backend.Dim3{X: 1<<31 - 1, Y: 65535, Z: 65535}, SharedMemPerBlock: 48 << 10}
	gles16 = backend.DeviceInfo{Backend: "opengl", Type: backend.TypeIntegratedGPU, Units: 8,
		MaxThreadsPerBlock: 128, MaxBlockDim: backend.Dim3{X: 128, Y: 128, Z: 64}, SharedMemPerBlock: 16 << 10}
	gles16wide = backend.DeviceInfo{Backend: "opengl", Type: backend.TypeIntegratedGPU, Units: 8,
		MaxThreadsPerBlock: 1024, MaxBlockDim: backend.Dim3{X: 1024, Y: 1024, Z: 64}, SharedMemPerBlock: 16 << 10}
	cpu   = backend.DeviceInfo{Backend: "cpu", Type: backend.TypeCPU, Units: 16, MaxThreadsPerBlock: 1024}
	bare  = backend.DeviceInfo{} // reports nothing
	wave  = backend.DeviceInfo{Type: backend.TypeDiscreteGPU, Units: 4, WarpSize: 128, MaxThreadsPerBlock: 1024, SharedMemPerBlock: 64 << 10}
	tiny  = backend.DeviceInfo{Type: backend.TypeIntegratedGPU, Units: 2, MaxThreadsPerBlock: 32, SharedMemPerBlock: 16 << 10}
	tall  = backend.DeviceInfo{Type: backend.TypeDiscreteGPU, Units: 1, MaxThreadsPerBlock: 1024, MaxBlockDim: backend.Dim3{X: 1024, Y: 8, Z: 1}}
	grid2 = backend.DeviceInfo{Type: backend.TypeDiscreteGPU, Units: 1, MaxGridDim: backend.Dim3{X: 5, Y: 3, Z: 1}}
)

func TestChooseSgemm(t *testing.T) {
	d2 := func(x, y int) backend.Dim3 { return backend.Dim3{X: x, Y: y, Z: 1} }
	for _, tc := range []struct {
		name    string
		info    backend.DeviceInfo
		m, n, k int
		want    SgemmLaunch
	}{
		// 32×32 = 1024 tiles of 128×128 for 132 SMs.
		{"h200 4096³", h200, 4096, 4096, 4096, SgemmLaunch{OpSgemm, d2(32, 32), d2(16, 16)}},
		// 12×12 = 144 ≥ 132.
		{"h200 1536³", h200, 1536, 1536, 1536, SgemmLaunch{OpSgemm, d2(12, 12), d2(16, 16)}},
		// 128×128 gives 64 tiles, 128×64 gives 128 (< 132), 64×64 gives 256.
		{"h200 1024³", h200, 1024, 1024, 1024, SgemmLaunch{OpSgemm64x64, d2(16, 16), d2(16, 16)}},
		// 9×17 = 153 tiles of 128×64; 128×128 gives 9×9 = 81.
		{"h200 1100×1100", h200, 1100, 1100, 64, SgemmLaunch{OpSgemm128x64, d2(18, 9), d2(16, 16)}},
		// No tile reaches 132 groups: the smallest gives the most (4×4 = 16).
		{"h200 100³", h200, 100, 100, 100, SgemmLaunch{OpSgemm32x32, d2(4, 4), d2(8, 8)}},
		// A tall product: 8 tile rows of 128 by 1 column.
		{"h200 1000×3", h200, 1000, 3, 7, SgemmLaunch{OpSgemm32x32, d2(1, 32), d2(8, 8)}},
		// Grid Y cut to 65535 (the kernels stride over the rest).
		{"h200 2²⁴×128", h200, 1 << 24, 128, 8, SgemmLaunch{OpSgemm, d2(1, 65535), d2(16, 16)}},
		// 16 KiB of shared memory, 128 threads: only 32×32 runs tiled.
		{"gles 16 KiB 1024³", gles16, 1024, 1024, 1024, SgemmLaunch{OpSgemm32x32, d2(32, 32), d2(8, 8)}},
		// 16 KiB, 1024 threads: 64×64 (16 KiB) fits, 128-row tiles do not.
		{"gles 16 KiB wide 1024³", gles16wide, 1024, 1024, 1024, SgemmLaunch{OpSgemm64x64, d2(16, 16), d2(16, 16)}},
		// The CPU: OpSgemm, whose CPU Go is OpSgemmFrom's (kernel.MatMulAddFrom), a group per 64×128.
		{"cpu 1000×300", cpu, 1000, 300, 50, SgemmLaunch{OpSgemm, d2(3, 16), d2(16, 16)}},
		{"cpu 10×10", cpu, 10, 10, 10, SgemmLaunch{OpSgemm, d2(1, 1), d2(16, 16)}},
		// A device that says nothing: 32 KiB assumed, one unit.
		{"bare 4096³", bare, 4096, 4096, 4096, SgemmLaunch{OpSgemm, d2(32, 32), d2(16, 16)}},
		// Warps of 128 threads: 64-thread groups would waste half of one.
		{"wave128 100³", wave, 100, 100, 100, SgemmLaunch{OpSgemm64x64, d2(2, 2), d2(16, 16)}},
		// 32 threads per group: no variant; the simple path in 4×4.
		{"32 threads", tiny, 70, 30, 9, SgemmLaunch{OpSgemm, d2(8, 18), d2(4, 4)}},
		// Block Y limited to 8: 16×16 groups are out, 8×8 fits.
		{"block y 8", tall, 512, 512, 8, SgemmLaunch{OpSgemm32x32, d2(16, 16), d2(8, 8)}},
		// 2 KiB of shared memory: no tiled path, the simple one in 8×8.
		{"2 KiB shared", backend.DeviceInfo{Type: backend.TypeIntegratedGPU, SharedMemPerBlock: 2 << 10}, 20, 20, 20, SgemmLaunch{OpSgemm, d2(3, 3), d2(8, 8)}},
		{"grid cut", grid2, 4096, 4096, 16, SgemmLaunch{OpSgemm, d2(5, 3), d2(16, 16)}},
		// Empty and negative sizes: one group that finds nothing to do.
		{"empty", h200, 0, 0, 0, SgemmLaunch{OpSgemm, d2(1, 1), d2(16, 16)}},
		{"negative", bare, -5, 7, 3, SgemmLaunch{OpSgemm, d2(1, 1), d2(16, 16)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := ChooseSgemm(tc.info, tc.m, tc.n, tc.k)
			assert.Equal(t, tc.want, got)
			assert.Contains(t, SgemmKernels(), got.Kernel)
		})
	}
}

// TestChooseSgemmFills: on a GPU, a product with enough tiles of some size
// gets a launch with at least a group per compute unit, and the launch's
// block is its kernel's, within the device's limits.
func TestChooseSgemmFills(t *testing.T) {
	for _, info := range []backend.DeviceInfo{h200, gles16, gles16wide, bare, wave, tall} {
		for _, size := range []int{1, 31, 100, 257, 1000, 1024, 2048, 3001, 4096, 8192} {
			got := ChooseSgemm(info, size, size, size)
			var v SgemmVariant
			for _, c := range sgemmVariants {
				if c.Kernel == got.Kernel {
					v = c
				}
			}
			require.NotEmpty(t, v.Kernel, "%s is a variant", got.Kernel)
			assert.False(t, v.GroupWide, "%s, group-wide, is the CPU's", v.Kernel)
			assert.Equal(t, v.Block, got.Block)
			assert.True(t, variantFits(info, v), "%+v runs %s", info, v.Kernel)
			smallest := 0
			for _, c := range sgemmVariants {
				if !c.GroupWide && variantFits(info, c) {
					smallest = max(smallest, c.Tiles(size, size))
				}
			}
			if smallest >= max(info.Units, 1) {
				assert.GreaterOrEqual(t, got.Grid.X*got.Grid.Y, max(info.Units, 1), "%d³ on %+v", size, info)
			}
		}
	}
}

// TestSgemmSource: SgemmSource holds the variants (not OpSgemm) in every
// dialect, with OpSgemm's parameters, and Source does not hold them.
func TestSgemmSource(t *testing.T) {
	src, builtins := SgemmSource(), Source()
	require.Equal(t, SgemmSourceName, src.Name)
	variants := SgemmKernels()[1:]
	require.Len(t, src.Params, len(variants))
	require.Len(t, src.Go, len(variants))
	require.Len(t, src.SPIRVKernels, len(variants))
	for _, v := range variants {
		assert.Equal(t, Params[OpSgemm], src.Params[v], v)
		assert.NotNil(t, src.Go[v], v)
		assert.NotEmpty(t, src.SPIRVKernels[v], v)
		for dialect, text := range map[string]string{"CUDA": src.CUDA, "WGSL": src.WGSL, "GLSL": src.GLSL, "GLSLES": src.GLSLES, "MSL": src.MSL} {
			assert.Contains(t, text, v, dialect)
		}
		assert.NotContains(t, builtins.Params, v)
		assert.NotContains(t, builtins.CUDA, v+"(")
		// CheckLaunch knows the variants as OpSgemm.
		b := func(n int) backend.Arg { return bufArg(&hostBuf{mem: make([]byte, 4*n)}) }
		args := []backend.Arg{b(6), b(8), b(12), u32Arg(2), u32Arg(3), u32Arg(4), f32Arg(1), f32Arg(0)}
		assert.NoError(t, CheckLaunch(v, backend.Dim3{X: 1}, args), v)
		args[2] = b(11)
		err := CheckLaunch(v, backend.Dim3{X: 1}, args)
		if assert.Error(t, err, v) {
			assert.Contains(t, err.Error(), "buffer b holds 11")
		}
	}
	// Each call hands out its own maps.
	src.Params[variants[0]][0] = backend.ArgF64
	again := SgemmSource()
	assert.Equal(t, backend.ArgBuffer, again.Params[variants[0]][0])
}

// TestSgemmVariantsMatchKernels: the table's threads and shared memory are
// those of the generated kernels (the CUDA text: the group size the tiled
// path tests for, and the __shared__ arrays).
func TestSgemmVariantsMatchKernels(t *testing.T) {
	threads := regexp.MustCompile(`if \(nt != (\d+)u\)`)
	shared := regexp.MustCompile(`__shared__ (?:__align__\(16\) )?(float4|float) \w+((?:\[\d+\])+);`)
	dims := regexp.MustCompile(`\d+`)
	for _, v := range SgemmVariants() {
		t.Run(v.Kernel, func(t *testing.T) {
			src := SgemmSource().CUDA
			if v.Kernel == OpSgemm {
				src = Source().CUDA
			}
			start := strings.Index(src, " "+v.Kernel+"(float* c")
			require.Positive(t, start, "the CUDA text declares %s", v.Kernel)
			body := src[start:]
			if end := strings.Index(body, `extern "C"`); end > 0 {
				body = body[:end]
			}
			if !v.CPU { // OpSgemmFrom takes any group size
				m := threads.FindStringSubmatch(body)
				require.NotNil(t, m)
				assert.Equal(t, strconv.Itoa(v.Threads()), m[1])
			}
			bytes := 0
			for _, arr := range shared.FindAllStringSubmatch(body, -1) {
				n := 16 // a float4
				if arr[1] == "float" {
					n = 4
				}
				for _, d := range dims.FindAllString(arr[2], -1) {
					x, err := strconv.Atoi(d)
					require.NoError(t, err)
					n *= x
				}
				bytes += n
			}
			assert.Equal(t, v.SharedBytes, bytes)
		})
	}
	assert.Equal(t, []string{OpSgemm, OpSgemm128x64, OpSgemm64x64, OpSgemm32x32, OpSgemm64MMA, OpSgemmFrom}, SgemmKernels())
}

// TestSgemmVariantsGo runs the generated Go of every sgemm kernel (the
// translation each dialect shares; the CPU backend runs OpSgemmFrom's for
// OpSgemm too, tested in TestSgemm) over odd shapes that
// cross every tile size, with each kernel's own block, and another block
// (the one-element-per-thread path), over exact, larger and smaller grids.
func TestSgemmVariantsGo(t *testing.T) {
	shapes := [][3]int{{1, 1, 1}, {17, 31, 13}, {33, 70, 45}, {130, 67, 35}, {65, 132, 20}, {5, 8, 0}, {129, 129, 17}}
	for _, v := range SgemmVariants() {
		k := generated().Go[v.Kernel] // OpSgemm's generated Go, not the CPU's hand-tuned one
		if v.Kernel != OpSgemm {
			k = SgemmSource().Go[v.Kernel]
		}
		require.NotNil(t, k, v.Kernel)
		for _, s := range shapes {
			for _, blk := range []backend.Dim3{v.Block, {X: 8, Y: 4, Z: 1}} {
				for _, gm := range gridModes {
					c := sgemmCase{m: s[0], n: s[1], k: s[2], alpha: 2, beta: -1, block: blk}
					per := backend.Dim3{X: v.TileN, Y: v.TileM}
					if blk != v.Block {
						per = blk
					}
					grid := backend.Dim3{X: gm.grid(ceilDiv(c.n, per.X)), Y: gm.grid(ceilDiv(c.m, per.Y))}
					t.Run(fmt.Sprintf("%s/%dx%dx%d/block=%v/grid=%s%v", v.Kernel, c.m, c.n, c.k, blk, gm.name, grid), func(t *testing.T) {
						rng := rand.New(rand.NewPCG(uint64(c.m), uint64(c.n*c.k)))
						// Small integers: exact, so bit for bit.
						a, b := randInts(rng, c.m*c.k, -3, 3), randInts(rng, c.k*c.n, -3, 3)
						c0 := randInts(rng, c.m*c.n, -5, 5)
						got, err := runSgemmKernel(k, c, grid, a, b, c0, true)
						require.NoError(t, err)
						require.NoError(t, CompareF32(got, RefSgemm(c0, a, b, c.m, c.n, c.k, c.alpha, c.beta), 0, 0))
						// beta = 0: C is not read (NaN stays out).
						for i := range c0 {
							c0[i] = float32(math.NaN())
						}
						c.beta = 0
						got, err = runSgemmKernel(k, c, grid, a, b, c0, false)
						require.NoError(t, err)
						require.NoError(t, CompareF32(got, RefSgemm(c0, a, b, c.m, c.n, c.k, c.alpha, 0), 0, 0))
					})
				}
			}
		}
	}
}
