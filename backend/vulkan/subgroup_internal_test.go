//go:build (darwin || freebsd || linux || netbsd || windows) && (amd64 || arm64)

package vulkan

import (
	"testing"

	"github.com/anygpu/gpu/internal/kernelcorpus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The subgroup operations each corpus kernel's subgroup variant needs, read
// from its SPIR-V capabilities: basic always, arithmetic for SubgroupAdd
// and the integer SubgroupMin and SubgroupMax, shuffle for the shuffles and
// the float butterflies, ballot for SubgroupBroadcastFirst.
func TestSubgroupOpsOf(t *testing.T) {
	sg := kernelcorpus.Kernels.Subgroups
	require.NotNil(t, sg)
	for _, tc := range []struct {
		kernel string
		want   string
	}{
		{"SubgroupReduce", "basic,arithmetic,shuffle"},
		{"SubgroupScan", "basic,shuffle"},
		{"SubgroupLanes", "basic,ballot,shuffle"},
	} {
		t.Run(tc.kernel, func(t *testing.T) {
			blob, ok := sg.SPIRVKernels[tc.kernel]
			require.True(t, ok)
			need, err := subgroupOpsOf(blob)
			require.NoError(t, err)
			assert.Equal(t, tc.want, subgroupOpsString(need, 0x20))
		})
	}
	_, err := subgroupOpsOf([]byte{1, 2, 3})
	assert.Error(t, err, "not a module")
	assert.Empty(t, subgroupOpsString(0xff, 0x1), "not in the compute stage")
}
