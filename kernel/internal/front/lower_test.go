package front

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu/kernel/internal/ir"
)

// header starts every test source: the user's text starts on line 7.
const header = "package p\n\nimport \"github.com/anygpu/gpu/kernel\"\n\nvar _ = kernel.Barrier\n\n"

// load loads header+src as t.go.
func load(src string) (*ir.Module, error) {
	return Load([]File{{Name: "t.go", Src: header + src}})
}

// TestLower checks the IR of each construct (rendered by dump).
func TestLower(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"untyped constants are typed and folded", `
const scale = 3
//gpu:kernel
func K(y []float32, n uint32) {
	y[n] = scale * 0.5
	y[n+1<<2] = float32(n) * scale
	y[1<<n] = 0
}`, `kernel K(y []float32, n uint32)
	y[n] = 1.5:float32
	y[(n + 4:uint32)] = (float32(n) * 3:float32)
	y[(1:int32 << n)] = 0:float32
`},
		{"a variant fixes parameters as constant locals, by literal or package constant", `
const half = 0.5
//gpu:kernel
//gpu:variant KHalf n=3 a=half
func K(y []float32, n uint32, a float32) {
	y[n] = a
}`, `kernel K(y []float32, n uint32, a float32)
	y[n] = a
kernel KHalf(y []float32, n uint32, a float32)
	var n_1 uint32 = 3:uint32
	var a_1 float32 = 0.5:float32
	y[n_1] = a_1
`},
		{"int and uint are 32-bit; conversions are explicit", `
//gpu:kernel
func K(y []int32, a int, b uint) {
	var c int64 = int64(a)
	y[b] = int32(c) + int32(b) + int32(a)
}`, `kernel K(y []int32, a int32, b uint32)
	var c int64 = int64(a)
	y[b] = ((int32(c) + int32(b)) + a)
`},
		{"op= and ++ become Assign of a Binary", `
//gpu:kernel
func K(y []uint32, n uint32) {
	x := n
	x += 2
	x <<= n
	x++
	y[x] -= 1
	y[0]--
}`, `kernel K(y []uint32, n uint32)
	var x uint32 = n
	x = (x + 2:uint32)
	x = (x << n)
	x = (x + 1:uint32)
	y[x] = (y[x] - 1:uint32)
	y[0:int32] = (y[0:int32] - 1:uint32)
`},
		{"an index with effects is hoisted", `
//gpu:kernel
func K(y []uint32, c []uint32) {
	y[kernel.AtomicAdd(&c[0], 1)] += 5
}`, `kernel K(y []uint32, c []uint32)
	var idx uint32 = AtomicAdd(&c[0:int32], 1:uint32)
	y[idx] = (y[idx] + 5:uint32)
`},
		{"range over an integer is a three-clause loop", `
//gpu:kernel
func K(y []int32, n int32) {
	for i := range n {
		y[i] = i
	}
	for range 4 {
		y[0]++
	}
	for i := range 8 {
		i += 2
		y[i] = int32(i)
	}
}`, `kernel K(y []int32, n int32)
	{
		var n_1 int32 = n
		for var i int32 = 0:int32; (i < n_1); i = (i + 1:int32) {
			y[i] = i
		}
	}
	for var i_1 int32 = 0:int32; (i_1 < 4:int32); i_1 = (i_1 + 1:int32) {
		y[0:int32] = (y[0:int32] + 1:int32)
	}
	for var i_3 int32 = 0:int32; (i_3 < 8:int32); i_3 = (i_3 + 1:int32) {
		var i_2 int32 = i_3
		i_2 = (i_2 + 2:int32)
		y[i_2] = i_2
	}
`},
		{"for loops of every form", `
//gpu:kernel
func K(y []uint32, n uint32) {
	for i, j := uint32(0), n; i < j; i++ {
		y[i] = j
	}
	var k uint32
	for k < n {
		k *= 2
	}
	for {
		break
	}
}`, `kernel K(y []uint32, n uint32)
	{
		var i uint32 = 0:uint32
		var j uint32 = n
		for ; (i < j); i = (i + 1:uint32) {
			y[i] = j
		}
	}
	var k uint32
	for ; (k < n);  {
		k = (k * 2:uint32)
	}
	for ; ;  {
		break
	}
`},
		{"labelled break and continue of an outer loop use flags", `
//gpu:kernel
func K(y []uint32, n uint32) {
outer:
	for i := range n {
		for j := range n {
			if y[j] == i {
				continue outer
			}
			if y[j] > i {
				break outer
			}
		}
		y[i] = 0
	}
}`, `kernel K(y []uint32, n uint32)
	{
		var n_1 uint32 = n
		for var i uint32 = 0:uint32; (i < n_1); i = (i + 1:uint32) {
			var break_outer bool = false:bool
			var continue_outer bool = false:bool
			{
				var n_2 uint32 = n
				for var j uint32 = 0:uint32; (j < n_2); j = (j + 1:uint32) {
					if (y[j] == i) {
						continue_outer = true:bool
						break
					}
					if (y[j] > i) {
						break_outer = true:bool
						break
					}
				}
			}
			if continue_outer {
				continue
			}
			if break_outer {
				break
			}
			y[i] = 0:uint32
		}
	}
`},
		{"shadowed and reserved names get a suffix", `
//gpu:kernel
func K(y []float32, float float32) {
	x := float
	if x > 0 {
		x := x * 2
		int := x
		y[0] = int
	}
	y[1] = x
}`, `kernel K(y []float32, float_1 float32)
	var x float32 = float_1
	if (x > 0:float32) {
		var x_1 float32 = (x * 2:float32)
		var int_1 float32 = x_1
		y[0:int32] = int_1
	}
	y[1:int32] = x
`},
		{"if with init, else if, parallel assignment", `
//gpu:kernel
func K(y []int32) {
	a, b := y[0], y[1]
	a, b = b, a
	if c := a - b; c > 0 {
		y[2] = c
	} else if c < 0 {
		y[2] = -c
	} else {
		y[2] = ^c
	}
}`, `kernel K(y []int32)
	var a int32 = y[0:int32]
	var b int32 = y[1:int32]
	var tmp int32 = b
	var tmp_1 int32 = a
	a = tmp
	b = tmp_1
	{
		var c int32 = (a - b)
		if (c > 0:int32) {
			y[2:int32] = c
		} else {
			if (c < 0:int32) {
				y[2:int32] = (-c)
			} else {
				y[2:int32] = (^c)
			}
		}
	}
`},
		{"built-ins, math, bit casts and Float4 lanes", `
//gpu:kernel
func K(y []float32, i uint32) {
	var a [8]float32
	v := kernel.Load4(y, i)
	v.W = min(v.X, v.Y, 2)
	a[len(a)-1] = kernel.Sqrt(v.W) + kernel.Float32frombits(kernel.Float32bits(v.Z)&^1)
	kernel.Store4(y, i+1, kernel.Float4{1, 2, 3, a[7]})
	y[0] = kernel.Clamp(max(y[1], 0), -1, 1)
}`, `kernel K(y []float32, i uint32)
	var a [8]float32
	var v vec4<float32> = Load4(y, i)
	v.W = Min(Min(v.X, v.Y), 2:float32)
	a[7:int32] = (Sqrt(v.W) + Float32frombits((Float32bits(v.Z) &^ 1:uint32)))
	Store4(y, (i + 1:uint32), vec4<float32>{1:float32, 2:float32, 3:float32, a[7:int32]})
	y[0:int32] = Clamp(Max(y[1:int32], 0:float32), -1:float32, 1:float32)
`},
		{"shared arrays are listed on the Func, atomics on them lower", `
//gpu:kernel
func K(y []int32) {
	s := kernel.Shared[[4][8]int32]()
	var c = kernel.Shared[[1]int32]()
	s[kernel.ThreadY()][kernel.ThreadX()] = 1
	old := kernel.AtomicCompareExchange(&c[0], 0, 1)
	kernel.Barrier()
	y[0] = old + s[0][1] + int32(len(s))
}`, `kernel K(y []int32)
shared s [4][8]int32
shared c [1]int32
	s[ThreadY()][ThreadX()] = 1:int32
	var old int32 = AtomicCompareExchange(&c[0:int32], 0:int32, 1:int32)
	Barrier()
	y[0:int32] = ((old + s[0:int32][1:int32]) + 4:int32)
`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := load(tt.src)
			require.NoError(t, err)
			var got strings.Builder
			for _, f := range m.Funcs {
				got.WriteString(dump(f))
			}
			assert.Equal(t, tt.want, got.String())
		})
	}
}

// TestHelpers checks that helpers come first, callees before callers, with
// named results, arrays and Float4s, and reserved names renamed.
func TestHelpers(t *testing.T) {
	m, err := load(`
func sqrt(x float32) float32 { return kernel.Sqrt(x) }
func norm(v kernel.Float4) (n float32) {
	n = sqrt(v.X*v.X + v.Y*v.Y)
	return
}
func rev(a [2]int32) [2]int32 {
	a[0], a[1] = a[1], a[0]
	return a
}
//gpu:kernel
func K(y []float32) {
	var a [2]int32
	a = rev(a)
	y[0] = norm(kernel.Float4{X: y[1]}) + float32(a[0])
}
//gpu:kernel
func L(y []float32) { y[0] = sqrt(y[1]) }
`)
	require.NoError(t, err)
	var names []string
	for _, f := range m.Funcs {
		names = append(names, f.Name)
	}
	assert.Equal(t, []string{"rev", "sqrt_1", "norm", "K", "L"}, names)
	assert.Equal(t, []*ir.Func{m.Funcs[3], m.Funcs[4]}, m.Kernels())
	assert.Equal(t, `func norm(v vec4<float32>) float32
	var n float32
	n = sqrt_1(((v.X * v.X) + (v.Y * v.Y)))
	return n
`, dump(m.Funcs[2]))
	assert.Equal(t, `kernel K(y []float32)
	var a [2]int32
	a = rev(a)
	y[0:int32] = (norm(vec4<float32>{y[1:int32], 0:float32, 0:float32, 0:float32}) + float32(a[0:int32]))
`, dump(m.Funcs[3]))
	for _, f := range m.Funcs {
		assert.Equal(t, f.Kernel, f.Name == "K" || f.Name == "L")
		for i, p := range f.Params {
			assert.Equal(t, ir.Param, p.Class)
			assert.Equal(t, i, p.Index)
		}
	}
}

// TestFeatures checks Func.Features, through helpers too.
func TestFeatures(t *testing.T) {
	tests := []struct {
		name, src string
		want      ir.Features
	}{
		{"none", "//gpu:kernel\nfunc K(y []float32) { y[0] = 1 }", 0},
		{"float64 local", "//gpu:kernel\nfunc K(y []float32) { x := 1.0; y[0] = float32(x) }", ir.Float64},
		{"int64 buffer", "//gpu:kernel\nfunc K(y []int64) { y[0] = 1 }", ir.Int64},
		{"uint64 conversion", "//gpu:kernel\nfunc K(y []uint32, a uint32) { y[0] = uint32(uint64(a) * 3 >> 1) }", ir.Int64},
		{"float atomic", "//gpu:kernel\nfunc K(y []float32) { kernel.AtomicAdd(&y[0], 1) }", ir.AtomicFloat},
		{"through a helper", "func h(x float32) float32 { return float32(float64(x) / 3) }\n//gpu:kernel\nfunc K(y []float32) { y[0] = h(y[0]) }", ir.Float64},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := load(tt.src)
			require.NoError(t, err)
			assert.Equal(t, tt.want, m.Kernels()[0].Features)
		})
	}
}
