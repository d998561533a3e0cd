package main

import (
	"context"
	"math"
	"os"
	"strconv"
	"testing"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/tensor"
	"github.com/stretchr/testify/require"
)

// midConfig is long enough for a decode step's attention to take several
// tiles of keys (and, with 2 heads, several splits on a device of few
// units), where smallConfig's 40 positions take one.
var midConfig = Config{Layers: 2, Heads: 2, Embd: 128, Vocab: 300, Positions: 512, Eps: 1e-5}

// gpt2Config is GPT-2 124M's shape.
var gpt2Config = Config{Layers: 12, Heads: 12, Embd: 768, Vocab: 50257, Positions: 1024, Eps: 1e-5}

// determinismCase is a model shape and a generation.
type determinismCase struct {
	name           string
	cfg            Config
	prompt, tokens int
}

// determinismCases are the shapes TestGenerateDeterministic runs; with
// ANYGPU_GPT2_DET_FULL=1 GPT-2 124M's shape with seeded random weights
// (ANYGPU_GPT2_DET_TOKENS tokens, 256 by default), as the gpt2 command runs
// it, instead.
func determinismCases(t *testing.T) []determinismCase {
	if os.Getenv("ANYGPU_GPT2_DET_FULL") == "1" {
		n := 256
		if s := os.Getenv("ANYGPU_GPT2_DET_TOKENS"); s != "" {
			v, err := strconv.Atoi(s)
			require.NoError(t, err, "ANYGPU_GPT2_DET_TOKENS")
			n = v
		}
		return []determinismCase{{"gpt2-124m", gpt2Config, 8, n}}
	}
	return []determinismCase{
		{"small", smallConfig, 7, 30},
		{"n_ctx 512", midConfig, 8, 300},
	}
}

// promptOf is n ids within the vocabulary, spread over it.
func promptOf(c Config, n int) []int32 {
	p := make([]int32, n)
	for i := range p {
		p[i] = int32((i*7919 + 13) % c.Vocab)
	}
	return p
}

// bitsOf is each step's logits as their bit patterns (NaN compares equal
// to itself, -0 differs from 0).
func bitsOf(steps [][]float32) [][]uint32 {
	out := make([][]uint32, len(steps))
	for i, s := range steps {
		out[i] = make([]uint32, len(s))
		for j, v := range s {
			out[i][j] = math.Float32bits(v)
		}
	}
	return out
}

// firstDifference is the first step whose logits differ, or -1.
func firstDifference(a, b [][]uint32) int {
	for i := range min(len(a), len(b)) {
		for j := range min(len(a[i]), len(b[i])) {
			if a[i][j] != b[i][j] {
				return i
			}
		}
	}
	return -1
}

// TestGenerateDeterministic: no op uses atomics, so generations in one
// process (the KV caches and the device's memory reused) give
// bitwise-identical ids, and, read each step, bitwise-identical logits.
// The mid-size shape is also checked against the float64 reference, its
// decode steps' attention taking several tiles of keys.
func TestGenerateDeterministic(t *testing.T) {
	for _, tc := range determinismCases(t) {
		for _, d := range []tensor.DType{tensor.Float32, tensor.BFloat16} {
			if d != tensor.Float32 && tc.cfg != smallConfig {
				continue // bfloat16: the small shape
			}
			t.Run(d.String()+"/"+tc.name, func(t *testing.T) { checkDeterministic(t, tc, d) })
		}
	}
}

func checkDeterministic(t *testing.T, tc determinismCase, d tensor.DType) {
	w := randomWeights(tc.cfg, 11)
	prompt := promptOf(tc.cfg, tc.prompt)
	forEachDevice(t, func(t *testing.T, dev *gpu.Device) {
		m := loadTempAs(t, dev, tc.cfg, "F32", d, w)
		ctx := context.Background()
		// As the gpt2 command runs: no reads but the ids.
		var first []int32
		for r := range 3 {
			ids, _, err := m.Generate(ctx, prompt, tc.tokens, nil)
			require.NoError(t, err)
			if r == 0 {
				first = ids
				continue
			}
			require.Equal(t, first, ids, "run %d's ids differ from run 0's", r)
		}
		if tc.cfg.Vocab > 1000 {
			return // the full shape: ids only
		}
		// Every step's logits read.
		ids0, steps0 := collect(t, m, prompt, tc.tokens)
		require.Equal(t, first, ids0, "ids with the logits read differ from those without")
		ids1, steps1 := collect(t, m, prompt, tc.tokens)
		require.Equal(t, ids0, ids1)
		require.Equal(t, -1, firstDifference(bitsOf(steps0), bitsOf(steps1)), "the first step whose logits differ between two runs")
		if tc.cfg == midConfig && d == tensor.Float32 {
			checkAgainst(t, tc.cfg, w, prompt, ids0, steps0, 1e-4)
		}
	})
}

// poison fills the model's KV caches with NaN, and allocates, fills with
// NaN and frees tensors of the model's dtype and of the sizes a forward
// pass allocates, so that a
// backend that reuses freed memory hands NaN to the next ops' outputs and
// scratch: any read of a cache position not yet written, or of an output
// element no kernel wrote, makes NaN logits.
func poison(t *testing.T, m *Model) {
	t.Helper()
	ctx := context.Background()
	c := m.Cfg
	D := c.Embd / c.Heads
	nanRows := func(n int) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(math.NaN())
		}
		return v
	}
	garbage, err := tensor.FromFloat32(ctx, m.dev, m.DType, nanRows(c.Positions*c.Embd), c.Positions, c.Heads, D)
	require.NoError(t, err)
	for _, b := range m.blocks {
		require.NoError(t, tensor.AppendKV(b.kc, garbage, 0))
		require.NoError(t, tensor.AppendKV(b.vc, garbage, 0))
	}
	require.NoError(t, garbage.Close())
	var scratch []*tensor.Tensor
	for _, n := range []int{1, c.Embd, 3 * c.Embd, 4 * c.Embd, c.Vocab, 64 * c.Embd, 64 * 4 * c.Embd, 2 * c.Vocab} {
		for range 4 {
			s, err := tensor.FromFloat32(ctx, m.dev, m.DType, nanRows(n), n)
			require.NoError(t, err)
			scratch = append(scratch, s)
		}
	}
	require.NoError(t, tensor.Synchronize(ctx, m.dev))
	for _, s := range scratch {
		require.NoError(t, s.Close())
	}
	require.NoError(t, tensor.Synchronize(ctx, m.dev))
}

// TestGenerateReadsNoGarbage: a generation after the caches and the freed
// memory are filled with NaN gives bitwise the logits of one over zeroed
// caches, in float32 and in bfloat16 (whose 16-bit elements share words:
// a kernel that wrote only half a word would leave NaN in the other).
func TestGenerateReadsNoGarbage(t *testing.T) {
	for _, tc := range []struct {
		determinismCase
		d tensor.DType
	}{
		{determinismCase{"small", smallConfig, 7, 30}, tensor.Float32},
		{determinismCase{"n_ctx 512", midConfig, 8, 120}, tensor.Float32},
		{determinismCase{"small", smallConfig, 7, 30}, tensor.BFloat16},
		{determinismCase{"n_ctx 512", midConfig, 8, 120}, tensor.BFloat16},
	} {
		t.Run(tc.d.String()+"/"+tc.name, func(t *testing.T) {
			w := randomWeights(tc.cfg, 12)
			prompt := promptOf(tc.cfg, tc.prompt)
			forEachDevice(t, func(t *testing.T, dev *gpu.Device) {
				m := loadTempAs(t, dev, tc.cfg, "F32", tc.d, w)
				ids0, steps0 := collect(t, m, prompt, tc.tokens)
				for _, s := range steps0 {
					for j, v := range s {
						require.False(t, math.IsNaN(float64(v)), "logit %d is NaN over zeroed caches", j)
					}
				}
				poison(t, m)
				ids1, steps1 := collect(t, m, prompt, tc.tokens)
				require.Equal(t, ids0, ids1)
				require.Equal(t, -1, firstDifference(bitsOf(steps0), bitsOf(steps1)), "the first step whose logits differ after poisoning")
			})
		})
	}
}
