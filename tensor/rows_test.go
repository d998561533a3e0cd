package tensor

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/errors"
	"github.com/stretchr/testify/require"
)

// reduceHost reduces h along axis ax with f over each row's values.
func reduceHost(h hostND, ax int, f func(row []float64) float64) hostND {
	var outer []int
	for i, s := range h.shape {
		if i != ax {
			outer = append(outer, s)
		}
	}
	return build(outer, func(idx []int) float64 {
		row := make([]float64, h.shape[ax])
		for c := range row {
			src := append(append(append([]int{}, idx[:ax]...), c), idx[ax:]...)
			row[c] = h.data[index(h.shape, src)]
		}
		return f(row)
	})
}

// rowsHost applies f to every row of h along its last dimension.
func rowsHost(h hostND, f func(row []float64) []float64) hostND {
	cols := h.shape[len(h.shape)-1]
	out := hostND{shape: h.shape, data: make([]float64, 0, len(h.data))}
	for r := 0; r*cols < len(h.data); r++ {
		out.data = append(out.data, f(h.data[r*cols:(r+1)*cols])...)
	}
	return out
}

func sumOf(row []float64) float64 {
	s := 0.0
	for _, v := range row {
		s += v
	}
	return s
}
func absSum(row []float64) float64 {
	s := 0.0
	for _, v := range row {
		s += math.Abs(v)
	}
	return s
}
func maxOf(row []float64) float64 {
	m := math.Inf(-1)
	for _, v := range row {
		m = math.Max(m, v)
	}
	return m
}
func argmaxOf(row []float64) float64 {
	best := 0
	for i, v := range row {
		if v > row[best] {
			best = i
		}
	}
	return float64(best)
}

// rowInputs are reduced along every axis, and softmaxed and normalised
// along the last.
var rowInputs = []input{
	{name: "vector 37", base: []int{37}},
	{name: "matrix 5x7", base: []int{5, 7}},
	{name: "transposed 7x5", base: []int{5, 7}, views: []func(*Tensor) (*Tensor, error){transpose(0, 1)},
		host: func(h hostND) hostND { return h.permute(1, 0) }},
	{name: "permuted rank 3", base: []int{2, 3, 4}, views: []func(*Tensor) (*Tensor, error){permute(2, 0, 1)},
		host: func(h hostND) hostND { return h.permute(2, 0, 1) }},
	{name: "sliced", base: []int{6, 9}, views: []func(*Tensor) (*Tensor, error){slice(1, 2, 7), slice(0, 1, 5)},
		host: func(h hostND) hostND { return h.slice(1, 2, 7).slice(0, 1, 5) }},
	{name: "expanded", base: []int{3, 1}, views: []func(*Tensor) (*Tensor, error){expand(2, 3, 4)},
		host: func(h hostND) hostND { return h.expand(2, 3, 4) }},
	{name: "rank 6", base: []int{2, 1, 3, 1, 2, 3}},
	{name: "rank 6 no dimensions merge", base: []int{2, 3, 2, 3, 2, 3}, views: []func(*Tensor) (*Tensor, error){permute(1, 0, 3, 2, 5, 4)},
		host: func(h hostND) hostND { return h.permute(1, 0, 3, 2, 5, 4) }},
	{name: "long rows 3x1001", base: []int{3, 1001}},
	{name: "long transposed rows", base: []int{1001, 3}, views: []func(*Tensor) (*Tensor, error){transpose(0, 1)},
		host: func(h hostND) hostND { return h.permute(1, 0) }},
	{name: "many rows 2000x3", base: []int{2000, 3}},
	{name: "even rows 6x130", base: []int{6, 130}}, // 16-bit rows start on a word
	{name: "even transposed rows 6x130", base: []int{130, 6}, views: []func(*Tensor) (*Tensor, error){transpose(0, 1)},
		host: func(h hostND) hostND { return h.permute(1, 0) }},
	{name: "vector rows 4x64", base: []int{4, 64}}, // 16-byte vectors: the GPUs' reduceRowsVec
	{name: "zero rows", base: []int{0, 4}},
}

// Float32 tolerances of a reduction: each addition rounds, so the error of
// a row's sum is bounded by a multiple of ε·Σ|x|; the GPUs' exp is a few
// ulp.
func TestReductions(t *testing.T) {
	forEachDevice(t, func(t *testing.T, dev *gpu.Device) {
		rng := rand.New(rand.NewPCG(3, 3))
		for _, d := range computeDTypes {
			out := tolerance{}.forDType(d) // the result's rounding
			for _, in := range rowInputs {
				for ax := range len(in.base) {
					t.Run(d.String()+"/"+in.name, func(t *testing.T) {
						x, h := in.makeAs(t, dev, d, rng, -4, 4)
						s, err := Sum(x, ax)
						require.NoError(t, err)
						want, scale := reduceHost(h, ax, sumOf), reduceHost(h, ax, absSum)
						got := read(t, s)
						for i := range want.data {
							require.InDelta(t, want.data[i], float64(got[i]), 1e-6*scale.data[i]+1e-6+out.rel*math.Abs(want.data[i]), "sum along %d, element %d", ax, i)
						}
						if h.shape[ax] == 0 && len(want.data) > 0 {
							// Empty rows (TestReductionEdges checks the mean).
							_, err := Max(x, ax)
							require.ErrorIs(t, err, errors.InvalidArgument)
							return
						}
						m, err := Mean(x, -len(h.shape)+ax) // the same axis, counted from the end
						require.NoError(t, err)
						got = read(t, m)
						for i := range want.data {
							n := float64(h.shape[ax])
							require.InDelta(t, want.data[i]/n, float64(got[i]), (1e-6*scale.data[i]+1e-6)/n+out.abs+out.rel*math.Abs(want.data[i]/n), "mean along %d, element %d", ax, i)
						}
						mx, err := Max(x, ax)
						require.NoError(t, err)
						requireClose(t, reduceHost(h, ax, maxOf), read(t, mx), tolerance{}, "max")
						am, err := ArgMax(x, ax)
						require.NoError(t, err)
						require.Equal(t, Int32, am.DType())
						idx, err := ToHost[int32](context.Background(), am)
						require.NoError(t, err)
						_ = am.Close()
						wantIdx := reduceHost(h, ax, argmaxOf)
						for i := range idx {
							require.Equal(t, wantIdx.data[i], float64(idx[i]), "argmax along %d, element %d", ax, i)
						}
					})
				}
			}
		}
	})
}

func TestReductionEdges(t *testing.T) {
	forEachDevice(t, func(t *testing.T, dev *gpu.Device) {
		for _, d := range computeDTypes {
			t.Run(d.String(), func(t *testing.T) { checkReductionEdges(t, dev, d) })
		}
	})
}

func checkReductionEdges(t *testing.T, dev *gpu.Device, d DType) {
	ctx := context.Background()
	// Ties: argmax is the first of the equal maxima.
	x, err := FromFloat32(ctx, dev, d, []float32{1, 3, 3, 2, -1, -1, -1, -5}, 2, 4)
	require.NoError(t, err)
	defer x.Close()
	am, err := ArgMax(x, 1)
	require.NoError(t, err)
	idx, err := ToHost[int32](ctx, am)
	require.NoError(t, err)
	_ = am.Close()
	require.Equal(t, []int32{1, 0}, idx)
	// An empty dimension: the sum is 0, the mean NaN, max and argmax errors.
	e, err := Zeros(ctx, dev, d, 3, 0)
	require.NoError(t, err)
	defer e.Close()
	s, err := Sum(e, 1)
	require.NoError(t, err)
	require.Equal(t, []float32{0, 0, 0}, read(t, s))
	m, err := Mean(e, 1)
	require.NoError(t, err)
	for _, v := range read(t, m) {
		require.True(t, math.IsNaN(float64(v)))
	}
	_, err = Max(e, 1)
	require.ErrorIs(t, err, errors.InvalidArgument)
	_, err = ArgMax(e, -1)
	require.ErrorIs(t, err, errors.InvalidArgument)
	// Along the other axis the rows are empty: shape [0].
	s, err = Sum(e, 0)
	require.NoError(t, err)
	require.Equal(t, []int{0}, s.Shape())
	require.Empty(t, read(t, s))
}

func softmaxRow(row []float64) []float64 {
	m := maxOf(row)
	out := make([]float64, len(row))
	s := 0.0
	for i, v := range row {
		out[i] = math.Exp(v - m)
		s += out[i]
	}
	for i := range out {
		out[i] /= s
	}
	return out
}

// TestArgMaxLongRows covers ArgMax's two passes (a few long rows cut into
// chunks, as a decode step's logits are): the maximum in the first, a
// middle and the last chunk, ties across chunks (the first wins), a
// transposed view, and rows enough for one pass beside them.
func TestArgMaxLongRows(t *testing.T) {
	forEachDevice(t, func(t *testing.T, dev *gpu.Device) {
		ctx := context.Background()
		for _, d := range computeDTypes {
			for _, tc := range []struct {
				rows, cols int
				at         []int // per row, the columns holding the maximum (ties)
			}{
				{1, 50257, []int{50256}},
				{1, 50257, []int{0}},
				{1, 1000, []int{999, 130}},
				{2, 4099, []int{4000, 64, 4098}},
				{3, 777, []int{1, 776}},
				{40, 300, []int{299}},
			} {
				t.Run(fmt.Sprintf("%s/%dx%d", d, tc.rows, tc.cols), func(t *testing.T) {
					h := make([]float32, tc.rows*tc.cols)
					want := make([]int32, tc.rows)
					for r := range tc.rows {
						for c := range tc.cols {
							h[r*tc.cols+c] = float32((r*7+c*13)%97) / 100
						}
						first := tc.cols
						for i, c := range tc.at {
							c = (c + r*3) % tc.cols
							h[r*tc.cols+c] = 2
							if i == 0 || c < first {
								first = c
							}
						}
						want[r] = int32(first)
					}
					x, err := FromFloat32(ctx, dev, d, h, tc.rows, tc.cols)
					require.NoError(t, err)
					defer x.Close()
					for _, view := range []string{"rows", "transposed"} {
						v, axis := x, 1
						if view == "transposed" {
							v, err = x.Transpose(0, 1)
							require.NoError(t, err)
							defer v.Close()
							axis = 0
						}
						am, err := ArgMax(v, axis)
						require.NoError(t, err)
						idx, err := ToHost[int32](ctx, am)
						require.NoError(t, err)
						require.NoError(t, am.Close())
						require.Equal(t, want, idx, view)
					}
				})
			}
		}
	})
}

func TestSoftmax(t *testing.T) {
	forEachDevice(t, func(t *testing.T, dev *gpu.Device) {
		rng := rand.New(rand.NewPCG(4, 4))
		for _, d := range computeDTypes {
			for _, in := range rowInputs {
				t.Run(d.String()+"/"+in.name, func(t *testing.T) {
					x, h := in.makeAs(t, dev, d, rng, -20, 20)
					y, err := Softmax(x)
					require.NoError(t, err)
					require.Equal(t, x.Shape(), y.Shape())
					require.Equal(t, d, y.DType())
					requireClose(t, rowsHost(h, softmaxRow), read(t, y), tolerance{1e-7, 1e-5}.forDType(d), "softmax")
				})
			}
		}
	})
}

func layerNormRow(gamma, beta []float64, eps float64) func(row []float64) []float64 {
	return func(row []float64) []float64 {
		n := float64(len(row))
		mean := sumOf(row) / n
		v := 0.0
		for _, x := range row {
			v += (x - mean) * (x - mean)
		}
		inv := 1 / math.Sqrt(v/n+eps)
		out := make([]float64, len(row))
		for i, x := range row {
			out[i] = (x - mean) * inv
			if gamma != nil {
				out[i] *= gamma[i]
			}
			if beta != nil {
				out[i] += beta[i]
			}
		}
		return out
	}
}

func rmsNormRow(gamma []float64, eps float64) func(row []float64) []float64 {
	return func(row []float64) []float64 {
		q := 0.0
		for _, x := range row {
			q += x * x
		}
		inv := 1 / math.Sqrt(q/float64(len(row))+eps)
		out := make([]float64, len(row))
		for i, x := range row {
			out[i] = x * inv
			if gamma != nil {
				out[i] *= gamma[i]
			}
		}
		return out
	}
}

// Norms: outputs are O(1); rsqrt on GPUs is a few ulp, and the row sums
// round as in the reductions.
func TestNorms(t *testing.T) {
	forEachDevice(t, func(t *testing.T, dev *gpu.Device) {
		rng := rand.New(rand.NewPCG(5, 5))
		const eps = 1e-5
		for _, d := range computeDTypes {
			tol := tolerance{2e-5, 2e-5}.forDType(d)
			for _, in := range rowInputs {
				for _, affine := range []bool{false, true} {
					t.Run(d.String()+"/"+in.name, func(t *testing.T) {
						x, h := in.makeAs(t, dev, d, rng, -3, 5)
						cols := h.shape[len(h.shape)-1]
						var gamma, beta *Tensor
						var hg, hb []float64
						if affine {
							// gamma is a strided view (a column of a matrix), beta
							// starts at an offset: the norms pack them first.
							g, gh := input{base: []int{cols, 2}, views: []func(*Tensor) (*Tensor, error){slice(1, 1, 2), reshape(-1)}}.makeLoose(t, dev, d, rng)
							gamma, hg = g, gh
							b, bh := input{base: []int{cols + 1}, views: []func(*Tensor) (*Tensor, error){slice(0, 1, cols+1)}}.makeLoose(t, dev, d, rng)
							beta, hb = b, bh
						}
						ln, err := LayerNorm(x, gamma, beta, eps)
						require.NoError(t, err)
						requireClose(t, rowsHost(h, layerNormRow(hg, hb, eps)), read(t, ln), tol, "layer norm")
						rn, err := RMSNorm(x, gamma, eps)
						require.NoError(t, err)
						requireClose(t, rowsHost(h, rmsNormRow(hg, eps)), read(t, rn), tol, "rms norm")
					})
				}
			}
		}
	})
}

// makeLoose is make for a parameter vector: the views may not mirror on the
// host, whose values are read back from the device view instead (the
// readers are tested elsewhere).
func (in input) makeLoose(t *testing.T, dev *gpu.Device, d DType, rng *rand.Rand) (*Tensor, []float64) {
	t.Helper()
	h := build(in.base, func([]int) float64 { return roundTo(d, 0.5+rng.Float64()) })
	x, err := FromFloat32(context.Background(), dev, d, h.float32s(), in.base...)
	require.NoError(t, err)
	t.Cleanup(func() { _ = x.Close() })
	for _, v := range in.views {
		y, err := v(x)
		require.NoError(t, err)
		t.Cleanup(func() { _ = y.Close() })
		x = y
	}
	got, err := x.Peek(context.Background())
	require.NoError(t, err)
	out := make([]float64, len(got))
	for i, v := range got {
		out[i] = float64(v)
	}
	return x, out
}
