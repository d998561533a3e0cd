package kernels

import "github.com/anygpu/gpu/kernel"

// FirstMatch finds, for each row of an n×m matrix, the first column whose
// value equals some value of the row's key list, or m.
//
//gpu:kernel
func FirstMatch(out []uint32, mat, keys []int32, n, m, nkeys uint32) {
	row := kernel.GlobalX()
	if row >= n {
		return
	}
	out[row] = m
cols:
	for c := uint32(0); c < m; c++ {
		v := mat[row*m+c]
		if v < 0 {
			continue cols
		}
		for k := range nkeys {
			if keys[k] == v {
				out[row] = c
				break cols
			}
			if keys[k] > v {
				continue cols
			}
		}
	}
}

// Triangles counts, per thread, index triples i<j<l below n with the sum of
// their values divisible by 7, stopping at limit.
//
//gpu:kernel
func Triangles(count []uint32, vals []uint32, n, limit uint32) {
	var found uint32
outer:
	for i := uint32(0); i < n; i++ {
		for j := i + 1; j < n; j++ {
		inner:
			for l := j + 1; l < n; l++ {
				if (vals[i]+vals[j]+vals[l])%7 != 0 {
					continue inner
				}
				found++
				if found >= limit {
					break outer
				}
				if vals[l] == 0 {
					continue outer
				}
			}
		}
	}
	count[kernel.GlobalX()] = found
}
