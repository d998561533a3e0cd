package kernelcorpus

import "github.com/anygpu/gpu/kernel"

// The MMA kernels run kernel.MMA on fragments loaded from buffers by the
// documented layout. Each matrix unit (32 threads) u has its own matrices:
// per step s, A (16×16) is 128 words from word (u·steps + s)·128 of a, 16
// rows of 8 words (word k/2 of a row holds columns k and k+1, k in the low
// half), and B (16×16: two 16×8 halves) is 128 words from the same word of
// b, 8 rows of pairs of B's rows by 16 columns (word (k/2)·16 + j holds
// B[k][j] and B[k+1][j]). C (16×16 float32) is 256 floats from u·256 of c,
// row-major.

// MMAChain is C += Σ over steps of A·B for each unit, in bfloat16 (prec 1)
// or float16 (prec 2) precision, chosen by a uniform branch: the two 16×8
// halves of C are the [2][4]float32 accumulator acc, indexed in an unrolled
// loop, and the steps a rolled loop of MMAs accumulating.
//
//gpu:kernel
//gpu:maxthreads 64
func MMAChain(c []float32, a, b []uint32, steps, prec uint32) {
	tid := kernel.ThreadIndex()
	unit := kernel.GroupX()*(kernel.GroupSizeX()/32) + tid/32
	lane := tid % 32
	g, t := lane/4, lane%4
	var acc [2][4]float32
	for j := uint32(0); j < 2; j++ {
		o := unit*256 + j*8 + 2*t
		acc[j][0] = c[o+g*16]
		acc[j][1] = c[o+g*16+1]
		acc[j][2] = c[o+(g+8)*16]
		acc[j][3] = c[o+(g+8)*16+1]
	}
	for s := uint32(0); s < steps; s++ {
		w := (unit*steps + s) * 128
		var fa [4]uint32
		fa[0] = a[w+g*8+t]
		fa[1] = a[w+(g+8)*8+t]
		fa[2] = a[w+g*8+t+4]
		fa[3] = a[w+(g+8)*8+t+4]
		var fb [2][2]uint32
		for j := uint32(0); j < 2; j++ {
			fb[j][0] = b[w+t*16+j*8+g]
			fb[j][1] = b[w+(t+4)*16+j*8+g]
		}
		for j := 0; j < 2; j++ {
			if prec == 2 {
				kernel.MMA(&acc[j], &fa, &fb[j], kernel.PrecisionFloat16)
			} else {
				kernel.MMA(&acc[j], &fa, &fb[j], kernel.PrecisionBFloat16)
			}
		}
	}
	for j := uint32(0); j < 2; j++ {
		o := unit*256 + j*8 + 2*t
		c[o+g*16] = acc[j][0]
		c[o+g*16+1] = acc[j][1]
		c[o+(g+8)*16] = acc[j][2]
		c[o+(g+8)*16+1] = acc[j][3]
	}
}

// MMAReuse is, for each unit, D = P·B2 in bfloat16 where P = A·B (the first
// step's matrices of a and b, as MMAChain lays them out, from zero) rounded
// to bfloat16: the two 16×8 accumulators of P, packed with PackHalves,
// are the A fragments of the second product, as attention reuses its
// scores. B2 (16×8) is the first half of the second step's B; D (16×8)
// goes to d from u·128, row-major.
//
//gpu:kernel
//gpu:maxthreads 64
func MMAReuse(d []float32, a, b []uint32) {
	tid := kernel.ThreadIndex()
	unit := kernel.GroupX()*(kernel.GroupSizeX()/32) + tid/32
	lane := tid % 32
	g, t := lane/4, lane%4
	w := unit * 2 * 128
	var fa [4]uint32
	fa[0] = a[w+g*8+t]
	fa[1] = a[w+(g+8)*8+t]
	fa[2] = a[w+g*8+t+4]
	fa[3] = a[w+(g+8)*8+t+4]
	var fb [2][2]uint32
	for j := uint32(0); j < 2; j++ {
		fb[j][0] = b[w+t*16+j*8+g]
		fb[j][1] = b[w+(t+4)*16+j*8+g]
	}
	var p [2][4]float32
	for j := 0; j < 2; j++ {
		kernel.MMA(&p[j], &fa, &fb[j], kernel.PrecisionBFloat16)
	}
	var pa [4]uint32
	pa[0] = kernel.PackHalves(p[0][0], p[0][1], kernel.PrecisionBFloat16)
	pa[1] = kernel.PackHalves(p[0][2], p[0][3], kernel.PrecisionBFloat16)
	pa[2] = kernel.PackHalves(p[1][0], p[1][1], kernel.PrecisionBFloat16)
	pa[3] = kernel.PackHalves(p[1][2], p[1][3], kernel.PrecisionBFloat16)
	w2 := w + 128
	var fb2 [2]uint32
	fb2[0] = b[w2+t*16+g]
	fb2[1] = b[w2+(t+4)*16+g]
	var acc [4]float32
	kernel.MMA(&acc, &pa, &fb2, kernel.PrecisionBFloat16)
	o := unit*128 + 2*t
	d[o+g*8] = acc[0]
	d[o+g*8+1] = acc[1]
	d[o+(g+8)*8] = acc[2]
	d[o+(g+8)*8+1] = acc[3]
}

// PackHalvesWords is out[i] = PackHalves(x[2i], x[2i+1]) in bfloat16 (prec
// 1) or float16 (prec 2) for i < n.
//
//gpu:kernel
func PackHalvesWords(out []uint32, x []float32, n, prec uint32) {
	i := kernel.GlobalX()
	if i >= n {
		return
	}
	if prec == 2 {
		out[i] = kernel.PackHalves(x[2*i], x[2*i+1], kernel.PrecisionFloat16)
	} else {
		out[i] = kernel.PackHalves(x[2*i], x[2*i+1], kernel.PrecisionBFloat16)
	}
}

// SubgroupMMARowMax is, for each unit, the row maxima of P = A·B (A and
// the first 16×8 half of B of MMAChain's first step, bfloat16, from zero),
// to m from u·16: each thread takes the maxima of its two values of rows g
// and g+8, and the four threads of a row (lanes 4g..4g+3) combine theirs
// with SubgroupShuffleXor where subgroups have 4 threads or more, else
// through a shared array, as attention's row-wise softmax does.
//
//gpu:kernel
//gpu:maxthreads 64
func SubgroupMMARowMax(m []float32, a, b []uint32) {
	sh := kernel.Shared[[64 * 2]float32]()
	tid := kernel.ThreadIndex()
	unit := kernel.GroupX()*(kernel.GroupSizeX()/32) + tid/32
	lane := tid % 32
	g, t := lane/4, lane%4
	w := unit * 128
	var fa [4]uint32
	fa[0] = a[w+g*8+t]
	fa[1] = a[w+(g+8)*8+t]
	fa[2] = a[w+g*8+t+4]
	fa[3] = a[w+(g+8)*8+t+4]
	var fb [2]uint32
	fb[0] = b[w+t*16+g]
	fb[1] = b[w+(t+4)*16+g]
	var p [4]float32
	kernel.MMA(&p, &fa, &fb, kernel.PrecisionBFloat16)
	lo, hi := max(p[0], p[1]), max(p[2], p[3])
	if kernel.SubgroupSize() >= 4 {
		for x := uint32(1); x < 4; x *= 2 {
			lo = max(lo, kernel.SubgroupShuffleXor(lo, x))
			hi = max(hi, kernel.SubgroupShuffleXor(hi, x))
		}
	} else {
		sh[tid*2] = lo
		sh[tid*2+1] = hi
		kernel.Barrier()
		row := (tid &^ 3) * 2
		for q := uint32(0); q < 4; q++ {
			lo = max(lo, sh[row+q*2])
			hi = max(hi, sh[row+q*2+1])
		}
	}
	if t == 0 {
		m[unit*16+g] = lo
		m[unit*16+g+8] = hi
	}
}
