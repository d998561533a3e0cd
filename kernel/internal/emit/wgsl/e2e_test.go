//go:build cgo

package wgsl

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/backend/webgpu"
	"github.com/anygpu/gpu/internal/testreq"
)

// openWebGPU opens the WebGPU backend's first device through the public
// API, or skips when there is none.
func openWebGPU(t *testing.T) *gpu.Device {
	t.Helper()
	testreq.SkipUnlessAvailable(t, webgpu.Driver{})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dev, err := gpu.Open(ctx, gpu.WithBackends(webgpu.Name))
	require.NoError(t, err)
	t.Cleanup(func() { _ = dev.Close() })
	return dev
}

// compileAll emits m and compiles All on dev, with Params from the kernels'
// signatures.
func compileAll(t *testing.T, dev *gpu.Device, m *irModule) *gpu.Module {
	t.Helper()
	out, err := Emit(m)
	require.NoError(t, err)
	params := paramsOf(m)
	for name := range out.Unsupported {
		delete(params, name)
	}
	mod, err := dev.Compile(context.Background(), gpu.Source{Name: "e2e", WGSL: out.All, Params: params})
	require.NoError(t, err, "\n%s", numbered(out.All))
	t.Cleanup(func() { _ = mod.Close() })
	return mod
}

func kernelOf(t *testing.T, mod *gpu.Module, name string) *gpu.Kernel {
	t.Helper()
	k, err := mod.Kernel(name)
	require.NoError(t, err)
	return k
}

func upload[T gpu.Scalar](t *testing.T, dev *gpu.Device, data []T) *gpu.Buffer {
	t.Helper()
	b, err := gpu.FromSlice(context.Background(), dev, data)
	require.NoError(t, err)
	t.Cleanup(func() { _ = b.Close() })
	return b
}

func download[T gpu.Scalar](t *testing.T, b *gpu.Buffer) []T {
	t.Helper()
	out, err := gpu.ToSlice[T](context.Background(), b)
	require.NoError(t, err)
	return out
}

func randomFloats(n int, seed uint64) []float32 {
	r := rand.New(rand.NewPCG(seed, 3))
	out := make([]float32, n)
	for i := range out {
		out[i] = r.Float32()*2 - 1
	}
	return out
}

// geometries are the launches every kernel is tried with: blocks of 64 (the
// source's) and 256 (compiled per launch), grids that cover n with a partial
// last group.
var blocks = []int{64, 256}

func TestE2ESaxpy(t *testing.T) {
	dev := openWebGPU(t)
	mod := compileAll(t, dev, testModule())
	k := kernelOf(t, mod, "Saxpy")
	for _, block := range blocks {
		for _, n := range []int{1, 1000, 4099} {
			t.Run(fmt.Sprintf("block%d/n%d", block, n), func(t *testing.T) {
				x, y0 := randomFloats(n, 1), randomFloats(n, 2)
				const a = float32(1.5)
				y := upload(t, dev, y0)
				grid := (n + block - 1) / block
				require.NoError(t, dev.DefaultStream().Launch(k, gpu.D1(grid), gpu.D1(block), gpu.Buf(y), gpu.Buf(upload(t, dev, x)), gpu.U32(uint32(n)), gpu.F32(a)))
				got := download[float32](t, y)
				for i := range n {
					require.InDelta(t, a*x[i]+y0[i], got[i], 1e-6, "element %d", i)
				}
			})
		}
	}
}

// TestE2ESaxpyWideGrid launches more groups than WebGPU dispatches in one
// dimension: the backend folds the grid, the kernel unfolds it, and the
// padding groups do nothing.
func TestE2ESaxpyWideGrid(t *testing.T) {
	dev := openWebGPU(t)
	mod := compileAll(t, dev, testModule())
	k := kernelOf(t, mod, "Saxpy")
	const block, grid = 64, 70001
	n := block*grid - 5
	x, y0 := randomFloats(n, 3), randomFloats(n+16, 4)
	const a = float32(-2)
	y := upload(t, dev, y0)
	require.NoError(t, dev.DefaultStream().Launch(k, gpu.D1(grid), gpu.D1(block), gpu.Buf(y), gpu.Buf(upload(t, dev, x)), gpu.U32(uint32(n)), gpu.F32(a)))
	got := download[float32](t, y)
	for i := range n {
		if a*x[i]+y0[i] != got[i] {
			require.InDelta(t, a*x[i]+y0[i], got[i], 1e-6, "element %d", i)
		}
	}
	assert.Equal(t, y0[n:], got[n:], "past n: untouched")
}

// TestE2EGroups checks every group's ids, in grids that fold (wider than
// 65535 groups) and grids that do not, from a kernel without scalars.
func TestE2EGroups(t *testing.T) {
	dev := openWebGPU(t)
	mod := compileAll(t, dev, testModule())
	k := kernelOf(t, mod, "Groups")
	for _, tc := range []struct {
		grid  gpu.Dim3
		block int
	}{
		{gpu.D1(5), 64},
		{gpu.Dim3{X: 3, Y: 4, Z: 5}, 256},
		{gpu.D1(65536), 64},
		{gpu.D2(33000, 3), 256},
		{gpu.D1(70001), 64},
		{gpu.D2(70001, 2), 64},
		{gpu.Dim3{X: 66000, Y: 1, Z: 2}, 64},
		{gpu.Dim3{X: 65537, Y: 3, Z: 2}, 64},
	} {
		t.Run(fmt.Sprintf("%v/%d", tc.grid, tc.block), func(t *testing.T) {
			groups := tc.grid.X * tc.grid.Y * tc.grid.Z
			out := upload(t, dev, make([]uint32, groups+64))
			require.NoError(t, dev.DefaultStream().Launch(k, tc.grid, gpu.D1(tc.block), gpu.Buf(out)))
			got := download[uint32](t, out)
			for g := range groups {
				if got[g] != 1 {
					require.Equal(t, uint32(1), got[g], "group %d of %d", g, groups)
				}
			}
			assert.Equal(t, make([]uint32, 64), got[groups:], "past the grid: untouched")
		})
	}
}

func TestE2EReduce(t *testing.T) {
	dev := openWebGPU(t)
	mod := compileAll(t, dev, testModule())
	k := kernelOf(t, mod, "Reduce")
	for _, block := range blocks {
		for _, n := range []int{block, 3*block + 17, 70000 * block / 64} {
			t.Run(fmt.Sprintf("block%d/n%d", block, n), func(t *testing.T) {
				in := randomFloats(n, 5)
				grid := (n + block - 1) / block
				out := upload(t, dev, make([]float32, grid))
				require.NoError(t, dev.DefaultStream().Launch(k, gpu.D1(grid), gpu.D1(block), gpu.Buf(out), gpu.Buf(upload(t, dev, in)), gpu.U32(uint32(n))))
				got := download[float32](t, out)
				for g := range grid {
					var want float64
					for i := g * block; i < min(n, (g+1)*block); i++ {
						want += float64(in[i])
					}
					if d := float64(got[g]) - want; d > 1e-4 || d < -1e-4 {
						require.InDelta(t, want, got[g], 1e-4, "group %d", g)
					}
				}
			})
		}
	}
}

func TestE2EHistogram(t *testing.T) {
	dev := openWebGPU(t)
	mod := compileAll(t, dev, testModule())
	k := kernelOf(t, mod, "Histogram")
	for _, block := range blocks {
		for _, n := range []int{1000, 66000 * 64} {
			t.Run(fmt.Sprintf("block%d/n%d", block, n), func(t *testing.T) {
				const bins = 37
				r := rand.New(rand.NewPCG(uint64(n), 9))
				data := make([]uint32, n)
				want := make([]uint32, bins)
				for i := range data {
					data[i] = r.Uint32()
					want[data[i]%bins]++
				}
				hist := upload(t, dev, make([]uint32, bins))
				grid := (n + block - 1) / block
				require.NoError(t, dev.DefaultStream().Launch(k, gpu.D1(grid), gpu.D1(block), gpu.Buf(hist), gpu.Buf(upload(t, dev, data)), gpu.U32(uint32(n)), gpu.U32(bins)))
				assert.Equal(t, want, download[uint32](t, hist))
			})
		}
	}
}
