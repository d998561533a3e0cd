package tensor

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/errors"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// linearAddCases are LinearAdd's operands: x [..., in], w [in out], a bias
// or none, r of the result's shape (any view).
var linearAddCases = []struct {
	name    string
	x, w, r input
	bias    bool
}{
	{name: "decode row with bias", x: input{base: []int{1, 40}}, w: input{base: []int{40, 33}}, r: input{base: []int{1, 33}}, bias: true},
	{name: "rows, no bias", x: input{base: []int{5, 20}}, w: input{base: []int{20, 9}}, r: input{base: []int{5, 9}}},
	{name: "rank 3 with bias", x: input{base: []int{2, 3, 20}}, w: input{base: []int{20, 33}}, r: input{base: []int{2, 3, 33}}, bias: true},
	{name: "r a transposed view", x: input{base: []int{4, 6}}, w: input{base: []int{6, 7}}, bias: true,
		r: input{base: []int{7, 4}, views: []func(*Tensor) (*Tensor, error){transpose(0, 1)},
			host: func(h hostND) hostND { return h.permute(1, 0) }}},
	{name: "rank 3, r not flattenable", x: input{base: []int{2, 3, 8}}, w: input{base: []int{8, 5}}, bias: true,
		r: input{base: []int{3, 2, 5}, views: []func(*Tensor) (*Tensor, error){permute(1, 0, 2)},
			host: func(h hostND) hostND { return h.permute(1, 0, 2) }}},
	{name: "empty inner dimension", x: input{base: []int{3, 0}}, w: input{base: []int{0, 4}}, r: input{base: []int{3, 4}}, bias: true},
}

// linearAddHost is r + x·w + bias in float64, x flattened to rows, and the
// largest |x·w + bias| + |r| of an element (the scale of the roundings on
// the way).
func linearAddHost(x, w, r hostND, bias []float64) (hostND, float64) {
	in := x.shape[len(x.shape)-1]
	rows := len(x.data) / max(in, 1)
	if in == 0 {
		rows = len(r.data) / w.shape[1]
	}
	p := matmulHost(hostND{shape: []int{rows, in}, data: x.data}, w, bias)
	out := hostND{shape: r.shape, data: make([]float64, len(r.data))}
	scale := 0.0
	for i := range out.data {
		out.data[i] = p.data[i] + r.data[i]
		scale = max(scale, math.Abs(p.data[i])+math.Abs(r.data[i]))
	}
	return out, scale
}

// unitRoundoff is the largest relative error of one rounding to d.
func unitRoundoff(d DType) float64 {
	switch d {
	case BFloat16:
		return 1.0 / (1 << 8)
	case Float16:
		return 1.0 / (1 << 11)
	}
	return 1.0 / (1 << 24)
}

// TestLinearAdd: r + x·w + bias on every device, and on the CPU with a
// host library standing in for the matrix library (the path where r and
// the bias are added first), against float64.
func TestLinearAdd(t *testing.T) {
	check := func(t *testing.T, dev *gpu.Device, d DType, lib func(*gpu.Stream, gpu.MatMul) error) {
		ctx := context.Background()
		for _, tc := range linearAddCases {
			t.Run(tc.name, func(t *testing.T) {
				rng := rand.New(rand.NewPCG(5, uint64(len(tc.name))))
				x, xh := tc.x.makeAs(t, dev, d, rng, -1, 1)
				w, wh := tc.w.makeAs(t, dev, d, rng, -1, 1)
				r, rh := tc.r.makeAs(t, dev, d, rng, -1, 1)
				var bias *Tensor
				var biasH []float64
				if tc.bias {
					b, bh := input{base: []int{wh.shape[1]}}.makeAs(t, dev, d, rng, -1, 1)
					bias, biasH = b, bh.data
				}
				var got *Tensor
				run := func() {
					var err error
					got, err = LinearAdd(x, w, bias, r)
					require.NoError(t, err)
				}
				if lib != nil {
					withLibrary(t, dev, lib, run)
				} else {
					run()
				}
				defer got.Close()
				want, scale := linearAddHost(xh, wh, rh, biasH)
				require.Equal(t, want.shape, got.Shape())
				vals, err := got.ToFloat32(ctx)
				require.NoError(t, err)
				// Roundings to d on the way (of the product plus the bias,
				// or of r plus the bias) err by up to one unit of their
				// size, which may exceed the result's.
				tol := tolerance{abs: 4e-5 + 2*unitRoundoff(d)*scale, rel: 1e-5}.forDType(d)
				requireClose(t, want, vals, tol, tc.name)
			})
		}
	}
	forEachDevice(t, func(t *testing.T, dev *gpu.Device) {
		for _, d := range computeDTypes {
			t.Run(d.String(), func(t *testing.T) { check(t, dev, d, nil) })
		}
	})
	t.Run("library", func(t *testing.T) {
		dev := cpuDevice(t)
		for _, d := range computeDTypes {
			t.Run(d.String(), func(t *testing.T) { check(t, dev, d, hostLibrary) })
		}
	})
}

// TestLinearAddOneOpFewer: with a matrix library, LinearAdd of a decode
// row with a bias is two launches (r plus the bias, then the product), one
// fewer than Add(r, Linear(x, w, bias)).
func TestLinearAddOneOpFewer(t *testing.T) {
	dev := cpuDevice(t)
	// Leave no free waiting for a synchronization (later tests count frees).
	t.Cleanup(func() { require.NoError(t, Synchronize(context.Background(), dev)) })
	rng := rand.New(rand.NewPCG(8, 9))
	x, _ := input{base: []int{1, 16}}.make(t, dev, rng, -1, 1)
	w, _ := input{base: []int{16, 8}}.make(t, dev, rng, -1, 1)
	bias, _ := input{base: []int{8}}.make(t, dev, rng, -1, 1)
	r, _ := input{base: []int{1, 8}}.make(t, dev, rng, -1, 1)
	launches := func(f func() (*Tensor, error)) int64 {
		var n int64
		withLibrary(t, dev, hostLibrary, func() {
			before := dev.Stats().KernelLaunches
			y, err := f()
			require.NoError(t, err)
			n = dev.Stats().KernelLaunches - before
			require.NoError(t, y.Close())
		})
		return n
	}
	fused := launches(func() (*Tensor, error) { return LinearAdd(x, w, bias, r) })
	separate := launches(func() (*Tensor, error) {
		y, err := Linear(x, w, bias)
		if err != nil {
			return nil, err
		}
		defer y.Close()
		return Add(r, y)
	})
	// The host library is no launch, and it adds the bias and reads r in
	// place (MatMul.Bias and MatMul.D): LinearAdd launches nothing, Linear
	// then Add launches the Add.
	assert.Equal(t, int64(0), fused, "LinearAdd on the library")
	assert.Equal(t, fused+1, separate)
}

func TestLinearAddErrors(t *testing.T) {
	dev := cpuDevice(t)
	ctx := context.Background()
	t.Cleanup(func() { require.NoError(t, Synchronize(ctx, dev)) }) // after the closes: no free left waiting
	mk := func(d DType, shape ...int) *Tensor { return zerosFor(t, dev, d, shape...) }
	closed := mk(Float32, 2, 4)
	require.NoError(t, closed.Close())
	tests := []struct {
		name       string
		x, w, b, r *Tensor
		cat        errors.Category
		msg        string
	}{
		{"r of another shape", mk(Float32, 2, 3), mk(Float32, 3, 4), nil, mk(Float32, 2, 5), errors.InvalidArgument, "r of shape [2 5]"},
		{"r of another rank", mk(Float32, 2, 3), mk(Float32, 3, 4), nil, mk(Float32, 1, 2, 4), errors.InvalidArgument, "r of shape [1 2 4]"},
		{"r of another dtype", mk(Float32, 2, 3), mk(Float32, 3, 4), nil, mk(BFloat16, 2, 4), errors.InvalidArgument, "bfloat16"},
		{"nil r", mk(Float32, 2, 3), mk(Float32, 3, 4), nil, nil, errors.InvalidArgument, "nil tensor"},
		{"closed r", mk(Float32, 2, 3), mk(Float32, 3, 4), nil, closed, errors.Closed, "closed"},
		{"w of rank 3", mk(Float32, 2, 3), mk(Float32, 1, 3, 4), nil, mk(Float32, 2, 4), errors.InvalidArgument, "w of shape [in out]"},
		{"scalar x", mk(Float32), mk(Float32, 3, 4), nil, mk(Float32, 4), errors.InvalidArgument, "x of shape [..., in]"},
		{"inner dimensions", mk(Float32, 2, 3), mk(Float32, 5, 4), nil, mk(Float32, 2, 4), errors.InvalidArgument, "inner dimensions 3 and 5 differ"},
		{"bias shape", mk(Float32, 2, 3), mk(Float32, 3, 4), mk(Float32, 3), mk(Float32, 2, 4), errors.InvalidArgument, "bias of shape [3]; want [4]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			y, err := LinearAdd(tc.x, tc.w, tc.b, tc.r)
			require.Error(t, err)
			require.Nil(t, y)
			require.Contains(t, err.Error(), tc.msg)
			require.True(t, errors.Is(err, tc.cat), "%v", err)
		})
	}
}
