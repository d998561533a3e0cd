package interp

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/kernel/internal/front"
)

// frontSrc holds kernels translated by the front end, each checked against
// plain Go below.
const frontSrc = `package k

import "github.com/anygpu/gpu/kernel"

//gpu:kernel
func Saxpy(y, x []float32, n uint32, a float32) {
	i := kernel.GlobalX()
	if i < n {
		y[i] = a*x[i] + y[i]
	}
}

//gpu:kernel
func Sum(out, x []float32, n uint32) {
	tile := kernel.Shared[[64]float32]()
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

//gpu:kernel
func Histogram(hist []uint32, x []uint32, n uint32) {
	local := kernel.Shared[[16]uint32]()
	t := kernel.ThreadX()
	for b := t; b < 16; b += kernel.GroupSizeX() {
		local[b] = 0
	}
	kernel.Barrier()
	stride := kernel.GridX() * kernel.GroupSizeX()
	for i := kernel.GlobalX(); i < n; i += stride {
		kernel.AtomicAdd(&local[x[i]%16], 1)
	}
	kernel.Barrier()
	for b := t; b < 16; b += kernel.GroupSizeX() {
		if c := local[b]; c != 0 {
			kernel.AtomicAdd(&hist[b], c)
		}
	}
}

//gpu:kernel
func Loops(out []int32) {
	i := int32(kernel.GlobalX())
	count := int32(0)
outer:
	for a := int32(0); a < 12; a++ {
		for b := int32(0); b < 12; b++ {
			if b > a {
				continue outer
			}
			if a*b == i {
				break outer
			}
			if (a+b+i)%5 == 0 {
				continue
			}
			count++
		}
	}
	out[i] = count
}

//gpu:kernel
func EarlyReturn(out []uint32, n uint32) {
	sh := kernel.Shared[[32]uint32]()
	t := kernel.ThreadX()
	sh[t] = t
	kernel.Barrier()
	if t%3 == 0 {
		return
	}
	out[kernel.GlobalX()] = 1
	for s := uint32(0); s < n; s++ {
		if t%5 == 1 {
			return
		}
		out[kernel.GlobalX()] += sh[(t+s)%kernel.GroupSizeX()]
	}
	out[kernel.GlobalX()] += 1000
}
`

func compileFront(t *testing.T) map[string]backend.GoKernel {
	t.Helper()
	m, err := front.Load([]front.File{{Name: "k.go", Src: frontSrc}})
	require.NoError(t, err)
	ks, err := Compile(m)
	require.NoError(t, err)
	return ks
}

func TestFrontKernels(t *testing.T) {
	ks := compileFront(t)
	t.Run("saxpy", func(t *testing.T) {
		const n = 1000
		y, x, want := make([]float32, n), make([]float32, n), make([]float32, n)
		for i := range y {
			x[i], y[i] = float32(i)/3, float32(n-i)
			want[i] = 2.5*x[i] + y[i]
		}
		require.NoError(t, launch(ks["Saxpy"], backend.Dim3{X: 16}, backend.Dim3{X: 64}, buf(y), buf(x), argU32(n), argF32(2.5)))
		assert.Equal(t, want, y)
	})
	t.Run("reduction", func(t *testing.T) {
		const n, block = 1000, 64
		x := make([]float32, n)
		for i := range x {
			x[i] = float32(i%17) - 3
		}
		groups := (n + block - 1) / block
		out, want := make([]float32, groups), make([]float32, groups)
		for g := range groups {
			tile := make([]float32, block)
			for t := range block {
				if i := g*block + t; i < n {
					tile[t] = x[i]
				}
			}
			for s := block / 2; s > 0; s >>= 1 {
				for t := range s {
					tile[t] += tile[t+s]
				}
			}
			want[g] = tile[0]
		}
		require.NoError(t, launch(ks["Sum"], backend.Dim3{X: groups}, backend.Dim3{X: block}, buf(out), buf(x), argU32(n)))
		assert.Equal(t, want, out)
	})
	t.Run("histogram", func(t *testing.T) {
		const n = 10007
		x := make([]uint32, n)
		want := make([]uint32, 16)
		for i := range x {
			x[i] = uint32(i*7919) % 1000
			want[x[i]%16]++
		}
		hist := make([]uint32, 16)
		require.NoError(t, launch(ks["Histogram"], backend.Dim3{X: 8}, backend.Dim3{X: 8}, buf(hist), buf(x), argU32(n)))
		assert.Equal(t, want, hist)
	})
	t.Run("nested loops with labelled break and continue", func(t *testing.T) {
		const n = 96
		out, want := make([]int32, n), make([]int32, n)
		for i := range int32(n) {
			count := int32(0)
		outer:
			for a := int32(0); a < 12; a++ {
				for b := int32(0); b < 12; b++ {
					if b > a {
						continue outer
					}
					if a*b == i {
						break outer
					}
					if (a+b+i)%5 == 0 {
						continue
					}
					count++
				}
			}
			want[i] = count
		}
		require.NoError(t, launch(ks["Loops"], backend.Dim3{X: 3}, backend.Dim3{X: 32}, buf(out)))
		assert.Equal(t, want, out)
	})
	t.Run("early return under divergence", func(t *testing.T) {
		const block, groups, n = 32, 2, 4
		out, want := make([]uint32, block*groups), make([]uint32, block*groups)
		for g := range groups {
			for t := range uint32(block) {
				o := &want[g*block+int(t)]
				if t%3 == 0 {
					continue
				}
				*o = 1
				returned := false
				for s := range uint32(n) {
					if t%5 == 1 {
						returned = true
						break
					}
					*o += (t + s) % block
				}
				if !returned {
					*o += 1000
				}
			}
		}
		require.NoError(t, launch(ks["EarlyReturn"], backend.Dim3{X: groups}, backend.Dim3{X: block}, buf(out), argU32(n)))
		assert.Equal(t, want, out)
	})
}

// BenchmarkReduce compares the interpreter with the compiled Go reference
// on a shared-memory tree reduction (one core, 65536 elements in groups of
// 64, a barrier per level).
func BenchmarkReduce(b *testing.B) {
	const n, block = 1 << 16, 64
	x, out := make([]float32, n), make([]float32, n/block)
	args := []backend.Arg{buf(out), buf(x), argU32(n)}
	grid := backend.Dim3{X: n / block}.Norm()
	run := func(b *testing.B, k backend.GoKernel) {
		for range b.N {
			for g := range n / block {
				k(backend.Group{ID: backend.Dim3{X: g}.Norm(), Size: backend.Dim3{X: block}.Norm(), Grid: grid}, args)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/element")
	}
	b.Run("interp", func(b *testing.B) {
		m, err := front.Load([]front.File{{Name: "k.go", Src: frontSrc}})
		require.NoError(b, err)
		ks, err := Compile(m)
		require.NoError(b, err)
		b.ResetTimer()
		run(b, ks["Sum"])
	})
	b.Run("compiled", func(b *testing.B) { run(b, reduceGo) })
}

// reduceGo is the group function a Go code generator emits for Sum.
func reduceGo(g backend.Group, args []backend.Arg) {
	out, x, n := args[0].Float32s(), args[1].Float32s(), args[2].U32()
	var tile [64]float32
	size := g.Size.X
	for t := range size {
		var v float32
		if i := uint32(g.ID.X*size + t); i < n {
			v = x[i]
		}
		tile[t] = v
	}
	for s := size / 2; s > 0; s >>= 1 {
		for t := range s {
			tile[t] += tile[t+s]
		}
	}
	out[g.ID.X] = tile[0]
}
