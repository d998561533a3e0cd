package kernels

import "github.com/anygpu/gpu/kernel"

const bins = 64

// Histogram counts the values of x (each in [0, 1)) into bins, with a
// per-group histogram in shared memory merged into hist by atomics.
//
//gpu:kernel
func Histogram(hist []uint32, x []float32, n uint32) {
	local := kernel.Shared[[bins]uint32]()
	t := kernel.ThreadX()
	for b := t; b < bins; b += kernel.GroupSizeX() {
		local[b] = 0
	}
	kernel.Barrier()
	stride := kernel.GridX() * kernel.GroupSizeX()
	for i := kernel.GlobalX(); i < n; i += stride {
		b := uint32(kernel.Clamp(x[i]*bins, 0, bins-1))
		kernel.AtomicAdd(&local[b], 1)
	}
	kernel.Barrier()
	for b := t; b < bins; b += kernel.GroupSizeX() {
		if c := local[b]; c != 0 {
			kernel.AtomicAdd(&hist[b], c)
		}
	}
}
