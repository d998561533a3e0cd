package tensor

import (
	"testing"

	"github.com/anygpu/gpu"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu/tensor/internal/ops"
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

// TestArgList: the arguments a launch collects in place, as the kernels
// take them (views padded to rank 6 in front, row views' outer dimensions
// coalesced), and none at all past maxArgs.
func TestArgList(t *testing.T) {
	words := func(args []gpu.Arg) []uint64 {
		out := make([]uint64, len(args))
		for i, a := range args {
			out[i] = a.Bits()
		}
		return out
	}
	tests := []struct {
		name  string
		build func(l *argList)
		want  []uint64 // nil: no arguments (overflow)
	}{
		{"scalars", func(l *argList) { l.u32(1, 2, 3) }, []uint64{1, 2, 3}},
		{"view padded in front", func(l *argList) { l.view(5, []int{2, 3}, []int{3, 1}) },
			[]uint64{5, 1, 1, 1, 1, 2, 3, 0, 0, 0, 0, 3, 1}},
		{"row view: outer dimensions coalesced", func(l *argList) { l.rows(7, []int{2, 3, 4}, []int{12, 4, 1}) },
			[]uint64{7, 1, 1, 1, 1, 6, 0, 0, 0, 0, 4, 1}},
		{"row view of a transposed matrix", func(l *argList) { l.rows(0, []int{4, 3}, []int{1, 4}) },
			[]uint64{0, 1, 1, 1, 1, 4, 0, 0, 0, 0, 1, 4}},
		{"exactly maxArgs", func(l *argList) { l.u32(make([]int, maxArgs)...) }, make([]uint64, maxArgs)},
		{"one past maxArgs", func(l *argList) { l.u32(make([]int, maxArgs)...); l.u32(1) }, nil},
		{"padded past maxArgs", func(l *argList) { l.u32(make([]int, maxArgs-3)...); l.padded([]int{1}, MaxRank, 1) }, nil},
		{"add past maxArgs", func(l *argList) { l.u32(make([]int, maxArgs)...); l.add(gpu.F32(1)) }, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var l argList
			tc.build(&l)
			if tc.want == nil {
				assert.Nil(t, l.args())
				return
			}
			assert.Equal(t, tc.want, words(l.args()))
		})
	}
}

// TestDTypeKernelsExist: every kernel the ops launch by dtype is in the
// package's Source (a //gpu:variant line of package ops names it), with the
// generic kernel's parameters.
func TestDTypeKernelsExist(t *testing.T) {
	all := append([]dtypeKernels{unaryKernels, geluKernels, binaryKernels, reduceVecKernels}, leanKernels[:]...)
	all = append(all, leanVecKernels[:]...)
	for _, k := range all {
		want, ok := ops.Kernels.Params[k.any]
		require.True(t, ok, "kernel %s", k.any)
		for _, d := range []DType{Float32, BFloat16, Float16, Int32} {
			name := k.of(d)
			require.Contains(t, ops.Kernels.Params, name)
			require.Equal(t, want, ops.Kernels.Params[name], "%s's parameters", name)
			require.Contains(t, ops.Kernels.Go, name)
		}
	}
}
