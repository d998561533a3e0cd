package backendtest

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/kernel"
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

// SubgroupProbe translates a kernel with subgroup operations, compiles it on
// dev (with the environment the caller set, such as a backend's
// EnvSubgroups), runs it over two groups of block threads, and checks that
// every thread saw the same subgroup size, a sum of ones equal to it (whole
// subgroups), its lane, and its subgroup's first thread, subgroups being
// consecutive threads. It returns the size, for the caller to compare with
// what it expects of the path it chose (1 on the portable one).
func SubgroupProbe(t *testing.T, dev *gpu.Device, block uint32) uint32 {
	t.Helper()
	src, err := kernel.Translate(subgroupProbeSrc)
	require.NoError(t, err)
	require.NotNil(t, src.Subgroups, "the kernel uses subgroup operations")
	ctx := context.Background()
	mod, err := dev.Compile(ctx, src)
	require.NoError(t, err)
	defer func() { _ = mod.Close() }()
	k, err := mod.Kernel("SubgroupProbe")
	require.NoError(t, err)
	const groups = 2
	out, err := gpu.AllocSlice[uint32](dev, int(4*block*groups))
	require.NoError(t, err)
	defer func() { _ = out.Close() }()
	require.NoError(t, dev.DefaultStream().Launch(k, gpu.D1(groups), gpu.D1(int(block)), gpu.Buf(out)))
	got, err := gpu.ToSlice[uint32](ctx, out)
	require.NoError(t, err)
	size := got[0]
	require.Positive(t, size)
	for i := range block * groups {
		tid := i % block
		require.Equal(t, []uint32{size, size, tid % size, tid - tid%size}, got[4*i:4*i+4], "thread %d", i)
	}
	return size
}
