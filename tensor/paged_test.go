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

// TestPagedAttention fills paged KV caches by a prefill then decode steps,
// through a block table whose pages are out of order (a second sequence
// filling other pages of the same pools between), and checks every step's
// attention against float64 and against Attention over contiguous caches
// holding the same keys and values; then that each pool holds exactly what
// was appended, where the tables say.
func TestPagedAttention(t *testing.T) {
	forEachDevice(t, func(t *testing.T, dev *gpu.Device) {
		ctx := context.Background()
		tests := []struct {
			name                                   string
			heads, dim, page, prompt, steps, chunk int
		}{
			{name: "pages of one position", heads: 1, dim: 4, page: 1, prompt: 3, steps: 2},
			{name: "odd 3 heads of 5, pages of 7, prompt 13, 3 steps", heads: 3, dim: 5, page: 7, prompt: 13, steps: 3},
			// Blocks of queries whose key tiles straddle pages.
			{name: "blocks: dim 64, pages of 24, prompt 150 + 2", heads: 2, dim: 64, page: 24, prompt: 150, steps: 2},
			{name: "wide blocks: dim 128, pages of 5, prompt 40, chunks of 21", heads: 2, dim: 128, page: 5, prompt: 40, steps: 2, chunk: 21},
			{name: "odd dim 97, pages of 3, chunks of 16", heads: 1, dim: 97, page: 3, prompt: 20, steps: 2, chunk: 16},
			// Decode over 700 positions: split in ranges (flash-decoding).
			{name: "long decode, pages of 32: prompt 690 + 3", heads: 1, dim: 8, page: 32, prompt: 690, steps: 3},
		}
		for _, d := range computeDTypes {
			for _, tc := range tests {
				t.Run(d.String()+"/"+tc.name, func(t *testing.T) {
					rng := rand.New(rand.NewPCG(17, uint64(tc.prompt*31+tc.page)))
					chunk := max(tc.chunk, 1)
					total := tc.prompt + tc.steps*chunk
					blocks := (total + tc.page - 1) / tc.page
					pages := 2*blocks + 1 // two sequences and a page neither uses
					perm := rng.Perm(pages)
					tables := [2][]int32{}
					for s := range tables {
						for _, p := range perm[s*blocks : (s+1)*blocks] {
							tables[s] = append(tables[s], int32(p))
						}
					}
					// One fused projection per sequence [total, 3, heads, dim] as q, k, v.
					var qkv [2]*Tensor
					var qkvh [2]hostND
					for s := range qkv {
						qkv[s], qkvh[s] = input{base: []int{total, 3, tc.heads, tc.dim}}.makeAs(t, dev, d, rng, -2, 2)
					}
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
					hpart := func(h hostND, which, from, to int) hostND {
						s := h.slice(1, which, which+1).slice(0, from, to)
						return hostND{shape: []int{to - from, tc.heads, tc.dim}, data: s.data}
					}
					mk := func(shape ...int) *Tensor {
						x, err := Zeros(ctx, dev, d, shape...)
						require.NoError(t, err)
						t.Cleanup(func() { _ = x.Close() })
						return x
					}
					kpool, vpool := mk(pages, tc.heads, tc.page, tc.dim), mk(pages, tc.heads, tc.page, tc.dim)
					kc, vc := mk(tc.heads, total, tc.dim), mk(tc.heads, total, tc.dim)
					// The second sequence's table is a view at offset 1 of a
					// longer tensor.
					var table [2]*Tensor
					for s := range table {
						full, err := FromSlice(ctx, dev, append(make([]int32, s), tables[s]...), s+blocks)
						require.NoError(t, err)
						t.Cleanup(func() { _ = full.Close() })
						table[s], err = full.Slice(0, s, s+blocks)
						require.NoError(t, err)
						t.Cleanup(func() { _ = table[s].Close() })
					}
					scale := float32(1 / math.Sqrt(float64(tc.dim)))
					pos := 0
					for step := 0; step <= tc.steps; step++ {
						n := chunk
						if step == 0 {
							n = tc.prompt
						}
						for s := range table {
							require.NoError(t, AppendPagedKV(kpool, table[s], part(qkv[s], 1, pos, pos+n), pos))
							require.NoError(t, AppendPagedKV(vpool, table[s], part(qkv[s], 2, pos, pos+n), pos))
						}
						require.NoError(t, AppendKV(kc, part(qkv[0], 1, pos, pos+n), pos))
						require.NoError(t, AppendKV(vc, part(qkv[0], 2, pos, pos+n), pos))
						q := part(qkv[0], 0, pos, pos+n)
						got, err := PagedAttention(q, kpool, vpool, table[0], pos, scale)
						require.NoError(t, err)
						vals, err := got.ToFloat32(ctx)
						require.NoError(t, err)
						require.NoError(t, got.Close())
						want := attentionHost(hpart(qkvh[0], 0, pos, pos+n), hpart(qkvh[0], 1, 0, pos+n), hpart(qkvh[0], 2, 0, pos+n), pos, float64(scale))
						requireClose(t, want, vals, attentionTolerance(dev, q, tc.dim, tolerance{abs: 1e-5, rel: 1e-5}), tc.name)
						// The contiguous caches of the same keys: the same result.
						flat, err := Attention(q, kc, vc, pos, scale)
						require.NoError(t, err)
						fvals, err := flat.ToFloat32(ctx)
						require.NoError(t, err)
						require.NoError(t, flat.Close())
						asHost := hostND{shape: want.shape, data: make([]float64, len(fvals))}
						for i, f := range fvals {
							asHost.data[i] = float64(f)
						}
						requireClose(t, asHost, vals, tolerance{abs: 1e-6, rel: 1e-6}.forDType(d), tc.name+": paged against contiguous")
						pos += n
					}
					// Each pool holds each sequence's keys (values) at its
					// table's pages, and zeros in the page neither uses.
					for which, pool := range []*Tensor{kpool, vpool} {
						got, err := pool.ToFloat32(ctx)
						require.NoError(t, err)
						want := make([]float32, len(got))
						for s := range table {
							kh := hpart(qkvh[s], which+1, 0, total)
							for j := range total {
								for h := range tc.heads {
									for e := range tc.dim {
										at := ((int(tables[s][j/tc.page])*tc.heads+h)*tc.page+j%tc.page)*tc.dim + e
										want[at] = float32(kh.data[index(kh.shape, []int{j, h, e})])
									}
								}
							}
						}
						require.Equal(t, want, got, "pool %d", which)
					}
				})
			}
		}
	})
}

// TestPagedAppendBadTable: table entries outside the pool write nothing and
// attention through them stays in the pool (reads its last page).
func TestPagedAppendBadTable(t *testing.T) {
	forEachDevice(t, func(t *testing.T, dev *gpu.Device) {
		ctx := context.Background()
		pool, err := Zeros(ctx, dev, Float32, 2, 1, 2, 3)
		require.NoError(t, err)
		defer pool.Close()
		table, err := FromSlice(ctx, dev, []int32{1, -1, 2}, 3)
		require.NoError(t, err)
		defer table.Close()
		x, err := FromSlice(ctx, dev, []float32{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18}, 6, 1, 3)
		require.NoError(t, err)
		defer x.Close()
		require.NoError(t, AppendPagedKV(pool, table, x, 0))
		got, err := pool.ToFloat32(ctx)
		require.NoError(t, err)
		require.Equal(t, []float32{0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6}, got, "only positions 0 and 1 (page 1) written")
		out, err := PagedAttention(x, pool, pool, table, 0, 1)
		require.NoError(t, err)
		defer out.Close()
		vals, err := out.ToFloat32(ctx)
		require.NoError(t, err)
		for _, v := range vals {
			require.False(t, math.IsNaN(float64(v)) || v < 0 || v > 6, "%v: values from the pool only", vals)
		}
	})
}

func TestPagedErrors(t *testing.T) {
	dev := cpuDevice(t)
	mk := func(d DType, shape ...int) *Tensor { return zerosFor(t, dev, d, shape...) }
	pool := mk(Float32, 4, 2, 3, 8)
	table := mk(Int32, 2)
	view, err := pool.Slice(0, 1, 3)
	require.NoError(t, err)
	defer view.Close()
	tests := []struct {
		name string
		f    func() error
		msg  string
	}{
		{"append past the table", func() error { return AppendPagedKV(pool, table, mk(Float32, 2, 2, 8), 5) }, "positions 5..6 outside the block table's 6"},
		{"append wrong heads", func() error { return AppendPagedKV(pool, table, mk(Float32, 1, 3, 8), 0) }, "append paged kv [1 3 8] into [4 2 3 8]: want [n 2 8]"},
		{"append into a view", func() error { return AppendPagedKV(view, table, mk(Float32, 1, 2, 8), 0) }, "is a view"},
		{"pool of rank 3", func() error { return AppendPagedKV(mk(Float32, 2, 3, 8), table, mk(Float32, 1, 2, 8), 0) }, "rank 4"},
		{"float table", func() error { return AppendPagedKV(pool, mk(Float32, 2), mk(Float32, 1, 2, 8), 0) }, "Int32"},
		{"table of rank 2", func() error { return AppendPagedKV(pool, mk(Int32, 2, 1), mk(Float32, 1, 2, 8), 0) }, "[2 1] for [4 2 3 8]"},
		{"dtypes differ", func() error { return AppendPagedKV(pool, table, mk(Float16, 1, 2, 8), 0) }, ""},
		{"attention past the table", func() error {
			_, err := PagedAttention(mk(Float32, 2, 2, 8), pool, pool, table, 5, 1)
			return err
		}, "paged attention [2 2 8] over [4 2 3 8] through [2]: positions 5..6"},
		{"attention pools differ", func() error {
			_, err := PagedAttention(mk(Float32, 1, 2, 8), pool, mk(Float32, 5, 2, 3, 8), table, 0, 1)
			return err
		}, "differ"},
		{"attention wrong queries", func() error {
			_, err := PagedAttention(mk(Float32, 1, 2, 4), pool, pool, table, 0, 1)
			return err
		}, "[1 2 4] over [4 2 3 8]: queries of shape [nq 2 8]"},
		{"empty pool", func() error { return AppendPagedKV(mk(Float32, 0, 2, 3, 8), table, mk(Float32, 1, 2, 8), 0) }, "without pages"},
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
