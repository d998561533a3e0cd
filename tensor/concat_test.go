package tensor

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/errors"
	"github.com/stretchr/testify/require"
)

// concatHost joins hs along axis ax.
func concatHost(ax int, hs ...hostND) hostND {
	shape := append([]int{}, hs[0].shape...)
	shape[ax] = 0
	for _, h := range hs {
		shape[ax] += h.shape[ax]
	}
	return build(shape, func(idx []int) float64 {
		i := idx[ax]
		for _, h := range hs {
			if i < h.shape[ax] {
				src := append([]int{}, idx...)
				src[ax] = i
				return h.data[index(h.shape, src)]
			}
			i -= h.shape[ax]
		}
		panic("out of range")
	})
}

func TestConcat(t *testing.T) {
	forEachDevice(t, func(t *testing.T, dev *gpu.Device) {
		ctx := context.Background()
		rng := rand.New(rand.NewPCG(21, 22))
		tests := []struct {
			name string
			axis int
			ins  []input
		}{
			{name: "vectors", axis: 0, ins: []input{{base: []int{3}}, {base: []int{5}}}},
			{name: "odd rows, odd offsets", axis: 1, ins: []input{{base: []int{3, 3}}, {base: []int{3, 1}},
				{base: []int{4, 5}, views: []func(*Tensor) (*Tensor, error){slice(0, 1, 4), slice(1, 1, 4)}, host: func(h hostND) hostND { return h.slice(0, 1, 4).slice(1, 1, 4) }}}},
			{name: "last axis, three parts, one empty", axis: -1, ins: []input{{base: []int{2, 4}}, {base: []int{2, 0}}, {base: []int{2, 7}}}},
			{name: "middle axis of views", axis: 1, ins: []input{
				{base: []int{3, 2, 4}, views: []func(*Tensor) (*Tensor, error){permute(2, 1, 0)}, host: func(h hostND) hostND { return h.permute(2, 1, 0) }},
				{base: []int{4, 5, 3}, views: []func(*Tensor) (*Tensor, error){slice(1, 1, 4)}, host: func(h hostND) hostND { return h.slice(1, 1, 4) }},
			}},
			{name: "broadcast part", axis: 0, ins: []input{{base: []int{1, 3}, views: []func(*Tensor) (*Tensor, error){expand(4, 3)},
				host: func(h hostND) hostND { return h.expand(4, 3) }}, {base: []int{2, 3}}}},
		}
		for _, d := range computeDTypes {
			for _, tc := range tests {
				t.Run(d.String()+"/"+tc.name, func(t *testing.T) {
					var ts []*Tensor
					var hs []hostND
					for _, in := range tc.ins {
						x, h := in.makeAs(t, dev, d, rng, -1, 1)
						ts, hs = append(ts, x), append(hs, h)
					}
					ax := tc.axis
					if ax < 0 {
						ax += len(hs[0].shape)
					}
					want := concatHost(ax, hs...)
					got, err := Concat(tc.axis, ts...)
					require.NoError(t, err)
					defer got.Close()
					require.Equal(t, want.shape, got.Shape())
					vals, err := got.ToFloat32(ctx)
					require.NoError(t, err)
					require.Equal(t, d, got.DType())
					requireClose(t, want, vals, tolerance{}, tc.name) // a copy: exact
				})
			}
		}
	})
}

func TestConcatErrors(t *testing.T) {
	dev := cpuDevice(t)
	mk := func(d DType, shape ...int) *Tensor { return zerosFor(t, dev, d, shape...) }
	tests := []struct {
		name string
		axis int
		ts   []*Tensor
		msg  string
		kind errors.Category
	}{
		{"none", 0, nil, "no tensors", errors.InvalidArgument},
		{"ranks", 0, []*Tensor{mk(Float32, 2, 3), mk(Float32, 6)}, "ranks differ", errors.InvalidArgument},
		{"sizes", 0, []*Tensor{mk(Float32, 2, 3), mk(Float32, 2, 4)}, "dimension 1 differs", errors.InvalidArgument},
		{"axis", 2, []*Tensor{mk(Float32, 2, 3)}, "", errors.InvalidArgument},
		{"dtype", 0, []*Tensor{mk(Float32, 2), mk(Int32, 2)}, "float32", errors.NotSupported},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Concat(tc.axis, tc.ts...)
			require.Error(t, err)
			require.Contains(t, err.Error(), tc.msg)
			require.True(t, errors.Is(err, tc.kind), "%v", err)
		})
	}
}
