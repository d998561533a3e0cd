package kernels

import "github.com/anygpu/gpu/kernel"

const tileDim = 16

// Transpose writes the transpose of the rows×cols matrix in to out, through
// a shared tile padded against bank conflicts.
//
//gpu:kernel
func Transpose(out, in []float32, rows, cols uint32) {
	tile := kernel.Shared[[tileDim][tileDim + 1]float32]()
	tx, ty := kernel.ThreadX(), kernel.ThreadY()
	x := kernel.GroupX()*tileDim + tx
	y := kernel.GroupY()*tileDim + ty
	if x < cols && y < rows {
		tile[ty][tx] = in[y*cols+x]
	}
	kernel.Barrier()
	x = kernel.GroupY()*tileDim + tx
	y = kernel.GroupX()*tileDim + ty
	if x < rows && y < cols {
		out[y*rows+x] = tile[tx][ty]
	}
}
