package vulkan_test

import (
	"testing"

	"github.com/anygpu/gpu/backend/backendtest"
	"github.com/anygpu/gpu/backend/vulkan"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSubgroupVariant runs a kernel with subgroup operations on the real
// path (the device's subgroups, Source.Subgroups), with a block that is not
// a whole number of subgroups (its portable form) and with EnvSubgroups
// "off" (subgroups of one thread): the size is the device's WarpSize, or 1,
// and the sum, lane and first lane agree with it.
func TestSubgroupVariant(t *testing.T) {
	dev := openDevice(t)
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
			require.Equal(t, tc.size, backendtest.SubgroupProbe(t, dev, tc.block))
		})
	}
	t.Logf("subgroups of %d on the real path; full_subgroups %q", warp, dev.Info().Extra["full_subgroups"])
	assert.Positive(t, warp)
	requireNoValidationMessages(t)
}
