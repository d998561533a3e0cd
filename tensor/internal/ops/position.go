package ops

import "github.com/anygpu/gpu/kernel"

// advance adds by to the n elements x[off..off+n-1] of an int32 tensor in
// place, wrapping on overflow (by is an int32's bits): it moves a position
// that lives on the device, so that a captured step advances its own.
// Threads take the elements grid-stride.
//
//gpu:kernel
func advance(x []uint32, n, off, by uint32) {
	step := kernel.GroupSizeX() * kernel.GridX()
	for i := kernel.GroupX()*kernel.GroupSizeX() + kernel.ThreadX(); i < n; i += step {
		x[off+i] += by
		if last(i, step, n) {
			break
		}
	}
}
