package tensor

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/errors"
	"github.com/stretchr/testify/require"
)

// matmulHost is the float64 product of a [.. m k] and b [.. k n] (rank 2
// or 3, a batch of 1 or a rank 2 operand broadcasting), plus bias[j].
func matmulHost(a, b hostND, bias []float64) hostND {
	at, bt := a, b
	batch := 1
	if len(a.shape) == 3 {
		batch = max(batch, a.shape[0])
	}
	if len(b.shape) == 3 {
		batch = max(batch, b.shape[0])
	}
	if len(a.shape) == 2 {
		at = hostND{shape: append([]int{1}, a.shape...), data: a.data}
	}
	if len(b.shape) == 2 {
		bt = hostND{shape: append([]int{1}, b.shape...), data: b.data}
	}
	m, k, n := at.shape[1], at.shape[2], bt.shape[2]
	shape := []int{batch, m, n}
	out := build(shape, func(idx []int) float64 {
		ab, bb := idx[0], idx[0]
		if at.shape[0] == 1 {
			ab = 0
		}
		if bt.shape[0] == 1 {
			bb = 0
		}
		s := 0.0
		for q := range k {
			s += at.data[index(at.shape, []int{ab, idx[1], q})] * bt.data[index(bt.shape, []int{bb, q, idx[2]})]
		}
		if bias != nil {
			s += bias[idx[2]]
		}
		return s
	})
	if len(a.shape) == 2 && len(b.shape) == 2 {
		out.shape = []int{m, n}
	}
	return out
}

// matmulCases cover odd sizes across tile edges, transposed and sliced
// operands, batches and broadcasting, and empty dimensions.
var matmulCases = []struct {
	name string
	a, b input
	bias bool
}{
	{name: "1x1x1", a: input{base: []int{1, 1}}, b: input{base: []int{1, 1}}},
	{name: "odd 37x19 · 19x70", a: input{base: []int{37, 19}}, b: input{base: []int{19, 70}}},
	{name: "across tiles 130x33 · 33x65 bias", a: input{base: []int{130, 33}}, b: input{base: []int{33, 65}}, bias: true},
	{name: "decode row 1x50 · 50x129 bias", a: input{base: []int{1, 50}}, b: input{base: []int{50, 129}}, bias: true},
	{name: "b transposed (Linear weight)", a: input{base: []int{9, 40}},
		b: input{base: []int{67, 40}, views: []func(*Tensor) (*Tensor, error){transpose(0, 1)},
			host: func(h hostND) hostND { return h.permute(1, 0) }}},
	{name: "a transposed and sliced", a: input{base: []int{30, 12}, views: []func(*Tensor) (*Tensor, error){transpose(0, 1), slice(1, 3, 28)},
		host: func(h hostND) hostND { return h.permute(1, 0).slice(1, 3, 28) }}, b: input{base: []int{25, 17}}},
	{name: "batched 3x5x7 · 3x7x4", a: input{base: []int{3, 5, 7}}, b: input{base: []int{3, 7, 4}}},
	{name: "batch broadcast 4x6x9 · 9x5", a: input{base: []int{4, 6, 9}}, b: input{base: []int{9, 5}}, bias: true},
	{name: "batch of 1 broadcast 1x3x8 · 2x8x3", a: input{base: []int{1, 3, 8}}, b: input{base: []int{2, 8, 3}}},
	{name: "permuted batch (attention shape)", a: input{base: []int{6, 2, 16}, views: []func(*Tensor) (*Tensor, error){permute(1, 0, 2)},
		host: func(h hostND) hostND { return h.permute(1, 0, 2) }},
		b: input{base: []int{6, 2, 16}, views: []func(*Tensor) (*Tensor, error){permute(1, 2, 0)},
			host: func(h hostND) hostND { return h.permute(1, 2, 0) }}},
	{name: "split k: decode row 1x300 · 300x70 bias", a: input{base: []int{1, 300}}, b: input{base: []int{300, 70}}, bias: true},
	{name: "split k: batched 2x3x520 · 520x5", a: input{base: []int{2, 3, 520}}, b: input{base: []int{520, 5}}},
	{name: "split k: transposed weight 1x257 · (9x257)ᵀ", a: input{base: []int{1, 257}},
		b: input{base: []int{9, 257}, views: []func(*Tensor) (*Tensor, error){transpose(0, 1)},
			host: func(h hostND) hostND { return h.permute(1, 0) }}, bias: true},
	{name: "matvec batched 3x1x40 (a slice) · 3x40x70", a: input{base: []int{3, 2, 40}, views: []func(*Tensor) (*Tensor, error){slice(1, 1, 2)},
		host: func(h hostND) hostND { return h.slice(1, 1, 2) }}, b: input{base: []int{3, 40, 70}}},
	{name: "matvec batched, split k, b transposed 2x1x400 · (2x9x400)ᵀ", a: input{base: []int{2, 1, 400}},
		b: input{base: []int{2, 9, 400}, views: []func(*Tensor) (*Tensor, error){transpose(1, 2)},
			host: func(h hostND) hostND { return h.permute(0, 2, 1) }}},
	{name: "matvec of a sliced row 1x33 · 33x5", a: input{base: []int{4, 40}, views: []func(*Tensor) (*Tensor, error){slice(0, 2, 3), slice(1, 3, 36)},
		host: func(h hostND) hostND { return h.slice(0, 2, 3).slice(1, 3, 36) }}, b: input{base: []int{33, 5}}, bias: true},
	{name: "sgemm 200x70 · 70x150 bias", a: input{base: []int{200, 70}}, b: input{base: []int{70, 150}}, bias: true},
	{name: "sgemm 64x128 · 128x64", a: input{base: []int{64, 128}}, b: input{base: []int{128, 64}}},
	{name: "empty inner dimension with bias", a: input{base: []int{3, 0}}, b: input{base: []int{0, 5}}, bias: true},
	{name: "no rows", a: input{base: []int{0, 4}}, b: input{base: []int{4, 5}}},
}

func TestMatMul(t *testing.T) {
	forEachDevice(t, func(t *testing.T, dev *gpu.Device) {
		ctx := context.Background()
		for _, d := range computeDTypes {
			for _, tc := range matmulCases {
				t.Run(d.String()+"/"+tc.name, func(t *testing.T) {
					rng := rand.New(rand.NewPCG(7, uint64(len(tc.name))))
					a, ah := tc.a.makeAs(t, dev, d, rng, -1, 1)
					b, bh := tc.b.makeAs(t, dev, d, rng, -1, 1)
					var bias *Tensor
					var biasH []float64
					n := bh.shape[len(bh.shape)-1]
					if tc.bias {
						bh := build([]int{n}, func([]int) float64 { return roundTo(d, rng.Float64()-0.5) })
						var err error
						bias, err = FromFloat32(ctx, dev, d, bh.float32s(), n)
						require.NoError(t, err)
						defer bias.Close()
						biasH = bh.data
					}
					want := matmulHost(ah, bh, biasH)
					var got *Tensor
					var err error
					if tc.bias {
						got, err = matmul("matmul", a, b, bias)
					} else {
						got, err = MatMul(a, b)
					}
					require.NoError(t, err)
					defer got.Close()
					require.Equal(t, want.shape, got.Shape())
					require.Equal(t, d, got.DType())
					vals, err := got.ToFloat32(ctx)
					require.NoError(t, err)
					// Values in [-1, 1): a float32 sum of k products is within
					// about k·2⁻²⁴ of the float64 one (3e-5 for k = 520).
					tol := tolerance{abs: 4e-5, rel: 1e-5}.forDType(d)
					if tc.bias && d != Float32 {
						// cuBLASLt's bias epilogue (as PyTorch's addmm uses it)
						// rounds the 16-bit product before it adds the bias:
						// one more rounding, of the product's magnitude.
						tol.abs += maxAbs(matmulHost(ah, bh, nil).data) * tolerance{}.forDType(d).rel
					}
					requireClose(t, want, vals, tol, tc.name)
				})
			}
		}
	})
}

// maxAbs is the largest magnitude in v (0 for none).
func maxAbs(v []float64) float64 {
	m := 0.0
	for _, x := range v {
		m = max(m, math.Abs(x))
	}
	return m
}

// TestKSplits: the split ranges cover k exactly, are whole slices of the
// kernel, and a lone tile over a long k is split on every device.
func TestKSplits(t *testing.T) {
	forEachDevice(t, func(t *testing.T, dev *gpu.Device) {
		ds := stateOf(dev)
		for _, tc := range []struct{ tiles, k int }{{1, 1024}, {1, 3072}, {12, 768}, {36, 768}, {1000, 768}, {1, 64}, {3, 65}, {2, 300}} {
			splits, kchunk := ds.kSplits(tc.tiles, tc.k)
			require.GreaterOrEqual(t, splits*kchunk, tc.k, "%+v", tc)
			require.Less(t, (splits-1)*kchunk, tc.k, "%+v: an empty split", tc)
			if splits > 1 {
				require.Zero(t, kchunk%16, "%+v", tc)
			}
			if tc.tiles == 1 && tc.k >= 1024 {
				require.Greater(t, splits, 1, "%+v", tc)
			}
		}
	})
}

func TestUseSgemm(t *testing.T) {
	rowMajor := func(rows, cols int) matrixView {
		return matrixView{batch: 1, rows: rows, rstride: cols, cols: cols, cstride: 1}
	}
	transposed := matrixView{batch: 1, rows: 64, rstride: 1, cols: 80, cstride: 64}
	offset := rowMajor(64, 80)
	offset.offset = 80
	tests := []struct {
		name  string
		a, b  matrixView
		batch int
		want  bool
	}{
		{"prefill Linear", rowMajor(1024, 768), rowMajor(768, 2304), 1, true},
		{"few rows", rowMajor(63, 768), rowMajor(768, 2304), 1, false},
		{"batched", rowMajor(128, 64), rowMajor(64, 64), 2, false},
		{"transposed weight", rowMajor(128, 64), transposed, 1, false},
		{"a view past the start", offset, rowMajor(80, 8), 1, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, useSgemm(tc.a, tc.b, tc.batch, tc.a.rows, tc.b.cols))
		})
	}
}

func TestLinear(t *testing.T) {
	forEachDevice(t, func(t *testing.T, dev *gpu.Device) {
		ctx := context.Background()
		rng := rand.New(rand.NewPCG(3, 4))
		x, xh := input{base: []int{2, 3, 20}}.make(t, dev, rng, -1, 1)
		w, wh := input{base: []int{20, 33}}.make(t, dev, rng, -1, 1)
		bias, bh := input{base: []int{33}}.make(t, dev, rng, -1, 1)
		y, err := Linear(x, w, bias)
		require.NoError(t, err)
		defer y.Close()
		require.Equal(t, []int{2, 3, 33}, y.Shape())
		want := matmulHost(hostND{shape: []int{6, 20}, data: xh.data}, wh, bh.data)
		want.shape = []int{2, 3, 33}
		vals, err := y.ToFloat32(ctx)
		require.NoError(t, err)
		requireClose(t, want, vals, tolerance{abs: 1e-5, rel: 1e-5}, "linear")

		// A view Reshape cannot flatten is copied first.
		xt, err := x.Transpose(0, 1)
		require.NoError(t, err)
		defer xt.Close()
		yt, err := Linear(xt, w, nil)
		require.NoError(t, err)
		defer yt.Close()
		xth := xh.permute(1, 0, 2)
		want = matmulHost(hostND{shape: []int{6, 20}, data: xth.data}, wh, nil)
		want.shape = []int{3, 2, 33}
		vals, err = yt.ToFloat32(ctx)
		require.NoError(t, err)
		requireClose(t, want, vals, tolerance{abs: 1e-5, rel: 1e-5}, "linear of a transposed view")
	})
}

func TestMatMulErrors(t *testing.T) {
	dev := cpuDevice(t)
	ctx := context.Background()
	mk := func(shape ...int) *Tensor {
		x, err := Zeros(ctx, dev, Float32, shape...)
		require.NoError(t, err)
		t.Cleanup(func() { _ = x.Close() })
		return x
	}
	ids, err := Zeros(ctx, dev, Int32, 2, 2)
	require.NoError(t, err)
	defer ids.Close()
	tests := []struct {
		name string
		a, b *Tensor
		bias *Tensor
		msg  string
	}{
		{"inner dimensions", mk(2, 3), mk(4, 5), nil, "inner dimensions 3 and 4 differ"},
		{"rank 1", mk(3), mk(3, 2), nil, "rank 2 or 3"},
		{"rank 4", mk(1, 2, 3, 4), mk(4, 2), nil, "rank 2 or 3"},
		{"batches", mk(2, 3, 4), mk(3, 4, 5), nil, "batches 2 and 3"},
		{"bias shape", mk(2, 3), mk(3, 4), mk(3), "bias of shape [3]; want [4]"},
		{"dtype", ids, mk(2, 2), nil, "float32"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := matmul("matmul", tc.a, tc.b, tc.bias)
			require.Error(t, err)
			require.Contains(t, err.Error(), tc.msg)
			if tc.name != "dtype" {
				require.True(t, errors.Is(err, errors.InvalidArgument), "%v", err)
			}
		})
	}
}
