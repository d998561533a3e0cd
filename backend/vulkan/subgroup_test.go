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
// path (the device's subgroups, Source.Subgroups) and with EnvSubgroups
// "off" (subgroups of one thread): the size is the device's WarpSize, or 1,
// and the sum, lane and first lane agree with it.
func TestSubgroupVariant(t *testing.T) {
	dev := openDevice(t)
	src, err := kernel.Translate(subgroupProbeSrc)
	require.NoError(t, err)
	require.NotNil(t, src.Subgroups, "the kernel uses subgroup operations")
	warp := uint32(dev.Info().WarpSize)
	for _, tc := range []struct {
		name, env string
		size      uint32
	}{
		{"real", "", warp},
		{"off", "off", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(vulkan.EnvSubgroups, tc.env)
			ctx := context.Background()
			mod, err := dev.Compile(ctx, src)
			require.NoError(t, err)
			defer func() { _ = mod.Close() }()
			k, err := mod.Kernel("SubgroupProbe")
			require.NoError(t, err)
			const block, groups = 64, 2
			out, err := gpu.AllocSlice[uint32](dev, 4*block*groups)
			require.NoError(t, err)
			defer func() { _ = out.Close() }()
			st := dev.DefaultStream()
			require.NoError(t, st.Launch(k, gpu.D1(groups), gpu.D1(block), gpu.Buf(out)))
			got, err := gpu.ToSlice[uint32](ctx, out)
			require.NoError(t, err)
			for i := range uint32(block * groups) {
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
