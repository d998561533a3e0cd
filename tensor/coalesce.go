package tensor

// maxOperands is the most operands coalesced shares a layout among.
const maxOperands = 3

// layout is a coalesced view of up to maxOperands operands of one shape,
// held in place (no allocation): rank sizes and each operand's strides.
type layout struct {
	rank    int
	shape   [MaxRank]int
	strides [maxOperands][MaxRank]int
}

// coalesced simplifies the layout of operands that share shape (each with
// its strides: at most maxOperands of them, of at most MaxRank dimensions)
// for the element-wise kernels: dimensions of size 1 go, and a dimension
// merges into the one before it when every operand lays the two out as one
// (the outer stride is the inner stride times the inner size). Row-major
// order over the result is row-major order over shape, so a contiguous
// output is indexed the same; the kernels skip the index arithmetic when one
// dimension is left. An empty shape stays as it is.
func coalesced(shape []int, strides ...[]int) layout {
	var l layout
	if numel(shape) == 0 {
		l.rank = copy(l.shape[:], shape)
		for k, s := range strides {
			copy(l.strides[k][:], s)
		}
		return l
	}
	for d, size := range shape {
		if size == 1 {
			continue
		}
		if last := l.rank - 1; last >= 0 {
			merge := true
			for k := range strides {
				if l.strides[k][last] != strides[k][d]*size {
					merge = false
					break
				}
			}
			if merge {
				l.shape[last] *= size
				for k := range strides {
					l.strides[k][last] = strides[k][d]
				}
				continue
			}
		}
		l.shape[l.rank] = size
		for k := range strides {
			l.strides[k][l.rank] = strides[k][d]
		}
		l.rank++
	}
	return l
}
