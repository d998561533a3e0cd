package ops

import (
	"fmt"
	"math"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu/backend"
)

// f32Arg is a host buffer argument holding a copy of v.
func f32Arg(v []float32) backend.Arg {
	b := make([]byte, 4*len(v))
	copy(unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(b))), len(v)), v)
	return backend.Arg{Kind: backend.ArgBuffer, Buffer: hostBuffer(b)}
}

// f32sOf reads a host buffer argument back.
func f32sOf(a backend.Arg) []float32 { return a.Float32s() }

// launchAll runs every group of a launch, one after another.
func launchAll(k backend.GoKernel, grid, block backend.Dim3, args []backend.Arg) {
	grid, block = grid.Norm(), block.Norm()
	g := backend.Group{Size: block, Grid: grid}
	for z := range grid.Z {
		for y := range grid.Y {
			for x := range grid.X {
				g.ID = backend.Dim3{X: x, Y: y, Z: z}
				k(g, args)
			}
		}
	}
}

// TestGeneratedGoLaunchShapes runs the generated Go of the element-wise ops
// and the reductions over launch shapes the CPU forms of the group
// functions treat differently (1-D groups in strips of a quarter of the
// group, groups that are not a multiple of 4, 2-D groups, a grid too small
// to cover n once) and checks them against plain Go.
func TestGeneratedGoLaunchShapes(t *testing.T) {
	shapes := []struct {
		grid, block backend.Dim3
	}{
		{backend.Dim3{X: 4}, backend.Dim3{X: 256}},
		{backend.Dim3{X: 3}, backend.Dim3{X: 64}},
		{backend.Dim3{X: 2}, backend.Dim3{X: 100}},
		{backend.Dim3{X: 5}, backend.Dim3{X: 6}},
		{backend.Dim3{X: 7}, backend.Dim3{X: 1}},
		{backend.Dim3{X: 1}, backend.Dim3{X: 4}},
		{backend.Dim3{X: 3}, backend.Dim3{X: 8, Y: 2}},
		{backend.Dim3{X: 2, Y: 2}, backend.Dim3{X: 32}},
	}
	for _, n := range []int{0, 1, 5, 1023, 4099} {
		x, y0 := make([]float32, n), make([]float32, n)
		for i := range x {
			x[i], y0[i] = float32(i%7), float32(i%5)-2
		}
		for _, sh := range shapes {
			name := fmt.Sprintf("n%d/grid%v/block%v", n, sh.grid, sh.block)
			t.Run(name, func(t *testing.T) {
				const a = float32(3)
				elementwise := []struct {
					op   string
					args func() []backend.Arg
					want func(i int) float32
				}{
					{"fill", func() []backend.Arg {
						return []backend.Arg{f32Arg(y0), {Kind: backend.ArgU32, Bits: uint64(n)}, {Kind: backend.ArgF32, Bits: uint64(math.Float32bits(a))}}
					}, func(int) float32 { return a }},
					{"copyOp", func() []backend.Arg {
						return []backend.Arg{f32Arg(y0), f32Arg(x), {Kind: backend.ArgU32, Bits: uint64(n)}}
					},
						func(i int) float32 { return x[i] }},
					{"scale", func() []backend.Arg {
						return []backend.Arg{f32Arg(y0), f32Arg(x), {Kind: backend.ArgU32, Bits: uint64(n)}, {Kind: backend.ArgF32, Bits: uint64(math.Float32bits(a))}}
					}, func(i int) float32 { return a * x[i] }},
					{"axpy", func() []backend.Arg {
						return []backend.Arg{f32Arg(y0), f32Arg(x), {Kind: backend.ArgU32, Bits: uint64(n)}, {Kind: backend.ArgF32, Bits: uint64(math.Float32bits(a))}}
					}, func(i int) float32 { return a*x[i] + y0[i] }},
					{"add", func() []backend.Arg {
						return []backend.Arg{f32Arg(y0), f32Arg(x), f32Arg(y0), {Kind: backend.ArgU32, Bits: uint64(n)}}
					},
						func(i int) float32 { return x[i] + y0[i] }},
					{"mul", func() []backend.Arg {
						return []backend.Arg{f32Arg(y0), f32Arg(x), f32Arg(y0), {Kind: backend.ArgU32, Bits: uint64(n)}}
					},
						func(i int) float32 { return x[i] * y0[i] }},
				}
				for _, e := range elementwise {
					args := e.args()
					launchAll(Kernels.Go[e.op], sh.grid, sh.block, args)
					got := f32sOf(args[0])
					require.Len(t, got, n)
					for i := range got {
						if got[i] != e.want(i) {
							require.Equalf(t, e.want(i), got[i], "%s: element %d", e.op, i)
						}
					}
				}
				groups := sh.grid.Norm().X * sh.grid.Norm().Y * sh.grid.Norm().Z
				var sum, dot float32
				for i := range x {
					sum += x[i]
					dot += x[i] * y0[i]
				}
				for _, r := range []struct {
					op   string
					args []backend.Arg
					want float32
				}{
					{"reduce_sum", []backend.Arg{f32Arg(make([]float32, groups)), f32Arg(x), {Kind: backend.ArgU32, Bits: uint64(n)}}, sum},
					{"dotOp", []backend.Arg{f32Arg(make([]float32, groups)), f32Arg(x), f32Arg(y0), {Kind: backend.ArgU32, Bits: uint64(n)}}, dot},
				} {
					launchAll(Kernels.Go[r.op], sh.grid, sh.block, r.args)
					var total float32
					for _, v := range f32sOf(r.args[0])[:sh.grid.Norm().X] {
						total += v
					}
					assert.Equal(t, r.want, total, r.op) // small integers: exact in float32
				}
			})
		}
	}
}
