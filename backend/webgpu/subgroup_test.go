//go:build cgo

package webgpu_test

import (
	"testing"

	"github.com/anygpu/gpu/backend/backendtest"
	"github.com/anygpu/gpu/backend/webgpu"
	"github.com/stretchr/testify/require"
)

// TestSubgroupVariant runs a kernel with subgroup operations on the real
// path where the device has WGSL's subgroups (Extra["subgroups"]; the size
// is then above 1, and the WarpSize where the adapter reports one) and with
// EnvSubgroups "off" (subgroups of one thread); the sum, lane and first
// lane agree with the size, which is the same in every thread.
func TestSubgroupVariant(t *testing.T) {
	dev := openDev(t)
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
			size := backendtest.SubgroupProbe(t, dev, 64)
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
		})
	}
}
