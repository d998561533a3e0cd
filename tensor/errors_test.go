package tensor

import (
	"context"
	"testing"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/errors"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestShapeErrors: every shape error is an InvalidArgument that names the
// shapes involved.
func TestShapeErrors(t *testing.T) {
	dev := cpuDevice(t)
	ctx := context.Background()
	mk := func(shape ...int) *Tensor {
		x, err := Zeros(ctx, dev, Float32, shape...)
		require.NoError(t, err)
		t.Cleanup(func() { _ = x.Close() })
		return x
	}
	x23, x43, x3, x22 := mk(2, 3), mk(4, 3), mk(3), mk(2, 2)
	xt, err := x23.Transpose(0, 1)
	require.NoError(t, err)
	defer xt.Close()
	tests := []struct {
		name string
		do   func() error
		msg  string // the error's start
	}{
		{"reshape count", func() error { _, err := x23.Reshape(4, 2); return err }, "tensor: reshape [2 3] to [4 2]: 6 elements vs 8"},
		{"reshape infer", func() error { _, err := x23.Reshape(4, -1); return err }, "tensor: reshape [2 3] to [4 -1]: 6 elements do not divide into 4"},
		{"reshape two -1", func() error { _, err := x23.Reshape(-1, -1); return err }, "tensor: reshape [2 3] to [-1 -1]: sizes must be"},
		{"reshape no view", func() error { _, err := xt.Reshape(6); return err }, "tensor: reshape [3 2] to [6]: no strides make a view of strides [1 3] that shape"},
		{"add", func() error { _, err := Add(x23, x43); return err }, "tensor: add [2 3] and [4 3]: sizes 2 and 4 of dimension 0 do not broadcast"},
		{"mul", func() error { _, err := Mul(x22, x3); return err }, "tensor: mul [2 2] and [3]: sizes 2 and 3 of dimension 1"},
		{"broadcast shapes", func() error { _, err := BroadcastShapes([]int{5}, []int{2, 4}); return err }, "tensor: broadcast [5] and [2 4]"},
		{"expand", func() error { _, err := x23.Expand(3, 3); return err }, "tensor: expand [2 3] to [3 3]"},
		{"expand fewer dims", func() error { _, err := x23.Expand(3); return err }, "tensor: expand [2 3] to [3]"},
		{"slice", func() error { _, err := x23.Slice(1, 2, 4); return err }, "tensor: slice: [2:4] of dimension 1 of shape [2 3] (size 3)"},
		{"slice dim", func() error { _, err := x23.Slice(2, 0, 1); return err }, "tensor: slice: dimension 2 out of range for shape [2 3]"},
		{"transpose dim", func() error { _, err := x23.Transpose(0, -3); return err }, "tensor: transpose: dimension -3 out of range for shape [2 3]"},
		{"permute", func() error { _, err := x23.Permute(0, 0); return err }, "tensor: permute [2 3]: [0 0] is not a permutation of 0..1"},
		{"permute rank", func() error { _, err := x23.Permute(0); return err }, "tensor: permute [2 3]: permutation [0] of 1 dimensions for rank 2"},
		{"sum axis", func() error { _, err := Sum(x23, 2); return err }, "tensor: sum: dimension 2 out of range for shape [2 3]"},
		{"layer norm gamma", func() error { _, err := LayerNorm(x23, x22, nil, 1e-5); return err }, "tensor: layer norm [2 3]: gamma of shape [2 2]; want [3]"},
		{"rank 7", func() error { _, err := Zeros(ctx, dev, Float32, 1, 1, 1, 1, 1, 1, 1); return err }, "tensor: zeros: shape [1 1 1 1 1 1 1] has rank 7"},
		{"negative size", func() error { _, err := Empty(dev, Float32, 2, -1); return err }, "tensor: empty: shape [2 -1] has a negative size"},
		{"data for shape", func() error { _, err := FromSlice(ctx, dev, []float32{1, 2, 3}, 2, 2); return err }, "tensor: from slice: 3 values for shape [2 2], which holds 4"},
		{"bytes for shape", func() error { _, err := FromBytes(ctx, dev, Float16, make([]byte, 3), 2); return err }, "tensor: from bytes: 3 bytes for float16 [2], which takes 4"},
		{"softmax scalar", func() error {
			s, err := x3.Slice(0, 0, 1)
			require.NoError(t, err)
			defer s.Close()
			r, err := s.Reshape()
			require.NoError(t, err)
			defer r.Close()
			_, err = Softmax(r)
			return err
		}, "tensor: softmax []: a scalar has no last dimension"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.do()
			require.Error(t, err)
			assert.ErrorIs(t, err, errors.InvalidArgument)
			assert.Contains(t, err.Error(), tc.msg)
		})
	}
}

func TestOtherErrors(t *testing.T) {
	dev := cpuDevice(t)
	ctx := context.Background()
	i8, err := FromFloat32(ctx, dev, Int8, []float32{1, 2})
	require.NoError(t, err)
	defer i8.Close()
	_, err = Add(i8, i8)
	require.ErrorIs(t, err, errors.NotSupported, "int8 arithmetic")
	assert.Contains(t, err.Error(), "Cast to Float32, Float16 or BFloat16 first")
	h, err := FromFloat32(ctx, dev, Float16, []float32{1, 2})
	require.NoError(t, err)
	defer h.Close()
	b, err := FromFloat32(ctx, dev, BFloat16, []float32{1, 2})
	require.NoError(t, err)
	defer b.Close()
	_, err = Mul(h, b)
	require.ErrorIs(t, err, errors.InvalidArgument, "operands of two dtypes")
	assert.Contains(t, err.Error(), "float16 and bfloat16 tensors")
	f, err := FromFloat32(ctx, dev, Float32, []float32{1, 2, 3, 4}, 2, 2)
	require.NoError(t, err)
	defer f.Close()
	b22, err := b.Expand(2, 2)
	require.NoError(t, err)
	defer b22.Close()
	_, err = MatMul(f, b22)
	require.ErrorIs(t, err, errors.InvalidArgument, "a product of two dtypes")
	assert.Contains(t, err.Error(), "float32 and bfloat16 tensors")
	cache, err := Zeros(ctx, dev, BFloat16, 1, 4, 2)
	require.NoError(t, err)
	defer cache.Close()
	f3, err := f.Reshape(2, 1, 2)
	require.NoError(t, err)
	defer f3.Close()
	require.ErrorIs(t, AppendKV(cache, f3, 0), errors.InvalidArgument, "float32 keys into a bfloat16 cache")
	_, err = Attention(f3, cache, cache, 0, 1)
	require.ErrorIs(t, err, errors.InvalidArgument, "float32 queries over a bfloat16 cache")
	_, err = LayerNorm(f, b, nil, 1e-5)
	require.ErrorIs(t, err, errors.InvalidArgument, "a bfloat16 gamma for float32 x")

	x, err := FromSlice(ctx, dev, []float32{1})
	require.NoError(t, err)
	require.NoError(t, x.Close())
	_, err = Exp(x)
	require.ErrorIs(t, err, errors.Closed)
	_, err = x.Transpose(0, 0)
	require.ErrorIs(t, err, errors.Closed)

	_, err = Empty(dev, DType(99), 2)
	require.ErrorIs(t, err, errors.InvalidArgument)
	_, err = Zeros(ctx, nil, Float32, 2)
	require.ErrorIs(t, err, errors.InvalidArgument)
	require.ErrorIs(t, Synchronize(ctx, nil), errors.InvalidArgument)
}

// TestNilTensor: every method and function given a nil tensor returns an
// error or a zero value; nothing panics.
func TestNilTensor(t *testing.T) {
	var x *Tensor
	ctx := context.Background()
	dev := cpuDevice(t)
	assert.NoError(t, x.Close())
	assert.Nil(t, x.Shape())
	assert.Nil(t, x.Strides())
	assert.Nil(t, x.Device())
	assert.Nil(t, x.Buffer())
	assert.Zero(t, x.Len())
	assert.Zero(t, x.Rank())
	assert.Zero(t, x.Offset())
	assert.False(t, x.IsContiguous())
	assert.Equal(t, "tensor(<nil>)", x.String())
	assert.Equal(t, gpu.TransferCounts{}, x.Transfers())
	x.ResetTransfers()
	calls := map[string]func() error{
		"Dim":        func() error { _, err := x.Dim(0); return err },
		"View":       func() error { _, err := x.View(); return err },
		"Slice":      func() error { _, err := x.Slice(0, 0, 0); return err },
		"Reshape":    func() error { _, err := x.Reshape(1); return err },
		"Transpose":  func() error { _, err := x.Transpose(0, 1); return err },
		"Permute":    func() error { _, err := x.Permute(); return err },
		"Expand":     func() error { _, err := x.Expand(1); return err },
		"Contiguous": func() error { _, err := x.Contiguous(); return err },
		"Bytes":      func() error { _, err := x.Bytes(ctx); return err },
		"ToFloat32":  func() error { _, err := x.ToFloat32(ctx); return err },
		"Peek":       func() error { _, err := x.Peek(ctx); return err },
		"ToHost":     func() error { _, err := ToHost[float32](ctx, x); return err },
		"CopyTo":     func() error { _, err := x.CopyTo(ctx, dev); return err },
		"Cast":       func() error { _, err := Cast(x, Float16); return err },
		"Add":        func() error { _, err := Add(x, x); return err },
		"Scale":      func() error { _, err := Scale(x, 2); return err },
		"Sum":        func() error { _, err := Sum(x, 0); return err },
		"ArgMax":     func() error { _, err := ArgMax(x, 0); return err },
		"Softmax":    func() error { _, err := Softmax(x); return err },
		"LayerNorm":  func() error { _, err := LayerNorm(x, nil, nil, 1e-5); return err },
		"RMSNorm":    func() error { _, err := RMSNorm(x, nil, 1e-5); return err },
	}
	for name, call := range calls {
		assert.ErrorIs(t, call(), errors.InvalidArgument, name)
	}
}

func TestContexts(t *testing.T) {
	dev := cpuDevice(t)
	done, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := FromSlice(done, dev, []float32{1})
	require.ErrorIs(t, err, context.Canceled)
	_, err = FromFloat32(nil, dev, Float16, []float32{1})
	require.ErrorIs(t, err, errors.InvalidArgument)
	_, err = Zeros(done, dev, Float32, 2)
	require.ErrorIs(t, err, context.Canceled)
	x, err := FromSlice(context.Background(), dev, []float32{1})
	require.NoError(t, err)
	defer x.Close()
	_, err = x.ToFloat32(nil)
	require.ErrorIs(t, err, errors.InvalidArgument)
	_, err = x.ToFloat32(done)
	require.ErrorIs(t, err, context.Canceled)
}
