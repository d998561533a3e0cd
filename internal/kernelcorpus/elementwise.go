package kernelcorpus

import "github.com/anygpu/gpu/kernel"

//gpu:kernel
func Saxpy(y, x []float32, n uint32, a float32) {
	i := kernel.GlobalX()
	if i < n {
		y[i] = a*x[i] + y[i]
	}
}

//gpu:kernel
func EarlyReturn(y []float32, n uint32) {
	i := kernel.GlobalX()
	if i >= n {
		return
	}
	y[i] = y[i]*2 + 1
}

//gpu:kernel
func GridStride(y, x []float32, n uint32) {
	stride := kernel.GroupSizeX() * kernel.GridX()
	for i := kernel.GlobalX(); i < n; i += stride {
		y[i] = x[i] * x[i]
	}
}

//gpu:kernel
func Vec4Scale(y, x []float32, n4 uint32, a float32) {
	i := kernel.GlobalX()
	if i < n4 {
		v := kernel.Load4(x, i)
		v.X *= a
		v.Y *= a
		v.Z = v.Z*a + 1
		v.W = -v.W
		kernel.Store4(y, i, v)
	}
}

//gpu:kernel
func Vec4Make(y []float32, n4 uint32) {
	i := kernel.GlobalX()
	if i < n4 {
		f := float32(i)
		kernel.Store4(y, i, kernel.Float4{X: f, Y: f + 0.5, Z: -f, W: 1})
	}
}

//gpu:kernel
func Ids2D(out []uint32, w, h uint32) {
	x := kernel.GlobalX()
	y := kernel.GlobalY()
	if x < w && y < h {
		out[y*w+x] = kernel.GroupX()<<24 | kernel.GroupY()<<16 | kernel.ThreadX()<<8 | kernel.ThreadY()
	}
}

//gpu:kernel
func Ids3D(out []uint32, w, h, d uint32) {
	x, y, z := kernel.GlobalX(), kernel.GlobalY(), kernel.GlobalZ()
	if x < w && y < h && z < d {
		out[(z*h+y)*w+x] = kernel.ThreadIndex() + 1000*kernel.GroupZ() + 100*kernel.ThreadZ()
	}
}

//gpu:kernel
func Sizes(out []uint32) {
	if kernel.GlobalX() == 0 && kernel.GlobalY() == 0 && kernel.GlobalZ() == 0 {
		out[0] = kernel.GroupSizeX()
		out[1] = kernel.GroupSizeY()
		out[2] = kernel.GroupSizeZ()
		out[3] = kernel.GridX()
		out[4] = kernel.GridY()
		out[5] = kernel.GridZ()
	}
}

//gpu:kernel
func Guarded(y []float32, x []float32, n uint32, lo, hi int32) {
	i := int32(kernel.GlobalX())
	if i < lo || i >= hi || uint32(i) >= n {
		return
	}
	y[i] = x[i] + float32(i)
}
