package tensor

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/tensor/internal/ops"
)

// TestAttentionFlashKernel: prefills take the flash kernel their head
// dimension needs where the device's groups have its shared memory, and
// only where a block kernel would take them (attend asks in that order).
func TestAttentionFlashKernel(t *testing.T) {
	tests := []struct {
		nq, dim, shared int
		off             bool
		want            string
	}{
		{nq: 15, dim: 64, shared: 48 << 10, want: ""}, // a decode-sized batch: the split per-query kernel
		{nq: 16, dim: 64, shared: 48 << 10, want: "attentionFlash"},
		{nq: 1024, dim: 1, shared: 0, want: "attentionFlash"}, // not reported
		{nq: 1024, dim: 64, shared: 16 << 10, want: ""},       // WebGPU's default limit
		{nq: 1024, dim: 64, shared: ops.AttentionFlashShared, want: "attentionFlash"},
		{nq: 4096, dim: 65, shared: 32 << 10, want: "attentionFlashWide"}, // llvmpipe's GLES
		{nq: 4096, dim: 128, shared: ops.AttentionFlashWideShared, want: "attentionFlashWide"},
		{nq: 4096, dim: 128, shared: ops.AttentionFlashWideShared - 1, want: ""},
		{nq: 4096, dim: 129, shared: 48 << 10, want: ""},
		{nq: 4096, dim: 64, shared: 48 << 10, off: true, want: ""},
	}
	for _, tc := range tests {
		require.Equal(t, tc.want, attentionFlashKernel(tc.nq, tc.dim, tc.shared, tc.off), "%+v", tc)
	}
	for _, nq := range []int{1, 15, 16, 33, 4096} {
		for _, dim := range []int{1, 64, 65, 128, 129, 256} {
			for _, shared := range []int{0, 16 << 10, 24 << 10, 28 << 10, 32 << 10, 48 << 10} {
				if attentionFlashKernel(nq, dim, shared, false) != "" {
					block, _ := attentionBlockKernel(nq, dim, shared)
					require.NotEmpty(t, block, "nq %d dim %d shared %d: flash where no block kernel is", nq, dim, shared)
				}
			}
		}
	}
	require.LessOrEqual(t, ops.AttentionFlashShared, 32<<10, "within OpenGL's 32 KiB")
	require.LessOrEqual(t, ops.AttentionFlashWideShared, 32<<10, "within OpenGL's 32 KiB")
	forEachDevice(t, func(t *testing.T, dev *gpu.Device) {
		shared := stateOf(dev).info().SharedMemPerBlock
		t.Logf("shared memory per group %d: head dimension 64 takes %q, 128 %q", shared,
			attentionFlashKernel(1024, 64, shared, false), attentionFlashKernel(1024, 128, shared, false))
	})
}

// TestFlashSplits: the ranges cover the keys in whole key tiles, none is
// empty or shorter than flashLeastKeys, a prefill that fills the device is
// not split, and GPT-2's prefill on an H200 is.
func TestFlashSplits(t *testing.T) {
	tests := []struct{ groups, keys, units int }{
		{1, 1, 1}, {384, 1024, 132}, {4096, 4096, 132}, {1, 129, 132}, {12, 100000, 132}, {2, 300, 0}, {20, 300, 132}, {3, 4096, 2},
	}
	for _, tc := range tests {
		splits, kchunk := flashSplits(tc.groups, tc.keys, tc.units)
		require.Positive(t, splits, "%+v", tc)
		require.GreaterOrEqual(t, splits*kchunk, tc.keys, "%+v", tc)
		require.Less(t, (splits-1)*kchunk, tc.keys, "%+v: an empty range", tc)
		if splits > 1 {
			require.Zero(t, kchunk%32, "%+v: whole key tiles", tc)
			require.GreaterOrEqual(t, kchunk, flashLeastKeys, "%+v", tc)
			require.Less(t, tc.groups, flashUnitGroups*max(1, tc.units), "%+v: split though the groups fill the device", tc)
		}
	}
	splits, kchunk := flashSplits(32*12, 1024, 132)
	require.Equal(t, [2]int{3, 352}, [2]int{splits, kchunk}, "GPT-2's prefill on 132 units")
	splits, _ = flashSplits(128*32, 4096, 132)
	require.Equal(t, 1, splits, "32 heads of 4096 queries fill 132 units")
}

// TestAttentionFlashPrefill runs prefills long enough to be split on a
// device of many units (the simulated H100 among them) and a second chunk
// continuing the cache, through Attention, against attention in float64.
func TestAttentionFlashPrefill(t *testing.T) {
	t.Setenv(EnvAttentionTC, "off")
	forEachDevice(t, func(t *testing.T, dev *gpu.Device) {
		for _, tc := range []struct{ heads, dim, prompt, chunk int }{{2, 64, 300, 70}, {1, 96, 260, 33}} {
			for _, d := range []DType{Float32, BFloat16} {
				t.Run(fmt.Sprintf("%s/%d heads of %d, prompt %d + %d", d, tc.heads, tc.dim, tc.prompt, tc.chunk), func(t *testing.T) {
					checkPrefill(t, dev, d, tc.heads, tc.dim, tc.prompt, tc.chunk)
				})
			}
		}
	})
}

// checkPrefill runs a prefill of prompt queries of heads heads of dim
// dimensions and then a chunk of chunk more through AppendKV and Attention
// on dev, each against attention in float64 (attentionTolerance), logging
// the kernel that took each.
func checkPrefill(t *testing.T, dev *gpu.Device, d DType, heads, dim, prompt, chunk int) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(5, uint64(prompt)))
	total := prompt + chunk
	qkv, qkvh := input{base: []int{total, 3, heads, dim}}.makeAs(t, dev, d, rng, -2, 2)
	part := func(which, from, to int) *Tensor {
		s, err := qkv.Slice(1, which, which+1)
		require.NoError(t, err)
		defer s.Close()
		r, err := s.Slice(0, from, to)
		require.NoError(t, err)
		defer r.Close()
		v, err := r.Reshape(to-from, heads, dim)
		require.NoError(t, err)
		t.Cleanup(func() { _ = v.Close() })
		return v
	}
	hpart := func(which, from, to int) hostND {
		s := qkvh.slice(1, which, which+1).slice(0, from, to)
		return hostND{shape: []int{to - from, heads, dim}, data: s.data}
	}
	kc, err := Zeros(ctx, dev, d, heads, total, dim)
	require.NoError(t, err)
	defer kc.Close()
	vc, err := Zeros(ctx, dev, d, heads, total, dim)
	require.NoError(t, err)
	defer vc.Close()
	scale := 1 / math.Sqrt(float64(dim))
	info := stateOf(dev).info()
	for _, r := range [][2]int{{0, prompt}, {prompt, total}} {
		pos, n := r[0], r[1]-r[0]
		q := part(0, pos, pos+n)
		name := attentionTCKernel(q, dim, info, attentionTCEnv())
		if name == "" {
			name = attentionFlashKernel(n, dim, info.SharedMemPerBlock, attentionFlashOff())
		}
		t.Logf("%s at %d: %q", dev.Backend(), pos, name)
		require.NoError(t, AppendKV(kc, part(1, pos, pos+n), pos))
		require.NoError(t, AppendKV(vc, part(2, pos, pos+n), pos))
		got, err := Attention(q, kc, vc, pos, float32(scale))
		require.NoError(t, err)
		want := attentionHost(hpart(0, pos, pos+n), hpart(1, 0, pos+n), hpart(2, 0, pos+n), pos, scale)
		vals, err := got.ToFloat32(ctx)
		require.NoError(t, err)
		require.NoError(t, got.Close())
		requireClose(t, want, vals, attentionTolerance(dev, q, dim, tolerance{abs: 1e-5, rel: 1e-5}), "attention")
	}
}
