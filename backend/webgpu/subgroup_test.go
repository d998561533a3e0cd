//go:build cgo

package webgpu_test

import (
	"context"
	"testing"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/backend/webgpu"
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
// path where the device has WGSL's subgroups (Extra["subgroups"]; the size
// is then above 1, and the WarpSize where the adapter reports one) and with
// EnvSubgroups "off" (subgroups of one thread); the sum, lane and first
// lane agree with the size, which is the same in every thread.
func TestSubgroupVariant(t *testing.T) {
	dev := openDev(t)
	src, err := kernel.Translate(subgroupProbeSrc)
	require.NoError(t, err)
	require.NotNil(t, src.Subgroups, "the kernel uses subgroup operations")
	info := dev.Info()
	subgroups := info.Extra["subgroups"] != ""
	for _, tc := range []struct {
		name, env string
		real      bool
	}{
		{"real", "", subgroups},
		{"off", "off", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(webgpu.EnvSubgroups, tc.env)
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
			require.NoError(t, dev.DefaultStream().Launch(k, gpu.D1(groups), gpu.D1(block), gpu.Buf(out)))
			got, err := gpu.ToSlice[uint32](ctx, out)
			require.NoError(t, err)
			size := got[0]
			switch {
			case !tc.real:
				require.Equal(t, uint32(1), size)
			case info.WarpSize > 0:
				require.Equal(t, uint32(info.WarpSize), size)
			default:
				require.Greater(t, size, uint32(1))
				require.LessOrEqual(t, size, uint32(128))
				require.Zero(t, size&(size-1), "a power of two")
			}
			t.Logf("subgroups of %d", size)
			for i := range uint32(block * groups) {
				tid := i % block
				require.Equal(t, []uint32{size, size, tid % size, tid - tid%size}, got[4*i:4*i+4], "thread %d", i)
			}
		})
	}
}
