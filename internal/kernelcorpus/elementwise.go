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

// Vec4Tail is y = a·x + y over n elements, 4 at a time (thread i takes the
// vector i), and the elements of a last partial vector one at a time: x and
// y are moved both ways, and n need not fill the buffers' last 16 bytes.
//
//gpu:kernel
func Vec4Tail(y, x []float32, n uint32, a float32) {
	i := kernel.GlobalX()
	e := 4 * i
	if e >= n {
		return
	}
	if n-e >= 4 {
		v, w := kernel.Load4(x, i), kernel.Load4(y, i)
		kernel.Store4(y, i, kernel.Float4{X: a*v.X + w.X, Y: a*v.Y + w.Y, Z: a*v.Z + w.Z, W: a*v.W + w.W})
		return
	}
	for ; e < n; e++ {
		y[e] = a*x[e] + y[e]
	}
}

// Vec4Lanes writes y one element at a time, adjacent threads into the lanes
// of one vector (by an int32 index, and one by a constant index), below m,
// and 4 at a time from m on; it reads x both ways (one element by a
// constant index).
//
//gpu:kernel
func Vec4Lanes(y, x []float32, n, m uint32) {
	i := kernel.GlobalX()
	if i >= n {
		return
	}
	v := kernel.Load4(x, i/4)
	if i == 2 {
		y[2] = x[5] - v.X
	} else if i < m {
		y[int32(i)] = x[i]*2 + v.W
	} else if i%4 == 0 {
		kernel.Store4(y, i/4, kernel.Float4{X: v.W, Y: v.Z, Z: v.Y, W: v.X})
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
