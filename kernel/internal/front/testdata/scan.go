package kernels

import "github.com/anygpu/gpu/kernel"

// ScanBlock is an inclusive Hillis-Steele scan of each group's 256 values.
//
//gpu:kernel
func ScanBlock(out, in []uint32, n uint32) {
	buf := kernel.Shared[[2][256]uint32]()
	t := kernel.ThreadX()
	i := kernel.GlobalX()
	var v uint32
	if i < n {
		v = in[i]
	}
	src := uint32(0)
	buf[src][t] = v
	kernel.Barrier()
	for off := uint32(1); off < kernel.GroupSizeX(); off <<= 1 {
		dst := 1 - src
		buf[dst][t] = buf[src][t]
		if t >= off {
			buf[dst][t] += buf[src][t-off]
		}
		src = dst
		kernel.Barrier()
	}
	if i < n {
		out[i] = buf[src][t]
	}
}

// Softmax normalizes each row of a rows×cols matrix, one group per row.
//
//gpu:kernel
func Softmax(out, in []float32, rows, cols uint32) {
	red := kernel.Shared[[256]float32]()
	row := kernel.GroupX()
	if row >= rows {
		return
	}
	t := kernel.ThreadX()
	m := float32(-3.4e38)
	for c := t; c < cols; c += kernel.GroupSizeX() {
		m = max(m, in[row*cols+c])
	}
	red[t] = m
	kernel.Barrier()
	for s := kernel.GroupSizeX() / 2; s > 0; s /= 2 {
		if t < s {
			red[t] = max(red[t], red[t+s])
		}
		kernel.Barrier()
	}
	m = red[0]
	kernel.Barrier()
	var sum float32
	for c := t; c < cols; c += kernel.GroupSizeX() {
		e := kernel.Exp(in[row*cols+c] - m)
		out[row*cols+c] = e
		sum += e
	}
	red[t] = sum
	kernel.Barrier()
	for s := kernel.GroupSizeX() / 2; s > 0; s /= 2 {
		if t < s {
			red[t] += red[t+s]
		}
		kernel.Barrier()
	}
	inv := 1 / red[0]
	for c := t; c < cols; c += kernel.GroupSizeX() {
		out[row*cols+c] *= inv
	}
}
