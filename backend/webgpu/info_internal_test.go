//go:build cgo

package webgpu

import (
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu/backend"
)

// TestEstimatedUnits checks the compute units reported for GPUs whose count
// WebGPU hides: at least what large GPUs of the type have (grids sized for
// fewer leave most of the device idle), and not absurdly many.
func TestEstimatedUnits(t *testing.T) {
	for _, tc := range []struct {
		typ         backend.DeviceType
		least, most int
	}{
		{backend.TypeDiscreteGPU, 100, 512}, // H100/H200 132 SMs, RTX 4090 128
		{backend.TypeIntegratedGPU, 16, 128},
		{backend.TypeUnknown, 16, 128},
	} {
		t.Run(tc.typ.String(), func(t *testing.T) {
			u := estimatedUnits(tc.typ)
			assert.GreaterOrEqual(t, u, tc.least)
			assert.LessOrEqual(t, u, tc.most)
		})
	}
}

// TestDeviceInfoUnits checks Units of the adapters found: a software
// adapter's are the host's cores, a GPU's the estimate, never 1.
func TestDeviceInfoUnits(t *testing.T) {
	list, err := enumerate()
	if err != nil || len(list) == 0 {
		t.Skip("no WebGPU adapter")
	}
	defer releaseAdapters(list, -1)
	for i, e := range list {
		info := deviceInfo(i, e, e.limits)
		require.Positive(t, info.Units, info.Name)
		if info.Type == backend.TypeSoftware {
			assert.Equal(t, runtime.NumCPU(), info.Units, info.Name)
			assert.NotContains(t, info.Extra, "units", info.Name)
			continue
		}
		assert.Equal(t, estimatedUnits(info.Type), info.Units, info.Name)
		assert.Contains(t, info.Extra["units"], "estimate", info.Name)
	}
}
