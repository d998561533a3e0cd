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

// kvPairCaches is two caches of shape [heads ctx dim] and dtype d holding
// the same random values.
func kvPairCaches(t *testing.T, dev *gpu.Device, d DType, rng *rand.Rand, heads, ctxLen, dim int) (a, b *Tensor) {
	t.Helper()
	vals := make([]float32, heads*ctxLen*dim)
	for i := range vals {
		vals[i] = float32(roundTo(d, rng.Float64()*2-1))
	}
	for _, c := range []**Tensor{&a, &b} {
		x, err := FromFloat32(context.Background(), dev, d, vals, heads, ctxLen, dim)
		require.NoError(t, err)
		t.Cleanup(func() { _ = x.Close() })
		*c = x
	}
	return a, b
}

// TestAppendKVPair checks AppendKVPairAt and AppendKVPair against two
// AppendKVAt and AppendKV calls, bit for bit, on every backend and dtype:
// keys contiguous, values a transposed view at an odd offset, caches
// holding values to keep, positions inside, straddling and outside the
// caches.
func TestAppendKVPair(t *testing.T) {
	forEachDevice(t, func(t *testing.T, dev *gpu.Device) {
		rng := rand.New(rand.NewPCG(11, 11))
		const heads, ctxLen, dim = 3, 7, 5
		for _, d := range computeDTypes {
			for _, n := range []int{1, 3} {
				for _, pos := range []int{0, 2, ctxLen - n, ctxLen - 1, ctxLen, -1, math.MinInt32} {
					t.Run(fmt.Sprintf("%s/n=%d/pos=%d", d, n, pos), func(t *testing.T) {
						k, _ := input{base: []int{n, heads, dim}}.makeAs(t, dev, d, rng, -1, 1)
						v, _ := input{base: []int{heads, n + 1, dim}, views: []func(*Tensor) (*Tensor, error){slice(1, 1, n+1), transpose(0, 1)},
							host: func(h hostND) hostND { return h.slice(1, 1, n+1).permute(1, 0, 2) }}.makeAs(t, dev, d, rng, -1, 1)
						kc, kc2 := kvPairCaches(t, dev, d, rng, heads, ctxLen, dim)
						vc, vc2 := kvPairCaches(t, dev, d, rng, heads, ctxLen, dim)
						at := positionAt(t, dev, pos, n == 1)
						require.NoError(t, AppendKVPairAt(kc, vc, k, v, at))
						require.NoError(t, AppendKVAt(kc2, k, at))
						require.NoError(t, AppendKVAt(vc2, v, at))
						wantK, wantV := read(t, kc2), read(t, vc2)
						require.Equal(t, wantK, read(t, kc), "keys")
						require.Equal(t, wantV, read(t, vc), "values")
						if pos < 0 || pos+n > ctxLen {
							return
						}
						// The host position: the same writes.
						kh, kh2 := kvPairCaches(t, dev, d, rng, heads, ctxLen, dim)
						vh, vh2 := kvPairCaches(t, dev, d, rng, heads, ctxLen, dim)
						require.NoError(t, AppendKVPair(kh, vh, k, v, pos))
						require.NoError(t, AppendKV(kh2, k, pos))
						require.NoError(t, AppendKV(vh2, v, pos))
						require.Equal(t, read(t, kh2), read(t, kh), "keys, host position")
						require.Equal(t, read(t, vh2), read(t, vh), "values, host position")
					})
				}
			}
		}
	})
}

// TestAppendKVPairErrors checks the pair appends' argument errors.
func TestAppendKVPairErrors(t *testing.T) {
	dev := cpuDevice(t)
	mk := func(d DType, shape ...int) *Tensor { return zerosFor(t, dev, d, shape...) }
	kc, vc, x, at := mk(Float32, 2, 8, 4), mk(Float32, 2, 8, 4), mk(Float32, 1, 2, 4), mk(Int32, 1)
	view, err := mk(Float32, 2, 9, 4).Slice(1, 1, 9)
	require.NoError(t, err)
	t.Cleanup(func() { _ = view.Close() })
	tests := []struct {
		name string
		f    func() error
		msg  string
	}{
		{"caches differ", func() error { return AppendKVPairAt(kc, mk(Float32, 2, 9, 4), x, x, at) }, "caches of one shape"},
		{"cache dtypes differ", func() error { return AppendKVPairAt(kc, mk(BFloat16, 2, 8, 4), x, x, at) }, "bfloat16"},
		{"value cache a view", func() error { return AppendKVPairAt(kc, view, x, x, at) }, "value cache is a view"},
		{"keys wrong heads", func() error { return AppendKVPairAt(kc, vc, mk(Float32, 1, 3, 4), x, at) }, "want [n 2 4] both"},
		{"values another length", func() error { return AppendKVPairAt(kc, vc, x, mk(Float32, 2, 2, 4), at) }, "want [n 2 4] both"},
		{"values another dtype", func() error { return AppendKVPairAt(kc, vc, x, mk(Float16, 1, 2, 4), at) }, "float16"},
		{"nil position", func() error { return AppendKVPairAt(kc, vc, x, x, nil) }, "nil tensor"},
		{"float position", func() error { return AppendKVPairAt(kc, vc, x, x, mk(Float32, 1)) }, "Int32"},
		{"host position past the caches", func() error { return AppendKVPair(kc, vc, x, x, 8) }, "positions 8..8 outside the caches' 8"},
		{"negative host position", func() error { return AppendKVPair(kc, vc, x, x, -1) }, "positions -1..-1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.f()
			require.Error(t, err)
			require.Contains(t, err.Error(), tc.msg)
			require.True(t, errors.Is(err, errors.InvalidArgument), "%v", err)
		})
	}
}
