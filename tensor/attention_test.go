package tensor

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/errors"
	"github.com/anygpu/gpu/tensor/internal/ops"
	"github.com/stretchr/testify/require"
)

func TestEmbedding(t *testing.T) {
	forEachDevice(t, func(t *testing.T, dev *gpu.Device) {
		ctx := context.Background()
		rng := rand.New(rand.NewPCG(5, 6))
		tests := []struct {
			name  string
			table input
			first int
			ids   []int32
			shape []int
		}{
			{name: "rows", table: input{base: []int{11, 7}}, ids: []int32{3, 0, 10, 3}, shape: []int{4}},
			{name: "matrix of ids", table: input{base: []int{5, 3}}, ids: []int32{4, 1, 2, 2, 0, 1}, shape: []int{2, 3}},
			{name: "transposed table", table: input{base: []int{6, 9}, views: []func(*Tensor) (*Tensor, error){transpose(0, 1)},
				host: func(h hostND) hostND { return h.permute(1, 0) }}, ids: []int32{8, 1}, shape: []int{2}},
			{name: "out of range ids give zeros", table: input{base: []int{4, 5}}, ids: []int32{-1, 2, 4, 1 << 30}, shape: []int{4}},
			{name: "no ids", table: input{base: []int{4, 5}}, ids: []int32{}, shape: []int{0}},
			{name: "rows from id 6 (a split table's second part)", table: input{base: []int{4, 3}}, first: 6, ids: []int32{5, 6, 9, 10, 7, -1}, shape: []int{6}},
		}
		for _, d := range computeDTypes {
			for _, tc := range tests {
				t.Run(d.String()+"/"+tc.name, func(t *testing.T) {
					table, th := tc.table.makeAs(t, dev, d, rng, -1, 1)
					ids, err := FromSlice(ctx, dev, tc.ids, tc.shape...)
					require.NoError(t, err)
					defer ids.Close()
					vocab, dim := th.shape[0], th.shape[1]
					want := build(append(append([]int{}, tc.shape...), dim), func(idx []int) float64 {
						id := int(tc.ids[index(tc.shape, idx[:len(idx)-1])]) - tc.first
						if id < 0 || id >= vocab {
							return 0
						}
						return th.data[id*dim+idx[len(idx)-1]]
					})
					got, err := EmbeddingFrom(table, ids, tc.first)
					require.NoError(t, err)
					defer got.Close()
					require.Equal(t, want.shape, got.Shape())
					require.Equal(t, d, got.DType())
					vals, err := got.ToFloat32(ctx)
					require.NoError(t, err)
					requireClose(t, want, vals, tolerance{}, tc.name) // a copy: exact
				})
			}
		}
	})
}

// rotaryHost is the rotate-half rotary embedding of x [seq heads dim].
func rotaryHost(x hostND, pos int, base float64) hostND {
	dim := x.shape[2]
	half := dim / 2
	return build(x.shape, func(idx []int) float64 {
		s, d := idx[0], idx[2]
		p := d % half
		theta := float64(pos+s) * math.Pow(base, -2*float64(p)/float64(dim))
		at := func(dd int) float64 { return x.data[index(x.shape, []int{s, idx[1], dd})] }
		if d < half {
			return at(p)*math.Cos(theta) - at(p+half)*math.Sin(theta)
		}
		return at(p+half)*math.Cos(theta) + at(p)*math.Sin(theta)
	})
}

func TestRotary(t *testing.T) {
	forEachDevice(t, func(t *testing.T, dev *gpu.Device) {
		ctx := context.Background()
		rng := rand.New(rand.NewPCG(8, 9))
		tests := []struct {
			name string
			x    input
			pos  int
		}{
			{name: "prefill 7x3x10", x: input{base: []int{7, 3, 10}}, pos: 0},
			{name: "decode at 40", x: input{base: []int{1, 2, 6}}, pos: 40},
			{name: "strided (from a fused projection)", x: input{base: []int{5, 2, 3, 8}, views: []func(*Tensor) (*Tensor, error){
				func(t *Tensor) (*Tensor, error) { return t.Slice(2, 1, 2) }, reshape(5, 2, 8)},
				host: func(h hostND) hostND { return hostND{shape: []int{5, 2, 8}, data: h.slice(2, 1, 2).data} }}, pos: 3},
		}
		for _, d := range computeDTypes {
			for _, tc := range tests {
				t.Run(d.String()+"/"+tc.name, func(t *testing.T) {
					x, xh := tc.x.makeAs(t, dev, d, rng, -1, 1)
					got, err := Rotary(x, tc.pos, 10000)
					require.NoError(t, err)
					defer got.Close()
					vals, err := got.ToFloat32(ctx)
					require.NoError(t, err)
					// Angles below 50 radians: CUDA's and Go's float32 sin and
					// cos are within a few 1e-6 there. Vulkan, OpenGL and WebGPU
					// only promise 2⁻¹¹ absolute (GPUs' hardware sine), so
					// they are held to 5e-4.
					tol := tolerance{abs: 2e-5, rel: 1e-5}
					switch dev.Backend() {
					case "vulkan", "opengl", "webgpu":
						tol.abs = 5e-4
					}
					requireClose(t, rotaryHost(xh, tc.pos, 10000), vals, tol.forDType(d), tc.name)
				})
			}
		}
	})
}

// attentionHost is causal attention of q [nq heads dim] at positions
// pos.. over keys and values [n heads dim] (positions 0..n-1).
func attentionHost(q, k, v hostND, pos int, scale float64) hostND {
	heads, dim := q.shape[1], q.shape[2]
	out := hostND{shape: q.shape, data: make([]float64, len(q.data))}
	for i := range q.shape[0] {
		for h := range heads {
			nk := pos + i + 1
			s := make([]float64, nk)
			m := math.Inf(-1)
			for j := range nk {
				for d := range dim {
					s[j] += q.data[index(q.shape, []int{i, h, d})] * k.data[index(k.shape, []int{j, h, d})]
				}
				s[j] *= scale
				m = math.Max(m, s[j])
			}
			sum := 0.0
			for j := range s {
				s[j] = math.Exp(s[j] - m)
				sum += s[j]
			}
			for d := range dim {
				acc := 0.0
				for j := range nk {
					acc += s[j] * v.data[index(v.shape, []int{j, h, d})]
				}
				out.data[index(q.shape, []int{i, h, d})] = acc / sum
			}
		}
	}
	return out
}

// TestAttention fills a KV cache by a prefill then decode steps, as a model
// does, and checks every step's attention against float64.
func TestAttention(t *testing.T) {
	forEachDevice(t, func(t *testing.T, dev *gpu.Device) {
		ctx := context.Background()
		tests := []struct {
			name                                  string
			heads, dim, ctx, prompt, steps, chunk int
		}{
			{name: "one head, one position", heads: 1, dim: 4, ctx: 1, prompt: 1},
			{name: "odd 3 heads of 5, prompt 13, 3 steps", heads: 3, dim: 5, ctx: 20, prompt: 13, steps: 3},
			{name: "keys across tiles: prompt 150 + 2", heads: 2, dim: 64, ctx: 160, prompt: 150, steps: 2},
			{name: "head dimension 256", heads: 1, dim: 256, ctx: 9, prompt: 8, steps: 1},
			// Decode over 700 positions: split in up to 10 ranges (flash-decoding).
			{name: "long decode: prompt 690 + 3", heads: 1, dim: 8, ctx: 700, prompt: 690, steps: 3},
			// A prefill split on a device of many units: early queries have empty ranges.
			{name: "prefill of 200, one head", heads: 1, dim: 4, ctx: 201, prompt: 200, steps: 1},
			// Blocks of queries past position 0 (a second prompt chunk), a partial last block.
			{name: "prompt 40 then chunks of 21", heads: 3, dim: 64, ctx: 90, prompt: 40, steps: 2, chunk: 21},
			{name: "chunks of 16, head dimension 65 (wide blocks)", heads: 2, dim: 65, ctx: 60, prompt: 20, steps: 2, chunk: 16},
			// The wide block kernel: head dimension 128, keys across tiles, a partial last block.
			{name: "head dimension 128, prompt 45 + 1", heads: 2, dim: 128, ctx: 50, prompt: 45, steps: 1},
			{name: "odd head dimension 97, chunks of 17", heads: 1, dim: 97, ctx: 60, prompt: 19, steps: 2, chunk: 17},
			{name: "head dimension 129 (no blocks)", heads: 1, dim: 129, ctx: 20, prompt: 17, steps: 1},
		}
		for _, d := range computeDTypes {
			for _, tc := range tests {
				t.Run(d.String()+"/"+tc.name, func(t *testing.T) {
					rng := rand.New(rand.NewPCG(11, uint64(tc.prompt)))
					chunk := max(tc.chunk, 1)
					total := tc.prompt + tc.steps*chunk
					// One fused projection [total, 3, heads, dim] as q, k, v.
					qkv, qkvh := input{base: []int{total, 3, tc.heads, tc.dim}}.makeAs(t, dev, d, rng, -2, 2)
					part := func(x *Tensor, which, from, to int) *Tensor {
						s, err := x.Slice(1, which, which+1)
						require.NoError(t, err)
						defer s.Close()
						r, err := s.Slice(0, from, to)
						require.NoError(t, err)
						defer r.Close()
						v, err := r.Reshape(to-from, tc.heads, tc.dim)
						require.NoError(t, err)
						t.Cleanup(func() { _ = v.Close() })
						return v
					}
					hpart := func(which, from, to int) hostND {
						s := qkvh.slice(1, which, which+1).slice(0, from, to)
						return hostND{shape: []int{to - from, tc.heads, tc.dim}, data: s.data}
					}
					kc, err := Zeros(ctx, dev, d, tc.heads, tc.ctx, tc.dim)
					require.NoError(t, err)
					defer kc.Close()
					vc, err := Zeros(ctx, dev, d, tc.heads, tc.ctx, tc.dim)
					require.NoError(t, err)
					defer vc.Close()
					scale := 1 / math.Sqrt(float64(tc.dim))
					pos := 0
					for step := 0; step <= tc.steps; step++ {
						n := chunk
						if step == 0 {
							n = tc.prompt
						}
						require.NoError(t, AppendKV(kc, part(qkv, 1, pos, pos+n), pos))
						require.NoError(t, AppendKV(vc, part(qkv, 2, pos, pos+n), pos))
						q := part(qkv, 0, pos, pos+n)
						got, err := Attention(q, kc, vc, pos, float32(scale))
						require.NoError(t, err)
						want := attentionHost(hpart(0, pos, pos+n), hpart(1, 0, pos+n), hpart(2, 0, pos+n), pos, scale)
						vals, err := got.ToFloat32(ctx)
						require.NoError(t, err)
						require.NoError(t, got.Close())
						// Scores up to 4·dim·scale; float32 exponentials and sums
						// of at most 160 terms: within 1e-5 of values up to 2.
						requireClose(t, want, vals, attentionTolerance(dev, q, tc.dim, tolerance{abs: 1e-5, rel: 1e-5}), tc.name)
						pos += n
					}
					// The cache holds exactly the keys appended.
					kv, err := kc.ToFloat32(ctx)
					require.NoError(t, err)
					kh := hpart(1, 0, total).permute(1, 0, 2)
					for h := range tc.heads {
						for j := range tc.ctx {
							for e := range tc.dim {
								w := 0.0
								if j < total {
									w = kh.data[index(kh.shape, []int{h, j, e})]
								}
								require.Equal(t, float32(w), kv[(h*tc.ctx+j)*tc.dim+e], "cache[%d %d %d]", h, j, e)
							}
						}
					}
				})
			}
		}
	})
}

// TestAttentionSplits: the ranges cover the keys, none is empty, and a lone
// decode query over a long cache is split on every device.
func TestAttentionSplits(t *testing.T) {
	forEachDevice(t, func(t *testing.T, dev *gpu.Device) {
		ds := stateOf(dev)
		for _, tc := range []struct{ pairs, keys int }{{1, 1}, {12, 1024}, {1, 700}, {200, 200}, {12288, 1024}, {4, 65}} {
			splits, kchunk := ds.attentionSplits(tc.pairs, tc.keys)
			require.GreaterOrEqual(t, splits*kchunk, tc.keys, "%+v", tc)
			require.Less(t, (splits-1)*kchunk, tc.keys, "%+v: an empty range", tc)
			if tc.pairs == 1 && tc.keys >= 700 {
				require.Greater(t, splits, 1, "%+v", tc)
			}
		}
	})
}

// TestAttentionBlockKernel: prefills take the block kernel their head
// dimension needs, when the device's groups have its shared memory.
func TestAttentionBlockKernel(t *testing.T) {
	tests := []struct {
		nq, dim, shared int
		want            string
	}{
		{nq: 15, dim: 64, shared: 48 << 10, want: ""},                     // fewer queries than a block
		{nq: 16, dim: 64, shared: 16 << 10, want: "attentionBlock"},       // WebGPU's default limit
		{nq: 4096, dim: 65, shared: 32 << 10, want: "attentionBlockWide"}, // llvmpipe's GLES
		{nq: 4096, dim: 128, shared: 48 << 10, want: "attentionBlockWide"},
		{nq: 4096, dim: 128, shared: 0, want: "attentionBlockWide"}, // not reported
		{nq: 4096, dim: 128, shared: 16 << 10, want: ""},
		{nq: 4096, dim: 129, shared: 48 << 10, want: ""},
	}
	for _, tc := range tests {
		got, threads := attentionBlockKernel(tc.nq, tc.dim, tc.shared)
		require.Equal(t, tc.want, got, "%+v", tc)
		require.Equal(t, got == "", threads == 0, "%+v", tc)
		if got != "" {
			require.GreaterOrEqual(t, threads, tc.dim, "%+v: a thread per dimension", tc)
		}
	}
	require.LessOrEqual(t, ops.AttentionBlockWideShared, 32<<10, "the wide kernel within 32 KiB")
	forEachDevice(t, func(t *testing.T, dev *gpu.Device) {
		shared := stateOf(dev).info().SharedMemPerBlock
		name, _ := attentionBlockKernel(4096, 128, shared)
		t.Logf("shared memory per group %d: head dimension 128 takes %q", shared, name)
	})
}

func TestAttentionErrors(t *testing.T) {
	dev := cpuDevice(t)
	ctx := context.Background()
	mk := func(shape ...int) *Tensor {
		x, err := Zeros(ctx, dev, Float32, shape...)
		require.NoError(t, err)
		t.Cleanup(func() { _ = x.Close() })
		return x
	}
	cache := mk(2, 8, 4)
	view, err := cache.Slice(1, 0, 4)
	require.NoError(t, err)
	defer view.Close()
	tests := []struct {
		name string
		f    func() error
		msg  string
	}{
		{"append past the cache", func() error { return AppendKV(cache, mk(3, 2, 4), 6) }, "positions 6..8 outside the cache's 8"},
		{"append wrong heads", func() error { return AppendKV(cache, mk(1, 3, 4), 0) }, "want [n 2 4]"},
		{"append into a view", func() error { return AppendKV(view, mk(1, 2, 4), 0) }, "is a view"},
		{"attention past the cache", func() error { _, err := Attention(mk(2, 2, 4), cache, cache, 7, 1); return err }, "positions 7..8"},
		{"attention caches differ", func() error { _, err := Attention(mk(1, 2, 4), cache, mk(2, 9, 4), 0, 1); return err }, "differ"},
		{"attention head dim", func() error { _, err := Attention(mk(1, 1, 300), mk(1, 2, 300), mk(1, 2, 300), 0, 1); return err }, "at most 256"},
		{"rotary odd dim", func() error { _, err := Rotary(mk(2, 1, 3), 0, 10000); return err }, "dim even"},
		{"embedding float ids", func() error { _, err := Embedding(mk(4, 2), mk(3)); return err }, "Int32"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.f()
			require.Error(t, err)
			require.Contains(t, err.Error(), tc.msg)
			require.True(t, errors.Is(err, errors.InvalidArgument) || errors.Is(err, errors.NotSupported), "%v", err)
		})
	}
}
