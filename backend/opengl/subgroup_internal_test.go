//go:build linux

package opengl

import (
	"testing"

	"github.com/anygpu/gpu/internal/kernelcorpus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The GL_KHR_shader_subgroup features each corpus kernel's subgroup GLSL
// section requires, read from its #extension lines; a kernel without a
// section has none.
func TestSubgroupNeeds(t *testing.T) {
	sg := kernelcorpus.Kernels.Subgroups
	require.NotNil(t, sg)
	for _, tc := range []struct {
		kernel string
		want   string
		found  bool
	}{
		{"SubgroupReduce", "basic,arithmetic,shuffle", true},
		{"SubgroupScan", "basic,shuffle", true},
		{"SubgroupLanes", "basic,ballot,shuffle", true},
		{"Saxpy", "", false},
	} {
		t.Run(tc.kernel, func(t *testing.T) {
			for _, text := range []string{sg.GLSL, sg.GLSLES} {
				need, ok := subgroupNeeds(text, tc.kernel)
				assert.Equal(t, tc.found, ok)
				assert.Equal(t, tc.want, subgroupOpsString(need))
			}
		})
	}
	_, ok := subgroupNeeds("#ifdef ANYGPU_KERNEL_K\n#extension GL_KHR_shader_subgroup_future : require\n#endif // ANYGPU_KERNEL_K\n", "K")
	assert.False(t, ok, "an unknown feature keeps the portable form")
}
