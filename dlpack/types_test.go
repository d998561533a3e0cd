package dlpack

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDataType(t *testing.T) {
	for _, tc := range []struct {
		t     DataType
		bytes int64
		name  string
	}{
		{Float32, 4, "float32"},
		{Float64, 8, "float64"},
		{Float16, 2, "float16"},
		{BFloat16, 2, "bfloat16"},
		{Int32, 4, "int32"},
		{Uint8, 1, "uint8"},
		{DataType{Int, 8, 4}, 4, "int8x4"},
		{DataType{Bool, 1, 1}, 0, "bool1"}, // not whole bytes
		{DataType{Float, 32, 0}, 0, "float32x0"},
	} {
		require.Equal(t, tc.bytes, tc.t.Bytes(), tc.name)
		require.Equal(t, tc.name, tc.t.String())
	}
}

func TestShapes(t *testing.T) {
	for _, tc := range []struct {
		shape, strides []int64
		elements       int64
		compact, bad   bool
	}{
		{nil, nil, 1, true, false}, // a scalar
		{[]int64{4, 5}, nil, 20, true, false},
		{[]int64{4, 5}, []int64{5, 1}, 20, true, false},
		{[]int64{4, 5}, []int64{1, 4}, 20, false, false},       // column-major
		{[]int64{4, 1, 5}, []int64{5, 99, 1}, 20, true, false}, // a size-1 dimension's stride does not matter
		{[]int64{4, 5}, []int64{5}, 20, false, false},
		{[]int64{0, 5}, nil, 0, true, false},
		{[]int64{-1}, nil, 0, true, true},
		{[]int64{1 << 40, 1 << 40}, nil, 0, true, true},
	} {
		n, err := elements(tc.shape)
		if tc.bad {
			require.Error(t, err, "%v", tc.shape)
			continue
		}
		require.NoError(t, err)
		require.Equal(t, tc.elements, n, "%v", tc.shape)
		require.Equal(t, tc.compact, compact(tc.shape, tc.strides), "%v %v", tc.shape, tc.strides)
	}
}

// TestNilValues: the methods of nil or zero Exported and Imported values do
// nothing and do not panic; Import and Export refuse nil with an error.
func TestNilValues(t *testing.T) {
	var e *Exported
	assert.Nil(t, e.Pointer())
	assert.False(t, e.Deleted())
	assert.False(t, (&Exported{}).Deleted())
	var in *Imported
	assert.NoError(t, in.Close())
	assert.NoError(t, (&Imported{}).Close())
	_, err := Export(nil, Float32, []int64{4})
	assert.Error(t, err)
	_, err = ExportOwned(nil, Float32, []int64{4})
	assert.Error(t, err)
	_, err = Import(nil, nil)
	assert.Error(t, err)
}
