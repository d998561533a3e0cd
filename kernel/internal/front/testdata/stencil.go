package kernels

import "github.com/anygpu/gpu/kernel"

// Jacobi does one 5-point Jacobi step on a w×h grid, leaving the border as is.
//
//gpu:kernel
func Jacobi(next, cur []float32, w, h uint32) {
	x, y := kernel.GlobalX(), kernel.GlobalY()
	if x >= w || y >= h {
		return
	}
	i := y*w + x
	if x == 0 || y == 0 || x == w-1 || y == h-1 {
		next[i] = cur[i]
		return
	}
	next[i] = 0.25 * (cur[i-1] + cur[i+1] + cur[i-w] + cur[i+w])
}

// Blur3 averages a 3×3 neighbourhood with clamped edges, through weights in
// a local array.
//
//gpu:kernel
func Blur3(out, in []float32, w, h int32) {
	x, y := int32(kernel.GlobalX()), int32(kernel.GlobalY())
	if x >= w || y >= h {
		return
	}
	var wt [3][3]float32
	for dy := range 3 {
		for dx := range 3 {
			wt[dy][dx] = 1.0 / 9
		}
	}
	var sum float32
	for dy := int32(-1); dy <= 1; dy++ {
		for dx := int32(-1); dx <= 1; dx++ {
			sx := kernel.Clamp(x+dx, 0, w-1)
			sy := kernel.Clamp(y+dy, 0, h-1)
			sum += wt[dy+1][dx+1] * in[sy*w+sx]
		}
	}
	out[y*w+x] = sum
}
