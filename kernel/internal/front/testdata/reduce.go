package kernels

import "github.com/anygpu/gpu/kernel"

const block = 256

// Sum reduces each group's block of x into out[group].
//
//gpu:kernel
func Sum(out, x []float32, n uint32) {
	tile := kernel.Shared[[block]float32]()
	t := kernel.ThreadX()
	i := kernel.GlobalX()
	var v float32
	if i < n {
		v = x[i]
	}
	tile[t] = v
	kernel.Barrier()
	for s := uint32(block / 2); s > 0; s >>= 1 {
		if t < s {
			tile[t] += tile[t+s]
		}
		kernel.Barrier()
	}
	if t == 0 {
		out[kernel.GroupX()] = tile[0]
	}
}
