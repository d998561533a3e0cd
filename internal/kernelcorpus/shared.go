package kernelcorpus

import "github.com/anygpu/gpu/kernel"

// ReduceSum sums x into one partial per group (blocks of exactly 256 threads).
//
//gpu:kernel
func ReduceSum(out []float32, x []float32, n uint32) {
	sh := kernel.Shared[[256]float32]()
	t := kernel.ThreadX()
	i := kernel.GlobalX()
	v := float32(0)
	if i < n {
		v = x[i]
	}
	sh[t] = v
	kernel.Barrier()
	for s := kernel.GroupSizeX() / 2; s > 0; s >>= 1 {
		if t < s {
			sh[t] += sh[t+s]
		}
		kernel.Barrier()
	}
	if t == 0 {
		out[kernel.GroupX()] = sh[0]
	}
}

// Transpose transposes a rows×cols matrix through 16×16 tiles (blocks 16×16).
//
//gpu:kernel
func Transpose(out, in []float32, rows, cols uint32) {
	tile := kernel.Shared[[16][17]float32]()
	tx, ty := kernel.ThreadX(), kernel.ThreadY()
	c := kernel.GroupX()*16 + tx
	r := kernel.GroupY()*16 + ty
	if r < rows && c < cols {
		tile[ty][tx] = in[r*cols+c]
	}
	kernel.Barrier()
	oc := kernel.GroupY()*16 + tx
	or := kernel.GroupX()*16 + ty
	if or < cols && oc < rows {
		out[or*rows+oc] = tile[tx][ty]
	}
}

// Sgemm is C = alpha·A·B + beta·C, row-major, through 16×16 shared tiles
// (blocks 16×16).
//
//gpu:kernel
func Sgemm(c, a, b []float32, m, n, k uint32, alpha, beta float32) {
	as := kernel.Shared[[16][16]float32]()
	bs := kernel.Shared[[16][16]float32]()
	tx, ty := kernel.ThreadX(), kernel.ThreadY()
	row := kernel.GroupY()*16 + ty
	col := kernel.GroupX()*16 + tx
	acc := float32(0)
	for t0 := uint32(0); t0 < k; t0 += 16 {
		as[ty][tx] = 0
		if row < m && t0+tx < k {
			as[ty][tx] = a[row*k+t0+tx]
		}
		bs[ty][tx] = 0
		if col < n && t0+ty < k {
			bs[ty][tx] = b[(t0+ty)*n+col]
		}
		kernel.Barrier()
		for j := 0; j < 16; j++ {
			acc += as[ty][j] * bs[j][tx]
		}
		kernel.Barrier()
	}
	if row < m && col < n {
		c[row*n+col] = alpha*acc + beta*c[row*n+col]
	}
}

// Scan is an inclusive prefix sum within each group of 128 threads
// (Hillis–Steele, double-buffered in shared memory).
//
//gpu:kernel
func Scan(out, in []uint32, n uint32) {
	buf := kernel.Shared[[2][128]uint32]()
	t := kernel.ThreadX()
	i := kernel.GlobalX()
	v := uint32(0)
	if i < n {
		v = in[i]
	}
	buf[0][t] = v
	kernel.Barrier()
	src := uint32(0)
	for off := uint32(1); off < 128; off *= 2 {
		x := buf[src][t]
		if t >= off {
			x += buf[src][t-off]
		}
		buf[1-src][t] = x
		src = 1 - src
		kernel.Barrier()
	}
	if i < n {
		out[i] = buf[src][t]
	}
}

// SharedReverse reverses each group's slice through shared memory, with a
// value computed before the barrier used after it.
//
//gpu:kernel
func SharedReverse(out, in []int32, n uint32) {
	sh := kernel.Shared[[64]int32]()
	t := kernel.ThreadX()
	i := kernel.GlobalX()
	mine := int32(-1)
	if i < n {
		mine = in[i] * 3
	}
	sh[t] = mine
	kernel.Barrier()
	if i < n {
		out[i] = sh[kernel.GroupSizeX()-1-t] + mine
	}
}
