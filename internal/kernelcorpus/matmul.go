package kernelcorpus

import "github.com/anygpu/gpu/kernel"

// The MatMul kernels compute c += a·b for row-major matrices whose sizes are
// multiples of their tiles, a tile of c per group: the group stages the
// tile of c and, chunk by chunk of k, the chunks of a and b in shared memory
// and accumulates with kernel.MatMulAdd. Each takes a different shape,
// padding, layout of b and precision.

// mmPad pads staged rows so that their strides are 4 more than a multiple
// of 16 (CUDA's tensor-core loads then meet no bank conflicts).
const mmPad = 4

// MatMulF32 is c += a·b in float32 precision: 32×32 tiles of c, chunks of
// k of 16, a's rows padded (a m×k, b k×n, any block size).
//
//gpu:kernel
func MatMulF32(c, a, b []float32, n, k uint32) {
	cs := kernel.Shared[[32 * 32]float32]()
	as := kernel.Shared[[32 * (16 + mmPad)]float32]()
	bs := kernel.Shared[[16 * 32]float32]()
	t, nt := kernel.ThreadIndex(), kernel.GroupSizeX()
	r0, c0 := kernel.GroupY()*32, kernel.GroupX()*32
	for e := t; e < 32*32; e += nt {
		cs[e] = c[(r0+e/32)*n+c0+e%32]
	}
	for k0 := uint32(0); k0 < k; k0 += 16 {
		for e := t; e < 32*16; e += nt {
			as[(e/16)*(16+mmPad)+e%16] = a[(r0+e/16)*k+k0+e%16]
			bs[e] = b[(k0+e/32)*n+c0+e%32]
		}
		kernel.MatMulAdd(cs, as, bs, kernel.MatMul{M: 32, N: 32, K: 16, LDA: 16 + mmPad})
	}
	for e := t; e < 32*32; e += nt {
		c[(r0+e/32)*n+c0+e%32] = cs[e]
	}
}

// MatMulBF16T is c += a·bᵀ in bfloat16 precision, b given as its n×k
// transpose: 16×32 tiles of c (rows padded), chunks of k of 32, b's rows
// padded.
//
//gpu:kernel
func MatMulBF16T(c, a, bt []float32, n, k uint32) {
	cs := kernel.Shared[[16 * (32 + mmPad)]float32]()
	as := kernel.Shared[[16 * 32]float32]()
	bs := kernel.Shared[[32 * (32 + mmPad)]float32]()
	t, nt := kernel.ThreadIndex(), kernel.GroupSizeX()
	r0, c0 := kernel.GroupY()*16, kernel.GroupX()*32
	for e := t; e < 16*32; e += nt {
		cs[(e/32)*(32+mmPad)+e%32] = c[(r0+e/32)*n+c0+e%32]
	}
	for k0 := uint32(0); k0 < k; k0 += 32 {
		for e := t; e < 16*32; e += nt {
			as[e] = a[(r0+e/32)*k+k0+e%32]
		}
		for e := t; e < 32*32; e += nt {
			bs[(e/32)*(32+mmPad)+e%32] = bt[(c0+e/32)*k+k0+e%32]
		}
		kernel.MatMulAdd(cs, as, bs, kernel.MatMul{M: 16, N: 32, K: 32, LDB: 32 + mmPad, LDC: 32 + mmPad,
			TransposeB: true, Precision: kernel.PrecisionBFloat16})
	}
	for e := t; e < 16*32; e += nt {
		c[(r0+e/32)*n+c0+e%32] = cs[(e/32)*(32+mmPad)+e%32]
	}
}

// MatMulF16 is c += a·b in float16 precision, or a·bᵀ (b given n×k) when
// trans is 1: 16×16 tiles of c, chunks of k of 16; the layout of b is
// chosen by a uniform branch around two MatMulAdds.
//
//gpu:kernel
func MatMulF16(c, a, b []float32, n, k, trans uint32) {
	cs := kernel.Shared[[16 * 16]float32]()
	as := kernel.Shared[[16 * 16]float32]()
	bs := kernel.Shared[[16 * 16]float32]()
	t, nt := kernel.ThreadIndex(), kernel.GroupSizeX()
	r0, c0 := kernel.GroupY()*16, kernel.GroupX()*16
	for e := t; e < 16*16; e += nt {
		cs[e] = c[(r0+e/16)*n+c0+e%16]
	}
	for k0 := uint32(0); k0 < k; k0 += 16 {
		for e := t; e < 16*16; e += nt {
			as[e] = a[(r0+e/16)*k+k0+e%16]
			if trans == 1 {
				bs[e] = b[(c0+e/16)*k+k0+e%16]
			} else {
				bs[e] = b[(k0+e/16)*n+c0+e%16]
			}
		}
		if trans == 1 {
			kernel.MatMulAdd(cs, as, bs, kernel.MatMul{M: 16, N: 16, K: 16, TransposeB: true, Precision: kernel.PrecisionFloat16})
		} else {
			kernel.MatMulAdd(cs, as, bs, kernel.MatMul{M: 16, N: 16, K: 16, Precision: kernel.PrecisionFloat16})
		}
	}
	for e := t; e < 16*16; e += nt {
		c[(r0+e/16)*n+c0+e%16] = cs[e]
	}
}

// The MatMulFrom kernels are the MatMul kernels with kernel.MatMulAddFrom:
// a and b are read straight from the buffers, from offsets and with strides
// the group computes; only the tile of c is staged.

// MatMulFromF32 is c += a·b in float32 precision: 32×32 tiles of c, k in
// chunks of 16, a and b read from the buffers (a m×k, b k×n).
//
//gpu:kernel
func MatMulFromF32(c, a, b []float32, n, k uint32) {
	cs := kernel.Shared[[32 * 32]float32]()
	t, nt := kernel.ThreadIndex(), kernel.GroupSizeX()
	r0, c0 := kernel.GroupY()*32, kernel.GroupX()*32
	for e := t; e < 32*32; e += nt {
		cs[e] = c[(r0+e/32)*n+c0+e%32]
	}
	for k0 := uint32(0); k0 < k; k0 += 16 {
		kernel.MatMulAddFrom(cs, a, r0*k+k0, k, b, k0*n+c0, n, kernel.MatMul{M: 32, N: 32, K: 16})
	}
	for e := t; e < 32*32; e += nt {
		c[(r0+e/32)*n+c0+e%32] = cs[e]
	}
}

// MatMulFromHalf is c += a·bᵀ in bfloat16 precision (b given n×k) when
// trans is 1, else c += a·b in float16 precision: 16×32 tiles of c (rows
// padded in shared memory), k in chunks of 32, a's rows lda floats apart
// and b's ldb (any strides, odd ones included).
//
//gpu:kernel
func MatMulFromHalf(c, a, b []float32, n, k, lda, ldb, trans uint32) {
	cs := kernel.Shared[[16 * (32 + mmPad)]float32]()
	t, nt := kernel.ThreadIndex(), kernel.GroupSizeX()
	r0, c0 := kernel.GroupY()*16, kernel.GroupX()*32
	for e := t; e < 16*32; e += nt {
		cs[(e/32)*(32+mmPad)+e%32] = c[(r0+e/32)*n+c0+e%32]
	}
	for k0 := uint32(0); k0 < k; k0 += 32 {
		if trans == 1 {
			kernel.MatMulAddFrom(cs, a, r0*lda+k0, lda, b, c0*ldb+k0, ldb, kernel.MatMul{M: 16, N: 32, K: 32, LDC: 32 + mmPad,
				TransposeB: true, Precision: kernel.PrecisionBFloat16})
		} else {
			kernel.MatMulAddFrom(cs, a, r0*lda+k0, lda, b, k0*ldb+c0, ldb, kernel.MatMul{M: 16, N: 32, K: 32, LDC: 32 + mmPad,
				Precision: kernel.PrecisionFloat16})
		}
	}
	for e := t; e < 16*32; e += nt {
		c[(r0+e/32)*n+c0+e%32] = cs[(e/32)*(32+mmPad)+e%32]
	}
}
