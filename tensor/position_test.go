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

// positionAt is a device position tensor holding p: element 1 of a [3]
// Int32 tensor (a view at an offset, as the ops must take), reshaped to []
// when scalar is set.
func positionAt(t *testing.T, dev *gpu.Device, p int, scalar bool) *Tensor {
	t.Helper()
	full, err := FromSlice(context.Background(), dev, []int32{-7, int32(p), -7}, 3)
	require.NoError(t, err)
	t.Cleanup(func() { _ = full.Close() })
	at, err := full.Slice(0, 1, 2)
	require.NoError(t, err)
	t.Cleanup(func() { _ = at.Close() })
	if scalar {
		s, err := at.Reshape()
		require.NoError(t, err)
		t.Cleanup(func() { _ = s.Close() })
		return s
	}
	return at
}

// readInt32 is t's elements on the host.
func readInt32(t *testing.T, x *Tensor) []int32 {
	t.Helper()
	v, err := ToHost[int32](context.Background(), x)
	require.NoError(t, err)
	return v
}

// floats is a reader of an op's result: its elements as float32, the
// tensor closed after.
func floats(t *testing.T) func(x *Tensor, err error) []float32 {
	return func(x *Tensor, err error) []float32 {
		t.Helper()
		require.NoError(t, err)
		defer x.Close()
		v, err := x.ToFloat32(context.Background())
		require.NoError(t, err)
		return v
	}
}

// asHost is vals as a reference of shape.
func asHost(shape []int, vals []float32) hostND {
	h := hostND{shape: shape, data: make([]float64, len(vals))}
	for i, v := range vals {
		h.data[i] = float64(v)
	}
	return h
}

// TestDecodeAt runs decode sequences twice, with device positions
// (AppendKVAt, AttentionAt, RotaryAt, Advance; the paged ops) and with host
// ones (AppendKV, Attention, Rotary): the caches equal bit for bit, the
// results too where one kernel range covers the keys both ways, else within
// the tolerance of differently split sums; both against the float64
// reference. A prompt of 16 or more (a prefill) takes the per-query kernel
// with a device position, the block kernels with a host one.
func TestDecodeAt(t *testing.T) {
	forEachDevice(t, func(t *testing.T, dev *gpu.Device) {
		ctx := context.Background()
		tests := []struct {
			name                          string
			heads, dim, ctx, prompt, page int
			scalar                        bool
		}{
			{name: "2 heads of 8, 10 positions, one at a time", heads: 2, dim: 8, ctx: 10, prompt: 1, page: 5},
			{name: "a position of shape [], 3 heads of 6", heads: 3, dim: 6, ctx: 7, prompt: 2, page: 4, scalar: true},
			// Split on every device (flash-decoding): ranges past the position are empty.
			{name: "prefill 20 then decode over 150", heads: 1, dim: 16, ctx: 150, prompt: 20, page: 16},
		}
		for _, d := range []DType{Float32, BFloat16} {
			for _, tc := range tests {
				t.Run(d.String()+"/"+tc.name, func(t *testing.T) {
					rng := rand.New(rand.NewPCG(5, uint64(tc.ctx)))
					qkv, qkvh := input{base: []int{tc.ctx, 3, tc.heads, tc.dim}}.makeAs(t, dev, d, rng, -2, 2)
					part := func(which, from, to int) *Tensor {
						s, err := qkv.Slice(1, which, which+1)
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
					mk := func(shape ...int) *Tensor {
						x, err := Zeros(ctx, dev, d, shape...)
						require.NoError(t, err)
						t.Cleanup(func() { _ = x.Close() })
						return x
					}
					blocks := (tc.ctx + tc.page - 1) / tc.page
					perm := rng.Perm(blocks)
					ids := make([]int32, blocks)
					for i, p := range perm {
						ids[i] = int32(p)
					}
					table, err := FromSlice(ctx, dev, ids, blocks)
					require.NoError(t, err)
					defer table.Close()
					kd, vd, kh, vh := mk(tc.heads, tc.ctx, tc.dim), mk(tc.heads, tc.ctx, tc.dim), mk(tc.heads, tc.ctx, tc.dim), mk(tc.heads, tc.ctx, tc.dim)
					kpd, vpd := mk(blocks, tc.heads, tc.page, tc.dim), mk(blocks, tc.heads, tc.page, tc.dim)
					kph, vph := mk(blocks, tc.heads, tc.page, tc.dim), mk(blocks, tc.heads, tc.page, tc.dim)
					at := positionAt(t, dev, 0, tc.scalar)
					scale := float32(1 / math.Sqrt(float64(tc.dim)))
					tol := tolerance{abs: 1e-5, rel: 1e-5}.forDType(d)
					ds := qkv.st.ds
					for pos := 0; pos < tc.ctx; {
						n := 1
						if pos == 0 {
							n = tc.prompt
						}
						k, v, q := part(1, pos, pos+n), part(2, pos, pos+n), part(0, pos, pos+n)
						require.NoError(t, AppendKVAt(kd, k, at))
						require.NoError(t, AppendKVAt(vd, v, at))
						require.NoError(t, AppendPagedKVAt(kpd, table, k, at))
						require.NoError(t, AppendPagedKVAt(vpd, table, v, at))
						require.NoError(t, AppendKV(kh, k, pos))
						require.NoError(t, AppendKV(vh, v, pos))
						require.NoError(t, AppendPagedKV(kph, table, k, pos))
						require.NoError(t, AppendPagedKV(vph, table, v, pos))

						want := attentionHost(hpart(0, pos, pos+n), hpart(1, 0, pos+n), hpart(2, 0, pos+n), pos, float64(scale))
						dev1 := floats(t)(AttentionAt(q, kd, vd, at, scale))
						host1 := floats(t)(Attention(q, kh, vh, pos, scale))
						devP := floats(t)(PagedAttentionAt(q, kpd, vpd, table, at, scale))
						hostP := floats(t)(PagedAttention(q, kph, vph, table, pos, scale))
						requireClose(t, want, dev1, tol, "attention at")
						requireClose(t, want, devP, tol, "paged attention at")
						splitsAt, _ := ds.attentionSplits(n*tc.heads, tc.ctx)
						splitsHost, _ := ds.attentionSplits(n*tc.heads, pos+n)
						_, block := attentionBlockKernel(n, tc.dim, ds.info().SharedMemPerBlock)
						if splitsAt == 1 && splitsHost == 1 && block == 0 {
							require.Equal(t, host1, dev1, "attention at %d", pos)
							require.Equal(t, hostP, devP, "paged attention at %d", pos)
						} else {
							requireClose(t, asHost(want.shape, host1), dev1, tol, "attention at, host twin")
							requireClose(t, asHost(want.shape, hostP), devP, tol, "paged attention at, host twin")
						}
						if blocks*tc.page == tc.ctx { // the same capacity: the same splits
							require.Equal(t, dev1, devP, "paged against contiguous at %d", pos)
						}

						rd := floats(t)(RotaryAt(q, at, 10000))
						rh := floats(t)(Rotary(q, pos, 10000))
						require.Equal(t, rh, rd, "rotary at %d", pos)

						require.NoError(t, Advance(at, n))
						pos += n
						require.Equal(t, []int32{int32(pos)}, readInt32(t, at))
					}
					for i, pair := range [][2]*Tensor{{kd, kh}, {vd, vh}, {kpd, kph}, {vpd, vph}} {
						a := floats(t)(pair[0], nil)
						b := floats(t)(pair[1], nil)
						require.Equal(t, b, a, "cache %d", i)
					}
				})
			}
		}
	})
}

// TestPositionOutOfRange: rows whose device position lies outside the cache
// are not written (the rest are), and attention at a position past the
// cache, or negative, attends to the whole cache.
func TestPositionOutOfRange(t *testing.T) {
	forEachDevice(t, func(t *testing.T, dev *gpu.Device) {
		ctx := context.Background()
		const heads, ctxLen, dim, n, page = 2, 6, 4, 3, 4
		rng := rand.New(rand.NewPCG(3, 9))
		x, xh := input{base: []int{n, heads, dim}}.makeAs(t, dev, Float32, rng, -1, 1)
		defer x.Close()
		// The table holds positions 0..7: 0..3 in page 1 of the pool, 4..7
		// through entry 5, outside the pool of 2 pages.
		table, err := FromSlice(ctx, dev, []int32{1, 5}, 2)
		require.NoError(t, err)
		defer table.Close()
		for _, pos := range []int{-2, 0, 4, 5, ctxLen, 1 << 30, math.MaxInt32} {
			t.Run("", func(t *testing.T) {
				cache, err := Zeros(ctx, dev, Float32, heads, ctxLen, dim)
				require.NoError(t, err)
				defer cache.Close()
				pool, err := Zeros(ctx, dev, Float32, 2, heads, page, dim)
				require.NoError(t, err)
				defer pool.Close()
				at := positionAt(t, dev, pos, false)
				require.NoError(t, AppendKVAt(cache, x, at))
				require.NoError(t, AppendPagedKVAt(pool, table, x, at))
				want := make([]float32, heads*ctxLen*dim)
				wantPool := make([]float32, 2*heads*page*dim)
				for i := range n {
					j := int(int32(pos) + int32(i)) // int32 arithmetic
					for h := range heads {
						for e := range dim {
							v := float32(xh.data[index(xh.shape, []int{i, h, e})])
							if j >= 0 && j < ctxLen {
								want[(h*ctxLen+j)*dim+e] = v
							}
							if j >= 0 && j < page { // page 1 of the pool; entry 5 is outside it
								wantPool[((1*heads+h)*page+j)*dim+e] = v
							}
						}
					}
				}
				require.Equal(t, want, floats(t)(cache, nil), "cache at %d", pos)
				require.Equal(t, wantPool, floats(t)(pool, nil), "pool at %d", pos)
			})
		}
		// Attention past the cache: every query sees all ctx positions.
		k, kh := input{base: []int{heads, ctxLen, dim}}.makeAs(t, dev, Float32, rng, -1, 1)
		defer k.Close()
		v, vh := input{base: []int{heads, ctxLen, dim}}.makeAs(t, dev, Float32, rng, -1, 1)
		defer v.Close()
		q, qh := input{base: []int{1, heads, dim}}.makeAs(t, dev, Float32, rng, -1, 1)
		defer q.Close()
		want := attentionHost(qh, kh.permute(1, 0, 2), vh.permute(1, 0, 2), ctxLen-1, 0.5)
		for _, pos := range []int{ctxLen, 1000, -1, math.MinInt32} {
			got := floats(t)(AttentionAt(q, k, v, positionAt(t, dev, pos, false), 0.5))
			requireClose(t, want, got, tolerance{abs: 1e-5, rel: 1e-5}, "attention past the cache")
		}
	})
}

// TestRotaryAtNegative: a negative device position turns by negative
// angles, as int32 arithmetic says.
func TestRotaryAtNegative(t *testing.T) {
	forEachDevice(t, func(t *testing.T, dev *gpu.Device) {
		rng := rand.New(rand.NewPCG(4, 4))
		x, xh := input{base: []int{3, 2, 8}}.makeAs(t, dev, Float32, rng, -1, 1)
		defer x.Close()
		got := floats(t)(RotaryAt(x, positionAt(t, dev, -5, false), 10000))
		requireClose(t, rotaryHost(xh, -5, 10000), got, tolerance{abs: 1e-5, rel: 1e-5}, "rotary at -5")
	})
}

// TestAdvance: each element moves by n, wrapping at int32's ends; a view at
// an offset moves its elements only.
func TestAdvance(t *testing.T) {
	forEachDevice(t, func(t *testing.T, dev *gpu.Device) {
		ctx := context.Background()
		full, err := FromSlice(ctx, dev, []int32{1, 0, 5, math.MaxInt32, math.MinInt32, 9}, 6)
		require.NoError(t, err)
		defer full.Close()
		mid, err := full.Slice(0, 1, 5)
		require.NoError(t, err)
		defer mid.Close()
		require.NoError(t, Advance(mid, 3))
		require.Equal(t, []int32{1, 3, 8, math.MinInt32 + 2, math.MinInt32 + 3, 9}, readInt32(t, full))
		require.NoError(t, Advance(full, -4))
		require.Equal(t, []int32{-3, -1, 4, math.MaxInt32 - 1, math.MaxInt32, 5}, readInt32(t, full))
	})
}

// TestArgMaxInto: the same indices as ArgMax, for rows short and long (the
// split path on a device of many units), written into a fixed tensor.
func TestArgMaxInto(t *testing.T) {
	forEachDevice(t, func(t *testing.T, dev *gpu.Device) {
		ctx := context.Background()
		for _, shape := range [][]int{{3, 7}, {1, 5000}} {
			rng := rand.New(rand.NewPCG(8, uint64(shape[1])))
			x, _ := input{base: shape}.makeAs(t, dev, Float32, rng, -3, 3)
			defer x.Close()
			want, err := ArgMax(x, -1)
			require.NoError(t, err)
			defer want.Close()
			out, err := Zeros(ctx, dev, Int32, shape[0])
			require.NoError(t, err)
			defer out.Close()
			require.NoError(t, ArgMaxInto(out, x, -1))
			require.Equal(t, readInt32(t, want), readInt32(t, out), "%v", shape)
		}
	})
}

// TestAssign: a tensor's values copied into a view of another, for a 4- and
// a 2-byte dtype.
func TestAssign(t *testing.T) {
	forEachDevice(t, func(t *testing.T, dev *gpu.Device) {
		ctx := context.Background()
		for _, d := range []DType{Float32, BFloat16} {
			rng := rand.New(rand.NewPCG(2, 2))
			src, sh := input{base: []int{2, 3}}.makeAs(t, dev, d, rng, -1, 1)
			defer src.Close()
			dst, err := Zeros(ctx, dev, d, 3, 3)
			require.NoError(t, err)
			defer dst.Close()
			cols, err := dst.Slice(0, 1, 3)
			require.NoError(t, err)
			defer cols.Close()
			require.NoError(t, Assign(cols, src))
			want := append(make([]float64, 3), sh.data...)
			requireClose(t, hostND{shape: []int{3, 3}, data: want}, floats(t)(dst, nil), tolerance{}, d.String())
		}
		ids, err := FromSlice(ctx, dev, []int32{4, -2}, 2)
		require.NoError(t, err)
		defer ids.Close()
		into, err := Zeros(ctx, dev, Int32, 2)
		require.NoError(t, err)
		defer into.Close()
		require.NoError(t, Assign(into, ids))
		require.Equal(t, []int32{4, -2}, readInt32(t, into))
	})
}

// TestEmbeddingAtPosition: the position embedding of a device position is
// EmbeddingFrom with the position tensor as ids, following Advance.
func TestEmbeddingAtPosition(t *testing.T) {
	forEachDevice(t, func(t *testing.T, dev *gpu.Device) {
		rng := rand.New(rand.NewPCG(6, 6))
		wpe, wh := input{base: []int{5, 4}}.makeAs(t, dev, Float32, rng, -1, 1)
		defer wpe.Close()
		at := positionAt(t, dev, 2, false)
		for _, p := range []int{2, 3, 4} {
			got := floats(t)(EmbeddingFrom(wpe, at, 0))
			requireClose(t, wh.slice(0, p, p+1), got, tolerance{}, "row")
			require.NoError(t, Advance(at, 1))
		}
	})
}

// TestPositionErrors: bad position tensors and operands are InvalidArgument
// errors naming the shapes.
func TestPositionErrors(t *testing.T) {
	dev := cpuDevice(t)
	mk := func(d DType, shape ...int) *Tensor { return zerosFor(t, dev, d, shape...) }
	cache, pool, table := mk(Float32, 2, 8, 4), mk(Float32, 3, 2, 4, 4), mk(Int32, 2)
	at := mk(Int32, 1)
	closed := mk(Int32, 1)
	require.NoError(t, closed.Close())
	tests := []struct {
		name string
		f    func() error
		msg  string
	}{
		{"nil position", func() error { return AppendKVAt(cache, mk(Float32, 1, 2, 4), nil) }, "nil tensor"},
		{"float position", func() error { return AppendKVAt(cache, mk(Float32, 1, 2, 4), mk(Float32, 1)) }, "Int32"},
		{"two positions", func() error { _, err := AttentionAt(mk(Float32, 1, 2, 4), cache, cache, mk(Int32, 2), 1); return err }, "[1 2 4] at [2]"},
		{"position [1 1]", func() error { _, err := RotaryAt(mk(Float32, 1, 2, 4), mk(Int32, 1, 1), 1); return err }, "[1 2 4] at [1 1]"},
		{"append wrong heads", func() error { return AppendKVAt(cache, mk(Float32, 1, 3, 4), at) }, "[1 3 4] into [2 8 4]"},
		{"paged append wrong dim", func() error { return AppendPagedKVAt(pool, table, mk(Float32, 1, 2, 5), at) }, "[1 2 5] into [3 2 4 4]"},
		{"attention caches differ", func() error {
			_, err := AttentionAt(mk(Float32, 1, 2, 4), cache, mk(Float32, 2, 9, 4), at, 1)
			return err
		}, "differ"},
		{"paged attention queries", func() error {
			_, err := PagedAttentionAt(mk(Float32, 1, 3, 4), pool, pool, table, at, 1)
			return err
		}, "[1 3 4] over [3 2 4 4]"},
		{"rotary base", func() error { _, err := RotaryAt(mk(Float32, 1, 2, 4), at, 0); return err }, "base"},
		{"advance nil", func() error { return Advance(nil, 1) }, "nil tensor"},
		{"advance float", func() error { return Advance(mk(Float32, 1), 1) }, "float32"},
		{"advance past int32", func() error { return Advance(at, math.MaxInt32+1) }, "outside int32"},
		{"argmax into float", func() error { return ArgMaxInto(mk(Float32, 2), mk(Float32, 2, 3), -1) }, "[2 3] into [2]"},
		{"argmax into wrong shape", func() error { return ArgMaxInto(mk(Int32, 3), mk(Float32, 2, 3), -1) }, "want [2]"},
		{"argmax into nil", func() error { return ArgMaxInto(nil, mk(Float32, 2, 3), -1) }, "nil tensor"},
		{"assign shapes", func() error { return Assign(mk(Float32, 2, 3), mk(Float32, 3, 2)) }, "[3 2] into [2 3]"},
		{"assign dtypes", func() error { return Assign(mk(Float32, 2), mk(BFloat16, 2)) }, "bfloat16 into float32"},
		{"assign into a broadcast", func() error {
			b, err := mk(Float32, 1, 3).Expand(2, 3)
			require.NoError(t, err)
			defer b.Close()
			return Assign(b, mk(Float32, 2, 3))
		}, "stride 0"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.f()
			require.Error(t, err)
			require.Contains(t, err.Error(), tc.msg)
			require.True(t, errors.Is(err, errors.InvalidArgument), "%v", err)
		})
	}
	// A closed position is a Closed error.
	require.True(t, errors.Is(AppendKVAt(cache, mk(Float32, 1, 2, 4), closed), errors.Closed))
}
