package tensor

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestCoalesce(t *testing.T) {
	tests := []struct {
		name      string
		shape     []int
		strides   [][]int
		wantShape []int
		want      [][]int
	}{
		{"contiguous", []int{2, 3, 4}, [][]int{{12, 4, 1}}, []int{24}, [][]int{{1}}},
		{"transposed", []int{4, 3}, [][]int{{1, 4}}, []int{4, 3}, [][]int{{1, 4}}},
		{"sliced rows merge inside", []int{2, 3, 4}, [][]int{{20, 4, 1}}, []int{2, 12}, [][]int{{20, 1}}},
		{"sizes 1 dropped", []int{1, 3, 1, 4}, [][]int{{7, 4, 9, 1}}, []int{12}, [][]int{{1}}},
		{"broadcast zeros merge", []int{2, 3, 4}, [][]int{{12, 4, 1}, {0, 0, 1}}, []int{6, 4}, [][]int{{4, 1}, {0, 1}}},
		{"all broadcast", []int{5, 6}, [][]int{{0, 0}}, []int{30}, [][]int{{0}}},
		{"scalar", []int{}, [][]int{{}}, []int{}, [][]int{{}}},
		{"all ones", []int{1, 1}, [][]int{{1, 1}}, []int{}, [][]int{{}}},
		{"empty stays", []int{3, 0}, [][]int{{0, 1}}, []int{3, 0}, [][]int{{0, 1}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := coalesced(tc.shape, tc.strides...)
			assert.Equal(t, tc.wantShape, l.shape[:l.rank])
			strides := make([][]int, len(tc.strides))
			for k := range strides {
				strides[k] = l.strides[k][:l.rank]
			}
			assert.Equal(t, tc.want, strides)
		})
	}
}
