//go:build linux

package opengl_test

import (
	"strings"
	"testing"

	"github.com/anygpu/gpu/backend/backendtest"
	"github.com/anygpu/gpu/backend/opengl"
	"github.com/stretchr/testify/require"
)

// TestSubgroupVariant runs a kernel with subgroup operations on the real
// path where the context has GL_KHR_shader_subgroup's basic, arithmetic and
// ballot features in the compute stage (the size is then the device's
// WarpSize), else, and always with EnvSubgroups "off", with subgroups of
// one thread; the sum, lane and first lane agree with the size.
func TestSubgroupVariant(t *testing.T) {
	dev := openDevice(t)
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
			require.Equal(t, tc.size, backendtest.SubgroupProbe(t, dev, 64))
		})
	}
}
