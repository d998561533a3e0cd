package kernels

import "github.com/anygpu/gpu/kernel"

//gpu:kernel
func Saxpy(y, x []float32, n uint32, a float32) {
	i := kernel.GlobalX()
	if i < n {
		y[i] = a*x[i] + y[i]
	}
}
