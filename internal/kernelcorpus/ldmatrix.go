package kernelcorpus

import "github.com/anygpu/gpu/kernel"

// The LoadMatrices kernels run in groups of 64 threads, two matrix units.

// LoadMatricesWords copies the group's 1024 words of words (from word
// GroupX()·1024) to a shared array, and each lane of each unit u loads from
// it, at the word index rows[u·32 + lane], four matrices (mode 0, or 1
// transposed) or two (mode 2, or 3 transposed), writing its fragment to
// out[(u·32 + lane)·4 ..] (zeros after a two-matrix fragment).
//
//gpu:kernel
//gpu:maxthreads 64
func LoadMatricesWords(out, words, rows []uint32, mode uint32) {
	tile := kernel.Shared[[1024]uint32]()
	tid := kernel.ThreadIndex()
	for i := tid; i < 1024; i += kernel.GroupSizeX() {
		tile[i] = words[kernel.GroupX()*1024+i]
	}
	kernel.Barrier()
	unit := kernel.GroupX()*(kernel.GroupSizeX()/32) + tid/32
	lane := tid % 32
	at := rows[unit*32+lane]
	var f4 [4]uint32
	var f2 [2]uint32
	if mode == 0 {
		kernel.LoadMatrices4(&f4, tile, at, false)
	} else if mode == 1 {
		kernel.LoadMatrices4(&f4, tile, at, true)
	} else if mode == 2 {
		kernel.LoadMatrices2(&f2, tile, at, false)
	} else {
		kernel.LoadMatrices2(&f2, tile, at, true)
	}
	o := (unit*32 + lane) * 4
	if mode >= 2 {
		out[o] = f2[0]
		out[o+1] = f2[1]
		out[o+2] = 0
		out[o+3] = 0
	} else {
		for i := uint32(0); i < 4; i++ {
			out[o+i] = f4[i]
		}
	}
}

// LoadMatricesMMA is, for each unit u, C = A·B in bfloat16 with A and B
// (16×16 each) loaded into MMA's fragments by LoadMatrices from shared
// copies: A is 128 words from word u·256 of ab, 16 rows of 8 words (word
// k/2 of row i holds A[i][k] and A[i][k+1]), B the 128 words after it, 16
// rows of k by 8 words (word n/2 of row k holds B[k][n] and B[k][n+1]). A is
// one LoadMatrices4; B, two LoadMatrices2 transposed (mode 0), one
// LoadMatrices4 transposed (mode 1), or, from a copy of Bᵀ (16 rows of n by
// 8 words), one LoadMatrices4 (mode 2). C is 256 floats from u·256 of c,
// row-major.
//
//gpu:kernel
//gpu:maxthreads 64
func LoadMatricesMMA(c []float32, ab []uint32, mode uint32) {
	tiles := kernel.Shared[[512]uint32]() // per unit: A, then B
	bt := kernel.Shared[[256]uint32]()    // per unit: Bᵀ
	tid := kernel.ThreadIndex()
	group := kernel.GroupX() * 512
	for i := tid; i < 512; i += kernel.GroupSizeX() {
		tiles[i] = ab[group+i]
	}
	for i := tid; i < 256; i += kernel.GroupSizeX() {
		// Bᵀ word w of row n of unit v: B[2w][n], B[2w+1][n].
		v, n, w := i/128, (i/8)%16, i%8
		lo := ab[group+v*256+128+2*w*8+n/2] >> (16 * (n % 2)) & 0xffff
		hi := ab[group+v*256+128+(2*w+1)*8+n/2] >> (16 * (n % 2)) & 0xffff
		bt[i] = lo | hi<<16
	}
	kernel.Barrier()
	unit := tid / 32
	lane := tid % 32
	m, r := lane/8, lane%8
	base := unit * 256
	var fa [4]uint32
	kernel.LoadMatrices4(&fa, tiles, base+(r+8*(m%2))*8+4*(m/2), false)
	var fb [2][2]uint32
	if mode == 0 {
		for j := uint32(0); j < 2; j++ {
			kernel.LoadMatrices2(&fb[j], tiles, base+128+(r+8*(m%2))*8+4*j, true)
		}
	} else if mode == 1 {
		var f [4]uint32
		kernel.LoadMatrices4(&f, tiles, base+128+(r+8*(m%2))*8+4*(m/2), true)
		fb[0][0], fb[0][1], fb[1][0], fb[1][1] = f[0], f[1], f[2], f[3]
	} else {
		var f [4]uint32
		kernel.LoadMatrices4(&f, bt, unit*128+(r+8*(m/2))*8+4*(m%2), false)
		fb[0][0], fb[0][1], fb[1][0], fb[1][1] = f[0], f[1], f[2], f[3]
	}
	var acc [2][4]float32
	for j := 0; j < 2; j++ {
		kernel.MMA(&acc[j], &fa, &fb[j], kernel.PrecisionBFloat16)
	}
	g, t := lane/4, lane%4
	o := (kernel.GroupX()*2+unit)*256 + 2*t
	for j := uint32(0); j < 2; j++ {
		c[o+g*16+j*8] = acc[j][0]
		c[o+g*16+j*8+1] = acc[j][1]
		c[o+(g+8)*16+j*8] = acc[j][2]
		c[o+(g+8)*16+j*8+1] = acc[j][3]
	}
}

// CopyAsyncTiles copies, for each group of 64 threads, tiles tiles of 256
// float32s (from float GroupX()·tiles·256 of src) through a double-buffered
// shared array filled by CopyAsync, one tile ahead, to out as their bits:
// the first 32 threads issue the copies (two 16-byte vectors each), and
// each thread writes out the vector of its neighbour (tid+1)%64.
//
//gpu:kernel
//gpu:maxthreads 64
func CopyAsyncTiles(out []uint32, src []float32, tiles uint32) {
	buf := kernel.Shared[[512]uint32]()
	tid := kernel.ThreadIndex()
	first := kernel.GroupX() * tiles * 64 // in vectors
	if tid < 32 {
		kernel.CopyAsync(buf, tid, src, first+tid)
		kernel.CopyAsync(buf, tid+32, src, first+tid+32)
	}
	kernel.CopyAsyncCommit()
	for s := uint32(0); s < tiles; s++ {
		if s+1 < tiles && tid < 32 {
			next := ((s + 1) % 2) * 64
			kernel.CopyAsync(buf, next+tid, src, first+(s+1)*64+tid)
			kernel.CopyAsync(buf, next+tid+32, src, first+(s+1)*64+tid+32)
		}
		kernel.CopyAsyncCommit()
		kernel.CopyAsyncWait(1) // tile s has landed; s+1 may be in flight
		kernel.Barrier()
		v := (tid + 1) % 64
		for i := uint32(0); i < 4; i++ {
			out[(first+s*64+v)*4+i] = buf[(s%2)*256+v*4+i]
		}
		kernel.Barrier() // before the copy into this buffer two tiles on
	}
	kernel.CopyAsyncWait(0)
}

// CopyAsyncWords is out[4i..4i+3] = src[4i..4i+3] for the vectors i of the
// group's 64 threads, through a shared array filled by CopyAsync from a
// uint32 buffer, in the opposite order of the threads.
//
//gpu:kernel
//gpu:maxthreads 64
func CopyAsyncWords(out, src []uint32) {
	buf := kernel.Shared[[256]uint32]()
	tid := kernel.ThreadIndex()
	v := kernel.GroupX()*64 + tid
	kernel.CopyAsync(buf, 63-tid, src, v)
	kernel.CopyAsyncCommit()
	kernel.CopyAsyncWait(0)
	kernel.Barrier()
	for i := uint32(0); i < 4; i++ {
		out[v*4+i] = buf[(63-tid)*4+i]
	}
}
