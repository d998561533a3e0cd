package tensor

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/anygpu/gpu"
	"github.com/stretchr/testify/require"
)

// asH200 makes the package plan dev's launches as on an H200 (132 units of
// 2048 threads: decode attention in several splits past 128 positions, wide
// grids, products' k in splits) until the test ends.
func asH200(t *testing.T, dev *gpu.Device) {
	t.Helper()
	ds := stateOf(dev)
	ds.shape = func(info *gpu.DeviceInfo) { info.Units, info.MaxThreadsPerUnit = 132, 2048 }
	t.Cleanup(func() { ds.shape = nil })
}

// nanSlice is n NaNs.
func nanSlice(n int) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(math.NaN())
	}
	return v
}

// float32Bits is v's bit patterns.
func float32Bits(v []float32) []uint32 {
	out := make([]uint32, len(v))
	for i, x := range v {
		out[i] = math.Float32bits(x)
	}
	return out
}

// withBlock makes the package launch the row kernel name with block
// threads (0: its own choice) until the test ends.
func withBlock(t *testing.T, dev *gpu.Device, name string, block int) {
	t.Helper()
	if block == 0 {
		return
	}
	e, err := stateOf(dev).entry(name)
	require.NoError(t, err)
	old := e.block.Swap(int64(block))
	t.Cleanup(func() { e.block.Store(old) })
}

// TestDecodeAttentionDeterministic runs GPT-2 124M's decode attention (12
// heads of 64) over a cache of NaN beyond the positions written, position
// by position past several tiles and splits, twice, with the kernel's
// groups of 64 threads and smaller (as an occupancy calculator may choose):
// every step's result is bitwise the same in both passes, and within
// float32 of float64.
func TestDecodeAttentionDeterministic(t *testing.T) {
	for _, block := range []int{0, 32} {
		t.Run(fmt.Sprintf("block %d", block), func(t *testing.T) { decodeAttentionDeterministic(t, block) })
	}
}

func decodeAttentionDeterministic(t *testing.T, block int) {
	const heads, dim, ctxLen, prompt, last = 12, 64, 304, 8, 300
	rng := rand.New(rand.NewPCG(21, 22))
	random := func(n int) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(rng.NormFloat64())
		}
		return v
	}
	// Keys, values and queries of every position, [position heads dim].
	kh, vh, qh := random(ctxLen*heads*dim), random(ctxLen*heads*dim), random(ctxLen*heads*dim)
	scale := float32(1 / math.Sqrt(dim))
	checked := map[int]bool{prompt: true, 63: true, 64: true, 65: true, 127: true, 128: true, 129: true, 200: true, 256: true, 257: true, last - 1: true}
	forEachDevice(t, func(t *testing.T, dev *gpu.Device) {
		asH200(t, dev)
		withBlock(t, dev, "attention", block)
		ctx := context.Background()
		pass := func() map[int][]float32 {
			kc, err := FromSlice(ctx, dev, nanSlice(heads*ctxLen*dim), heads, ctxLen, dim)
			require.NoError(t, err)
			defer kc.Close()
			vc, err := FromSlice(ctx, dev, nanSlice(heads*ctxLen*dim), heads, ctxLen, dim)
			require.NoError(t, err)
			defer vc.Close()
			out := map[int][]float32{}
			step := func(pos, n int) {
				row := heads * dim
				k, err := FromSlice(ctx, dev, kh[pos*row:(pos+n)*row], n, heads, dim)
				require.NoError(t, err)
				defer k.Close()
				v, err := FromSlice(ctx, dev, vh[pos*row:(pos+n)*row], n, heads, dim)
				require.NoError(t, err)
				defer v.Close()
				q, err := FromSlice(ctx, dev, qh[pos*row:(pos+n)*row], n, heads, dim)
				require.NoError(t, err)
				defer q.Close()
				require.NoError(t, AppendKV(kc, k, pos))
				require.NoError(t, AppendKV(vc, v, pos))
				a, err := Attention(q, kc, vc, pos, scale)
				require.NoError(t, err)
				defer a.Close()
				got, err := a.ToFloat32(ctx)
				require.NoError(t, err)
				out[pos+n-1] = got[(n-1)*row:]
			}
			step(0, prompt)
			for pos := prompt; pos < last; pos++ {
				step(pos, 1)
			}
			return out
		}
		first, second := pass(), pass()
		for pos := prompt - 1; pos < last; pos++ {
			require.Equal(t, float32Bits(first[pos]), float32Bits(second[pos]), "position %d: the passes differ", pos)
			if !checked[pos] {
				continue
			}
			keys := pos + 1
			kv := func(src []float32) hostND {
				h := hostND{shape: []int{keys, heads, dim}, data: make([]float64, keys*heads*dim)}
				for i := range h.data {
					h.data[i] = float64(src[i])
				}
				return h
			}
			q := hostND{shape: []int{1, heads, dim}, data: make([]float64, heads*dim)}
			for i := range q.data {
				q.data[i] = float64(qh[pos*heads*dim+i])
			}
			want := attentionHost(q, kv(kh), kv(vh), pos, float64(scale))
			requireClose(t, want, first[pos], tolerance{abs: 1e-5, rel: 1e-4}, "decode attention")
		}
	})
}

// TestDecodeLinearDeterministic runs GPT-2 124M's decode products (a row
// times [768 2304], [768 3072], [3072 768] with bias; a row times the
// transposed token embedding's first rows) as planned on an H200, twice:
// bitwise the same, and within float32 of float64.
func TestDecodeLinearDeterministic(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	forEachDevice(t, func(t *testing.T, dev *gpu.Device) {
		asH200(t, dev)
		ctx := context.Background()
		for _, tc := range []struct {
			name       string
			k, n       int
			transposed bool
		}{
			{"qkv", 768, 2304, false}, {"fc", 768, 3072, false}, {"mlp proj", 3072, 768, false}, {"lm head", 768, 4099, true},
		} {
			t.Run(tc.name, func(t *testing.T) {
				x, xh := input{base: []int{1, tc.k}}.make(t, dev, rng, -1, 1)
				win := input{name: "weight", base: []int{tc.k, tc.n}}
				if tc.transposed { // [n k] seen as [k n], as the tied LM head
					win = input{name: "weight", base: []int{tc.n, tc.k}, views: []func(*Tensor) (*Tensor, error){transpose(0, 1)},
						host: func(h hostND) hostND { return h.permute(1, 0) }}
				}
				w, wh := win.make(t, dev, rng, -0.1, 0.1)
				b, bh := input{base: []int{tc.n}}.make(t, dev, rng, -1, 1)
				run := func() []float32 {
					y, err := Linear(x, w, b)
					require.NoError(t, err)
					defer y.Close()
					v, err := y.ToFloat32(ctx)
					require.NoError(t, err)
					return v
				}
				first, second := run(), run()
				require.Equal(t, float32Bits(first), float32Bits(second), "the runs differ")
				want := build([]int{1, tc.n}, func(idx []int) float64 {
					s := bh.data[idx[1]]
					for k := range tc.k {
						s += xh.data[k] * wh.data[index(wh.shape, []int{k, idx[1]})]
					}
					return s
				})
				requireClose(t, want, first, tolerance{abs: 1e-4, rel: 1e-4}, tc.name)
			})
		}
	})
}
