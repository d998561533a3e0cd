package tensor

import (
	"testing"

	"github.com/anygpu/gpu"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestGeometryFromDeviceInfo: launches follow the device, not the caller.
func TestGeometryFromDeviceInfo(t *testing.T) {
	var sim *gpu.Device
	for _, d := range devices {
		if d.name == simDevice {
			require.NoError(t, d.err)
			sim = d.dev
		}
	}
	info := sim.Info()
	require.Equal(t, 132, info.Units, "the H100 preset")
	ds := stateOf(sim)
	k, err := ds.entry("unary")
	require.NoError(t, err)
	assert.Equal(t, elementBlock, ds.blockSize(k, elementBlock))
	kr, err := ds.entry("softmaxRows")
	require.NoError(t, err)
	assert.Equal(t, rowBlock, ds.blockSize(kr, rowBlock))
	perUnit := max(4, 2*info.MaxThreadsPerUnit/elementBlock)
	assert.Equal(t, 132*perUnit, ds.gridSize(1<<24, elementBlock), "a large op fills every unit, and strides")
	assert.Equal(t, 4, ds.gridSize(1000, elementBlock), "a small one takes the groups it needs")
	assert.Equal(t, 1, ds.gridSize(1, elementBlock))

	cpu := stateOf(cpuDevice(t))
	units := cpuDevice(t).Info().Units
	assert.LessOrEqual(t, cpu.gridSize(1<<24, elementBlock), max(1, units)*max(4, 2*cpuDevice(t).Info().MaxThreadsPerUnit/elementBlock))
}
