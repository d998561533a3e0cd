package vulkan_test

import (
	"context"
	"testing"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/backend/vulkan"
	"github.com/anygpu/gpu/kernel"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// subgroupProbeSrc writes, per thread, what the subgroup operations see:
// the size, the subgroup's sum of ones, the lane, and lane 0's thread index.
const subgroupProbeSrc = `package probe

import "github.com/anygpu/gpu/kernel"

//gpu:kernel
func SubgroupProbe(out []uint32) {
	i := kernel.GlobalX()
	out[4*i] = kernel.SubgroupSize()
	out[4*i+1] = kernel.SubgroupAdd(uint32(1))
	out[4*i+2] = kernel.SubgroupInvocationID()
	out[4*i+3] = kernel.SubgroupBroadcastFirst(kernel.ThreadIndex())
}
`

// TestSubgroupVariant runs a kernel with subgroup operations on the real
// path (the device's subgroups, Source.Subgroups), with a block that is not
// a whole number of subgroups (its portable form) and with EnvSubgroups
// "off" (subgroups of one thread): the size is the device's WarpSize, or 1,
// and the sum, lane and first lane agree with it.
func TestSubgroupVariant(t *testing.T) {
	dev := openDevice(t)
	src, err := kernel.Translate(subgroupProbeSrc)
	require.NoError(t, err)
	require.NotNil(t, src.Subgroups, "the kernel uses subgroup operations")
	warp := uint32(dev.Info().WarpSize)
	partial := max(3*warp/2, 1) // 1.5 subgroups
	partialSize := warp
	if partial%warp != 0 {
		partialSize = 1
	}
	for _, tc := range []struct {
		name, env   string
		block, size uint32
	}{
		{"real", "", 64, warp},
		{"partial subgroup", "", partial, partialSize},
		{"off", "off", 64, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(vulkan.EnvSubgroups, tc.env)
			ctx := context.Background()
			mod, err := dev.Compile(ctx, src)
			require.NoError(t, err)
			defer func() { _ = mod.Close() }()
			k, err := mod.Kernel("SubgroupProbe")
			require.NoError(t, err)
			const groups = 2
			block := tc.block
			out, err := gpu.AllocSlice[uint32](dev, int(4*block*groups))
			require.NoError(t, err)
			defer func() { _ = out.Close() }()
			st := dev.DefaultStream()
			require.NoError(t, st.Launch(k, gpu.D1(groups), gpu.D1(int(block)), gpu.Buf(out)))
			got, err := gpu.ToSlice[uint32](ctx, out)
			require.NoError(t, err)
			for i := range block * groups {
				tid := i % block
				v := got[4*i : 4*i+4]
				require.Equal(t, []uint32{tc.size, tc.size, tid % tc.size, tid - tid%tc.size}, v, "thread %d", i)
			}
		})
	}
	t.Logf("subgroups of %d on the real path; full_subgroups %q", warp, dev.Info().Extra["full_subgroups"])
	assert.Positive(t, warp)
	requireNoValidationMessages(t)
}
