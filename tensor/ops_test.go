package tensor

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/anygpu/gpu"
	"github.com/stretchr/testify/require"
)

// input is a way to make an operand: a base tensor of random values (in
// [lo, hi)) and the views applied to it, mirrored on a hostND.
type input struct {
	name  string
	base  []int
	views []func(*Tensor) (*Tensor, error)
	host  func(hostND) hostND
}

// make uploads the base with float32 values from rng and applies the views;
// the returned cleanup closes every tensor made.
func (in input) make(t *testing.T, dev *gpu.Device, rng *rand.Rand, lo, hi float64) (*Tensor, hostND) {
	t.Helper()
	return in.makeAs(t, dev, Float32, rng, lo, hi)
}

// makeAs is make with a base of dtype d: the values are rounded to d, so
// the reference computes with exactly the values the device has.
func (in input) makeAs(t *testing.T, dev *gpu.Device, d DType, rng *rand.Rand, lo, hi float64) (*Tensor, hostND) {
	t.Helper()
	h := build(in.base, func([]int) float64 { return roundTo(d, lo+(hi-lo)*rng.Float64()) })
	x, err := FromFloat32(context.Background(), dev, d, h.float32s(), in.base...)
	require.NoError(t, err)
	t.Cleanup(func() { _ = x.Close() })
	for _, v := range in.views {
		y, err := v(x)
		require.NoError(t, err, "view of %s", in.name)
		t.Cleanup(func() { _ = y.Close() })
		x = y
	}
	if in.host != nil {
		h = in.host(h)
	}
	require.Equal(t, h.shape, x.Shape(), "%s: the view's shape", in.name)
	return x, h
}

func transpose(a, b int) func(*Tensor) (*Tensor, error) {
	return func(t *Tensor) (*Tensor, error) { return t.Transpose(a, b) }
}
func permute(p ...int) func(*Tensor) (*Tensor, error) {
	return func(t *Tensor) (*Tensor, error) { return t.Permute(p...) }
}
func slice(d, s, e int) func(*Tensor) (*Tensor, error) {
	return func(t *Tensor) (*Tensor, error) { return t.Slice(d, s, e) }
}
func expand(shape ...int) func(*Tensor) (*Tensor, error) {
	return func(t *Tensor) (*Tensor, error) { return t.Expand(shape...) }
}
func reshape(shape ...int) func(*Tensor) (*Tensor, error) {
	return func(t *Tensor) (*Tensor, error) { return t.Reshape(shape...) }
}

func swap(a, b, r int) []int {
	p := make([]int, r)
	for i := range p {
		p[i] = i
	}
	p[a], p[b] = p[b], p[a]
	return p
}

// unaryInputs covers odd sizes, every kind of view, rank 0 and 6, and
// zero-size dimensions.
var unaryInputs = []input{
	{name: "vector 37", base: []int{37}},
	{name: "matrix 5x7", base: []int{5, 7}},
	{name: "transposed 7x5", base: []int{5, 7}, views: []func(*Tensor) (*Tensor, error){transpose(0, 1)},
		host: func(h hostND) hostND { return h.permute(1, 0) }},
	{name: "sliced twice", base: []int{6, 9}, views: []func(*Tensor) (*Tensor, error){slice(1, 2, 7), slice(0, 1, 5)},
		host: func(h hostND) hostND { return h.slice(1, 2, 7).slice(0, 1, 5) }},
	{name: "permuted rank 4", base: []int{2, 3, 4, 5}, views: []func(*Tensor) (*Tensor, error){permute(3, 1, 0, 2)},
		host: func(h hostND) hostND { return h.permute(3, 1, 0, 2) }},
	{name: "expanded", base: []int{3, 1}, views: []func(*Tensor) (*Tensor, error){expand(2, 3, 4)},
		host: func(h hostND) hostND { return h.expand(2, 3, 4) }},
	{name: "rank 6", base: []int{2, 1, 3, 1, 2, 3}},
	{name: "rank 6 permuted", base: []int{2, 1, 3, 1, 2, 3}, views: []func(*Tensor) (*Tensor, error){permute(5, 2, 1, 0, 4, 3)},
		host: func(h hostND) hostND { return h.permute(5, 2, 1, 0, 4, 3) }},
	{name: "rank 6 no dimensions merge", base: []int{2, 3, 2, 3, 2, 3}, views: []func(*Tensor) (*Tensor, error){permute(1, 0, 3, 2, 5, 4)},
		host: func(h hostND) hostND { return h.permute(1, 0, 3, 2, 5, 4) }},
	{name: "rank 5 no dimensions merge", base: []int{2, 3, 2, 3, 2}, views: []func(*Tensor) (*Tensor, error){permute(1, 0, 3, 2, 4)},
		host: func(h hostND) hostND { return h.permute(1, 0, 3, 2, 4) }},
	{name: "scalar", base: []int{1}, views: []func(*Tensor) (*Tensor, error){reshape()},
		host: func(h hostND) hostND { return hostND{shape: []int{}, data: h.data} }},
	{name: "zero-size", base: []int{3, 0, 2}},
	{name: "odd offset 37 of 38", base: []int{38}, views: []func(*Tensor) (*Tensor, error){slice(0, 1, 38)},
		host: func(h hostND) hostND { return h.slice(0, 1, 38) }},
	{name: "long transposed 3x1001", base: []int{1001, 3}, views: []func(*Tensor) (*Tensor, error){transpose(0, 1)},
		host: func(h hostND) hostND { return h.permute(1, 0) }},
}

// tolerance is |got - want| ≤ abs + rel·|want|.
type tolerance struct{ abs, rel float64 }

// computeDTypes are the dtypes every op computes in.
var computeDTypes = []DType{Float32, Float16, BFloat16}

// roundTo is v rounded to float32, then to dtype d, as the host conversion
// rounds.
func roundTo(d DType, v float64) float64 {
	f := []float32{float32(v)}
	b := make([]byte, d.Size())
	encodeFloat32s(b, d, f)
	decodeFloat32s(f, d, b)
	return float64(f[0])
}

// forDType is tol, a float32 tolerance, widened by one rounding of the
// result to d, to nearest: half an ulp, 2⁻⁸ relative at worst for
// bfloat16's 8 significant bits and 2⁻¹¹ for float16's 11, plus half
// float16's subnormal spacing in absolute terms.
func (tol tolerance) forDType(d DType) tolerance {
	switch d {
	case BFloat16:
		return tolerance{tol.abs, tol.rel + 1.0/(1<<8)}
	case Float16:
		return tolerance{tol.abs + 1.0/(1<<25), tol.rel + 1.0/(1<<11)}
	}
	return tol
}

// scaled is tol with both bounds times f: a result rounded f times on the
// way (an intermediate tensor of a 16-bit dtype).
func (tol tolerance) scaled(f float64) tolerance { return tolerance{tol.abs * f, tol.rel * f} }

func requireClose(t *testing.T, want hostND, got []float32, tol tolerance, what string) {
	t.Helper()
	require.Len(t, got, len(want.data), what)
	for i, w := range want.data {
		g := float64(got[i])
		if math.IsNaN(w) {
			require.True(t, math.IsNaN(g), "%s: element %d = %v, want NaN", what, i, g)
			continue
		}
		require.LessOrEqual(t, math.Abs(g-w), tol.abs+tol.rel*math.Abs(w),
			"%s: element %d (at %v of %v) = %v, want %v", what, i, coords(want.shape, i), want.shape, g, w)
	}
}

// read is x's elements on the host, closing x.
func read(t *testing.T, x *Tensor) []float32 {
	t.Helper()
	defer x.Close()
	got, err := x.ToFloat32(context.Background())
	require.NoError(t, err)
	return got
}

func gelu(x float64) float64 { return 0.5 * x * (1 + math.Erf(x/math.Sqrt2)) }
func geluTanh(x float64) float64 {
	return 0.5 * x * (1 + math.Tanh(math.Sqrt(2/math.Pi)*(x+0.044715*x*x*x)))
}

// Float32 tolerances: one rounding is 6e-8 relative; the GPUs' exp and tanh
// are a few ulp (relative, or absolute near 0), erf is 1.5e-7 absolute.
var unaryOps = []struct {
	name   string
	f      func(*Tensor) (*Tensor, error)
	ref    func(float64) float64
	lo, hi float64
	tol    tolerance
}{
	{"scale", func(x *Tensor) (*Tensor, error) { return Scale(x, -1.5) }, func(x float64) float64 { return -1.5 * x }, -4, 4, tolerance{0, 1e-7}},
	{"relu", ReLU, func(x float64) float64 { return math.Max(x, 0) }, -4, 4, tolerance{0, 0}},
	{"gelu tanh", GELU, geluTanh, -6, 6, tolerance{2e-6, 2e-6}},
	{"gelu erf", GELUErf, gelu, -6, 6, tolerance{2e-6, 2e-6}},
	{"silu", SiLU, func(x float64) float64 { return x / (1 + math.Exp(-x)) }, -20, 20, tolerance{1e-6, 2e-6}},
	{"silu far", SiLU, func(x float64) float64 { return x / (1 + math.Exp(-x)) }, -200, 200, tolerance{1e-6, 2e-6}},
	{"exp", Exp, math.Exp, -10, 10, tolerance{0, 4e-6}},
	{"tanh", Tanh, math.Tanh, -5, 5, tolerance{2e-6, 2e-6}},
}

func TestUnaryOps(t *testing.T) {
	forEachDevice(t, func(t *testing.T, dev *gpu.Device) {
		rng := rand.New(rand.NewPCG(1, 1))
		for _, d := range computeDTypes {
			for _, op := range unaryOps {
				for _, in := range unaryInputs {
					t.Run(d.String()+"/"+op.name+"/"+in.name, func(t *testing.T) {
						x, h := in.makeAs(t, dev, d, rng, op.lo, op.hi)
						y, err := op.f(x)
						require.NoError(t, err)
						require.Equal(t, x.Shape(), y.Shape())
						require.Equal(t, d, y.DType())
						require.True(t, y.IsContiguous())
						want := hostND{shape: h.shape, data: make([]float64, len(h.data))}
						for i, v := range h.data {
							want.data[i] = op.ref(v)
						}
						requireClose(t, want, read(t, y), op.tol.forDType(d), op.name)
					})
				}
			}
		}
	})
}

var binaryOps = []struct {
	name string
	f    func(x, y *Tensor) (*Tensor, error)
	ref  func(x, y float64) float64
	tol  tolerance
}{
	{"add", Add, func(x, y float64) float64 { return x + y }, tolerance{0, 1e-7}},
	{"sub", Sub, func(x, y float64) float64 { return x - y }, tolerance{1e-7, 1e-7}},
	{"mul", Mul, func(x, y float64) float64 { return x * y }, tolerance{0, 1e-7}},
	{"div", Div, func(x, y float64) float64 { return x / y }, tolerance{0, 3e-7}},
}

// binaryPairs covers broadcasting: equal shapes, a row, both sides, a
// scalar, rank 6, zero-size, and views on either side.
var binaryPairs = []struct {
	name string
	x, y input
}{
	{"same shape", input{base: []int{4, 5}}, input{base: []int{4, 5}}},
	{"row", input{base: []int{4, 5}}, input{base: []int{5}}},
	{"column and row", input{base: []int{4, 1}}, input{base: []int{1, 5}}},
	{"scalar", input{base: []int{3, 3}}, input{base: []int{1}, views: []func(*Tensor) (*Tensor, error){reshape()},
		host: func(h hostND) hostND { return hostND{shape: []int{}, data: h.data} }}},
	{"scalar left", input{base: []int{1}, views: []func(*Tensor) (*Tensor, error){reshape()},
		host: func(h hostND) hostND { return hostND{shape: []int{}, data: h.data} }}, input{base: []int{2, 3}}},
	{"transposed and column", input{base: []int{4, 3, 2}, views: []func(*Tensor) (*Tensor, error){permute(2, 1, 0)},
		host: func(h hostND) hostND { return h.permute(2, 1, 0) }}, input{base: []int{3, 1}}},
	{"rank 6", input{base: []int{2, 1, 3, 1, 2, 3}}, input{base: []int{3, 1, 1, 3}}},
	{"zero-size", input{base: []int{0, 5}}, input{base: []int{5}}},
	{"rank 6, no dimensions merge", input{base: []int{2, 3, 2, 3, 2, 3}, views: []func(*Tensor) (*Tensor, error){permute(1, 0, 3, 2, 5, 4)},
		host: func(h hostND) hostND { return h.permute(1, 0, 3, 2, 5, 4) }}, input{base: []int{2, 1, 2, 1, 2}}},
	{"sliced and expanded", input{base: []int{6, 9}, views: []func(*Tensor) (*Tensor, error){slice(1, 2, 7)},
		host: func(h hostND) hostND { return h.slice(1, 2, 7) }},
		input{base: []int{1, 5}, views: []func(*Tensor) (*Tensor, error){expand(6, 5)},
			host: func(h hostND) hostND { return h.expand(6, 5) }}},
	{"odd long", input{base: []int{3, 1001}}, input{base: []int{3, 1}}},
}

func TestBinaryOps(t *testing.T) {
	forEachDevice(t, func(t *testing.T, dev *gpu.Device) {
		rng := rand.New(rand.NewPCG(2, 2))
		for _, d := range computeDTypes {
			for _, op := range binaryOps {
				for _, p := range binaryPairs {
					t.Run(d.String()+"/"+op.name+"/"+p.name, func(t *testing.T) {
						x, hx := p.x.makeAs(t, dev, d, rng, -4, 4)
						// y's values are away from 0 (for div): ±[0.5, 2).
						y, hy := p.y.makeAs(t, dev, d, rng, 0.5, 2)
						shape, err := BroadcastShapes(hx.shape, hy.shape)
						require.NoError(t, err)
						z, err := op.f(x, y)
						require.NoError(t, err)
						require.Equal(t, shape, z.Shape())
						require.Equal(t, d, z.DType())
						ex, ey := hx.expand(shape...), hy.expand(shape...)
						want := hostND{shape: shape, data: make([]float64, numel(shape))}
						for i := range want.data {
							want.data[i] = op.ref(ex.data[i], ey.data[i])
						}
						requireClose(t, want, read(t, z), op.tol.forDType(d), op.name)
					})
				}
			}
		}
	})
}
