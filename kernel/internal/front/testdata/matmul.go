package kernels

import "github.com/anygpu/gpu/kernel"

// ScoresBF16 is s = q·kᵀ for one 16×32 tile per group, in bfloat16
// precision: 16 queries and 32 keys of 64 dimensions, staged with padded
// rows (strides 72 and 36).
//
//gpu:kernel
func ScoresBF16(s, q, k []float32) {
	qs := kernel.Shared[[16 * 72]float32]()
	ks := kernel.Shared[[32 * 72]float32]()
	ss := kernel.Shared[[16 * 36]float32]()
	t, nt := kernel.ThreadIndex(), kernel.GroupSizeX()
	g := kernel.GroupX()
	for e := t; e < 16*64; e += nt {
		qs[(e/64)*72+e%64] = q[g*16*64+e]
	}
	for e := t; e < 32*64; e += nt {
		ks[(e/64)*72+e%64] = k[g*32*64+e]
	}
	for e := t; e < 16*36; e += nt {
		ss[e] = 0
	}
	kernel.MatMulAdd(ss, qs, ks, kernel.MatMul{M: 16, N: 32, K: 64, LDA: 72, LDB: 72, LDC: 36, TransposeB: true, Precision: kernel.PrecisionBFloat16})
	for e := t; e < 16*32; e += nt {
		s[g*16*32+e] = ss[(e/32)*36+e%32]
	}
}

// AccumulateF16 is o += p·v for 32×64 tiles in float16 precision, p's
// rows of an odd stride (17), v not transposed, then the same in float32.
//
//gpu:kernel
func AccumulateF16(o, p, v []float32) {
	ps := kernel.Shared[[32 * 17]float32]()
	vs := kernel.Shared[[16 * 64]float32]()
	os := kernel.Shared[[32 * 64]float32]()
	t, nt := kernel.ThreadIndex(), kernel.GroupSizeX()
	for e := t; e < 32*16; e += nt {
		ps[(e/16)*17+e%16] = p[e]
	}
	for e := t; e < 16*64; e += nt {
		vs[e] = v[e]
	}
	for e := t; e < 32*64; e += nt {
		os[e] = o[e]
	}
	kernel.MatMulAdd(os, ps, vs, kernel.MatMul{M: 32, N: 64, K: 16, LDA: 17, Precision: kernel.PrecisionFloat16})
	kernel.MatMulAdd(os, ps, vs, kernel.MatMul{M: 32, N: 64, K: 16, LDA: 17})
	for e := t; e < 32*64; e += nt {
		o[e] = os[e]
	}
}
