package kernels

import "github.com/anygpu/gpu/kernel"

const ts = 16

// Sgemm computes c = alpha*a*b + beta*c for row-major m×k a and k×n b, one
// 16×16 tile of c per group.
//
//gpu:kernel
func Sgemm(c, a, b []float32, m, n, k uint32, alpha, beta float32) {
	as := kernel.Shared[[ts][ts]float32]()
	bs := kernel.Shared[[ts][ts]float32]()
	tx, ty := kernel.ThreadX(), kernel.ThreadY()
	row := kernel.GroupY()*ts + ty
	col := kernel.GroupX()*ts + tx
	var acc float32
	tiles := (k + ts - 1) / ts
	for t := range tiles {
		ak := t*ts + tx
		bk := t*ts + ty
		as[ty][tx] = 0
		if row < m && ak < k {
			as[ty][tx] = a[row*k+ak]
		}
		bs[ty][tx] = 0
		if bk < k && col < n {
			bs[ty][tx] = b[bk*n+col]
		}
		kernel.Barrier()
		for i := 0; i < ts; i++ {
			acc = kernel.Fma(as[ty][i], bs[i][tx], acc)
		}
		kernel.Barrier()
	}
	if row < m && col < n {
		c[row*n+col] = alpha*acc + beta*c[row*n+col]
	}
}
