//go:build linux

package opengl_test

import (
	"strings"
	"testing"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/backend/opengl"
	"github.com/anygpu/gpu/kernel"
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
// path where the context has GL_KHR_shader_subgroup's basic, arithmetic and
// ballot features in the compute stage (the size is then the device's
// WarpSize), else, and always with EnvSubgroups "off", with subgroups of
// one thread; the sum, lane and first lane agree with the size.
func TestSubgroupVariant(t *testing.T) {
	dev := openDevice(t)
	src, err := kernel.Translate(subgroupProbeSrc)
	require.NoError(t, err)
	require.NotNil(t, src.Subgroups, "the kernel uses subgroup operations")
	info := dev.Info()
	onReal := uint32(1)
	ops := "," + info.Extra["subgroup_ops"] + ","
	if strings.Contains(ops, ",basic,") && strings.Contains(ops, ",arithmetic,") && strings.Contains(ops, ",ballot,") {
		onReal = uint32(info.WarpSize)
	}
	t.Logf("subgroup_ops %q: subgroups of %d on the real path", info.Extra["subgroup_ops"], onReal)
	for _, tc := range []struct {
		name, env string
		size      uint32
	}{
		{"real", "", onReal},
		{"off", "off", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(opengl.EnvSubgroups, tc.env)
			mod, err := dev.Compile(ctx(t), src)
			require.NoError(t, err)
			defer func() { _ = mod.Close() }()
			k, err := mod.Kernel("SubgroupProbe")
			require.NoError(t, err)
			const block, groups = 64, 2
			out, err := gpu.AllocSlice[uint32](dev, 4*block*groups)
			require.NoError(t, err)
			defer func() { _ = out.Close() }()
			require.NoError(t, dev.DefaultStream().Launch(k, gpu.D1(groups), gpu.D1(block), gpu.Buf(out)))
			got, err := gpu.ToSlice[uint32](ctx(t), out)
			require.NoError(t, err)
			for i := range uint32(block * groups) {
				tid := i % block
				require.Equal(t, []uint32{tc.size, tc.size, tid % tc.size, tid - tid%tc.size}, got[4*i:4*i+4], "thread %d", i)
			}
		})
	}
}
