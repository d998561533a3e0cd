package tensor

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/anygpu/gpu"
	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu/tensor/internal/ops"
)

// leanInputs are rows the lean norm takes (contiguous rows of whole words
// at one stride, at most ops.LeanWords·ops.LeanGroup words) and, at the
// edges, rows it leaves to normRows; lean16 and lean32 say which, for
// 16-bit dtypes and for float32 (whose every element is a word).
var leanInputs = []struct {
	in             input
	lean16, lean32 bool
}{
	{input{name: "one row of 768", base: []int{1, 768}}, true, true},
	{input{name: "vector 2", base: []int{2}}, true, true},
	{input{name: "3 rows of 6", base: []int{3, 6}}, true, true},
	{input{name: "odd rows 5x38", base: []int{5, 38}}, true, true},
	{input{name: "1 row of 2048 (groups of 256 for 16-bit)", base: []int{1, 2048}}, true, true},
	{input{name: "2 rows of 2050 (groups of 512 for 16-bit)", base: []int{2, 2050}}, true, false},
	{input{name: "2 rows of 1024 (groups of 256 for float32)", base: []int{2, 1024}}, true, true},
	{input{name: "7 rows of 1030 (groups of 512 for float32)", base: []int{7, 1030}}, true, true},
	{input{name: "3 rows of 4096 (the most 16-bit words)", base: []int{3, 4096}}, true, false},
	{input{name: "3 rows of 2048 (the most float32 words)", base: []int{3, 2048}}, true, true},
	{input{name: "2 rows of 4098 (one word too many)", base: []int{2, 4098}}, false, false},
	{input{name: "odd cols 4x37", base: []int{4, 37}}, false, true},
	{input{name: "rows at a stride 6x20 of 6x24", base: []int{6, 24}, views: []func(*Tensor) (*Tensor, error){slice(1, 2, 22)},
		host: func(h hostND) hostND { return h.slice(1, 2, 22) }}, true, true},
	{input{name: "odd offset 6x20 of 6x23", base: []int{6, 23}, views: []func(*Tensor) (*Tensor, error){slice(1, 1, 21)},
		host: func(h hostND) hostND { return h.slice(1, 1, 21) }}, false, true},
	{input{name: "rows from row 3 of 9x64", base: []int{9, 64}, views: []func(*Tensor) (*Tensor, error){slice(0, 3, 9)},
		host: func(h hostND) hostND { return h.slice(0, 3, 9) }}, true, true},
	{input{name: "one row repeated 5x96", base: []int{1, 96}, views: []func(*Tensor) (*Tensor, error){expand(5, 96)},
		host: func(h hostND) hostND { return h.expand(5, 96) }}, true, true},
	{input{name: "rank 3 2x3x10", base: []int{2, 3, 10}}, true, true},
	{input{name: "rank 3 rows not at one stride", base: []int{2, 4, 10}, views: []func(*Tensor) (*Tensor, error){slice(1, 0, 3)},
		host: func(h hostND) hostND { return h.slice(1, 0, 3) }}, false, false},
	{input{name: "prefill 300x768", base: []int{300, 768}}, true, true},
	// Rows of whole 16-byte vectors, which rowsLeanVec takes where it is on
	// (TestLeanChoice), and their neighbours.
	{input{name: "8 rows of 4096 (vector groups of 256 for float32, 128 for 16-bit)", base: []int{8, 4096}}, true, false},
	{input{name: "3 rows of 8192 (the most float32 vectors)", base: []int{3, 8192}}, false, false},
	{input{name: "2 rows of 8196 (one float32 vector too many)", base: []int{2, 8196}}, false, false},
	{input{name: "4501 rows of 8 (many rows a group)", base: []int{4501, 8}}, true, true},
	{input{name: "vector rows at a vector stride 6x20 of 6x28", base: []int{6, 28}, views: []func(*Tensor) (*Tensor, error){slice(1, 4, 24)},
		host: func(h hostND) hostND { return h.slice(1, 4, 24) }}, true, true},
	{input{name: "16-bit vector rows at a vector stride 6x16 of 6x32", base: []int{6, 32}, views: []func(*Tensor) (*Tensor, error){slice(1, 8, 24)},
		host: func(h hostND) hostND { return h.slice(1, 8, 24) }}, true, true},
	{input{name: "vector rows off the vectors 6x20 of 6x22", base: []int{6, 22}, views: []func(*Tensor) (*Tensor, error){slice(1, 0, 20)},
		host: func(h hostND) hostND { return h.slice(1, 0, 20) }}, true, true},
}

// TestLeanNormRows checks which rows the lean norm takes: a change of the
// conditions shows here before it shows as a slower or wrong norm. The CPU
// (no SIMD lanes) leaves every row to normRows.
func TestLeanNormRows(t *testing.T) {
	dev := cpuDevice(t)
	rng := rand.New(rand.NewPCG(7, 7))
	for _, c := range leanInputs {
		for _, d := range computeDTypes {
			t.Run(d.String()+"/"+c.in.name, func(t *testing.T) {
				x, h := c.in.makeAs(t, dev, d, rng, -1, 1)
				cols := h.shape[len(h.shape)-1]
				_, _, fits := leanRows(x, cols)
				fits = fits && cols/wordElems(d) <= ops.LeanWords*ops.LeanGroup
				want := c.lean16
				if d == Float32 {
					want = c.lean32
				}
				require.Equal(t, want, fits)
				require.Zero(t, x.st.ds.leanBlock(ops.NormLayer, d, cols/wordElems(d)), "the CPU takes the lean norm")
			})
		}
	}
}

// TestLeanNorms checks LayerNorm and RMSNorm of the lean rows and their
// neighbours against the float64 reference on every backend, each dtype,
// with and without gamma and beta, with the tolerance of TestNorms, and
// Softmax of the same rows with TestSoftmax's.
func TestLeanNorms(t *testing.T) {
	forEachDevice(t, func(t *testing.T, dev *gpu.Device) {
		rng := rand.New(rand.NewPCG(8, 8))
		const eps = 1e-5
		for _, d := range computeDTypes {
			tol := tolerance{2e-5, 2e-5}.forDType(d)
			for _, c := range leanInputs {
				for _, affine := range []string{"none", "gamma", "both"} {
					t.Run(fmt.Sprintf("%s/%s/%s", d, c.in.name, affine), func(t *testing.T) {
						x, h := c.in.makeAs(t, dev, d, rng, -3, 5)
						cols := h.shape[len(h.shape)-1]
						var gamma, beta *Tensor
						var hg, hb []float64
						if affine != "none" {
							gamma, hg = input{base: []int{cols}}.makeLoose(t, dev, d, rng)
						}
						if affine == "both" {
							beta, hb = input{base: []int{cols}}.makeLoose(t, dev, d, rng)
						}
						ln, err := LayerNorm(x, gamma, beta, eps)
						require.NoError(t, err)
						requireClose(t, rowsHost(h, layerNormRow(hg, hb, eps)), read(t, ln), tol, "layer norm")
						rn, err := RMSNorm(x, gamma, eps)
						require.NoError(t, err)
						requireClose(t, rowsHost(h, rmsNormRow(hg, eps)), read(t, rn), tol, "rms norm")
						if affine == "none" {
							sm, err := Softmax(x)
							require.NoError(t, err)
							requireClose(t, rowsHost(h, softmaxRow), read(t, sm), tolerance{1e-7, 1e-5}.forDType(d), "softmax")
						}
					})
				}
			}
		}
	})
}
