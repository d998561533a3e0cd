package tensor

// coalesce simplifies the layout of operands that share shape (each with its
// strides) for the element-wise kernels: dimensions of size 1 go, and a
// dimension merges into the one before it when every operand lays the two
// out as one (the outer stride is the inner stride times the inner size).
// Row-major order over the result is row-major order over shape, so a
// contiguous output is indexed the same; the kernels skip the index
// arithmetic when one dimension is left. An empty shape stays as it is.
func coalesce(shape []int, strides ...[]int) ([]int, [][]int) {
	if numel(shape) == 0 {
		return shape, strides
	}
	var out []int
	outS := make([][]int, len(strides))
	for d, size := range shape {
		if size == 1 {
			continue
		}
		if last := len(out) - 1; last >= 0 {
			merge := true
			for k := range strides {
				if outS[k][last] != strides[k][d]*size {
					merge = false
					break
				}
			}
			if merge {
				out[last] *= size
				for k := range strides {
					outS[k][last] = strides[k][d]
				}
				continue
			}
		}
		out = append(out, size)
		for k := range strides {
			outS[k] = append(outS[k], strides[k][d])
		}
	}
	for k := range outS {
		if outS[k] == nil {
			outS[k] = []int{}
		}
	}
	if out == nil {
		out = []int{}
	}
	return out, outS
}
