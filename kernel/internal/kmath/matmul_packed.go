package kmath

import "github.com/anygpu/gpu/internal/gemm"

// packedPays reports whether shape s goes through matMulPacked: on a CPU
// with an assembly micro-kernel, every shape does (packing pays even for the
// smallest tile, 16×16×16: 0.66 µs against the loop's 3.0 µs on AVX-512,
// BenchmarkMatMulAdd); the pure-Go micro-kernel gains too little over the
// loop to give up the loop's order of sums.
func packedPays(TileShape) bool { return gemm.Accelerated() }

// matMulPacked computes c += a·b for a valid shape s with package gemm's
// packed GEMM: the operands rounded to s's precision (into scratch copies
// for the 16-bit precisions), each c[i][j] plus the sum of its products, the
// products summed from zero in k order in blocks of gemm's depth, with
// fused multiply-adds (exact products for the 16-bit precisions, so the
// same sums as matMulLoop's there up to the order).
func matMulPacked(c, a, b []float32, s TileShape) error {
	if s.Precision == PrecisionFloat32 {
		if s.TransposeB {
			return gemm.SgemmBT(s.M, s.N, s.K, 1, a, s.LDA, b, s.LDB, 1, c, s.LDC)
		}
		return gemm.Sgemm(s.M, s.N, s.K, 1, a, s.LDA, b, s.LDB, 1, c, s.LDC)
	}
	bufp := scratch.Get().(*[]float32)
	defer scratch.Put(bufp)
	na, nb := s.M*s.K, s.K*s.N
	if cap(*bufp) < na+nb {
		*bufp = make([]float32, na+nb)
	}
	ra, rb := (*bufp)[:na], (*bufp)[na:na+nb] // A (M×K) and B (K×N, or N×K when transposed) rounded
	for i := range s.M {
		roundRow(ra[i*s.K:(i+1)*s.K], a[i*s.LDA:i*s.LDA+s.K], s.Precision)
	}
	if s.TransposeB {
		for j := range s.N {
			roundRow(rb[j*s.K:(j+1)*s.K], b[j*s.LDB:j*s.LDB+s.K], s.Precision)
		}
		return gemm.SgemmBT(s.M, s.N, s.K, 1, ra, s.K, rb, s.K, 1, c, s.LDC)
	}
	for k := range s.K {
		roundRow(rb[k*s.N:(k+1)*s.N], b[k*s.LDB:k*s.LDB+s.N], s.Precision)
	}
	return gemm.Sgemm(s.M, s.N, s.K, 1, ra, s.K, rb, s.N, 1, c, s.LDC)
}

// roundRow sets dst to src rounded to precision p.
func roundRow(dst, src []float32, p Precision) {
	src = src[:len(dst)]
	switch p {
	case PrecisionBFloat16:
		for i, x := range src {
			dst[i] = RoundBFloat16(x)
		}
	case PrecisionFloat16:
		for i, x := range src {
			dst[i] = RoundFloat16(x)
		}
	default:
		copy(dst, src)
	}
}
