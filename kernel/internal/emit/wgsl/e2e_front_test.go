//go:build cgo

package wgsl

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/kernel/internal/front"
	"github.com/anygpu/gpu/kernel/internal/ir"
)

// goKernels are kernels as a user writes them, translated by the front end.
const goKernels = `package kernels

import "github.com/anygpu/gpu/kernel"

//gpu:kernel
func Saxpy(y, x []float32, n uint32, a float32) {
	i := kernel.GlobalX()
	if i < n {
		y[i] = a*x[i] + y[i]
	}
}

// Sum reduces each group's elements of x into out[group], for any block
// of up to 256 threads that is a power of two.
//
//gpu:kernel
func Sum(out, x []float32, n uint32) {
	tile := kernel.Shared[[256]float32]()
	t := kernel.ThreadX()
	i := kernel.GlobalX()
	var v float32
	if i < n {
		v = x[i]
	}
	tile[t] = v
	kernel.Barrier()
	for s := kernel.GroupSizeX() / 2; s > 0; s >>= 1 {
		if t < s {
			tile[t] += tile[t+s]
		}
		kernel.Barrier()
	}
	if t == 0 {
		out[kernel.GroupX()] = tile[0]
	}
}

const bins = 64

//gpu:kernel
func Histogram(hist []uint32, x []float32, n uint32) {
	local := kernel.Shared[[bins]uint32]()
	t := kernel.ThreadX()
	for b := t; b < bins; b += kernel.GroupSizeX() {
		local[b] = 0
	}
	kernel.Barrier()
	stride := kernel.GridX() * kernel.GroupSizeX()
	for i := kernel.GlobalX(); i < n; i += stride {
		b := uint32(kernel.Clamp(x[i]*bins, 0, bins-1))
		kernel.AtomicAdd(&local[b], 1)
	}
	kernel.Barrier()
	for b := t; b < bins; b += kernel.GroupSizeX() {
		if c := local[b]; c != 0 {
			kernel.AtomicAdd(&hist[b], c)
		}
	}
}
`

func loadGo(t *testing.T, src string) *ir.Module {
	t.Helper()
	m, err := front.Load([]front.File{{Name: "kernels.go", Src: src}})
	require.NoError(t, err)
	return m
}

func TestE2EFromGo(t *testing.T) {
	dev := openWebGPU(t)
	mod := compileAll(t, dev, loadGo(t, goKernels))
	st := dev.DefaultStream()
	for _, block := range blocks {
		for _, groups := range []int{3, 65600} { // the second folds
			n := groups*block - 7
			t.Run(fmt.Sprintf("block%d/groups%d", block, groups), func(t *testing.T) {
				x, y0 := randomFloats(n, 11), randomFloats(n, 12)
				for i := range x {
					x[i] = (x[i] + 1) / 2 // [0, 1) for the histogram
				}
				xb := upload(t, dev, x)

				y := upload(t, dev, y0)
				require.NoError(t, st.Launch(kernelOf(t, mod, "Saxpy"), gpu.D1(groups), gpu.D1(block), gpu.Buf(y), gpu.Buf(xb), gpu.U32(uint32(n)), gpu.F32(3)))
				gotY := download[float32](t, y)
				for i := range n {
					if gotY[i] != 3*x[i]+y0[i] {
						require.InDelta(t, 3*x[i]+y0[i], gotY[i], 1e-6, "saxpy %d", i)
					}
				}

				out := upload(t, dev, make([]float32, groups))
				require.NoError(t, st.Launch(kernelOf(t, mod, "Sum"), gpu.D1(groups), gpu.D1(block), gpu.Buf(out), gpu.Buf(xb), gpu.U32(uint32(n))))
				sums := download[float32](t, out)
				for g := range groups {
					var want float64
					for i := g * block; i < min(n, (g+1)*block); i++ {
						want += float64(x[i])
					}
					if d := float64(sums[g]) - want; d > 1e-3 || d < -1e-3 {
						require.InDelta(t, want, sums[g], 1e-3, "sum of group %d", g)
					}
				}

				hist := upload(t, dev, make([]uint32, 64))
				hgroups := min(groups, 100) // grid-stride: fewer groups than elements
				require.NoError(t, st.Launch(kernelOf(t, mod, "Histogram"), gpu.D1(hgroups), gpu.D1(block), gpu.Buf(hist), gpu.Buf(xb), gpu.U32(uint32(n))))
				want := make([]uint32, 64)
				for _, v := range x {
					want[int(min(max(v*64, 0), 63))]++
				}
				assert.Equal(t, want, download[uint32](t, hist))
			})
		}
	}
}
