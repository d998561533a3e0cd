package kernelcorpus

import (
	"math"
	"math/rand/v2"

	"github.com/anygpu/gpu"
)

// Case is one launch of a corpus kernel with its inputs. Every buffer is
// read back after the launch and compared with the reference run: floats
// within ULP units in the last place (or Abs apart), integers exactly. A GPU
// may fuse a*x + y into one rounding (Go's spec allows it too), so the
// tolerance of a case with such expressions covers one rounding of a*x.
type Case struct {
	Name        string
	Kernel      string
	Grid, Block gpu.Dim3
	Args        []Arg
	ULP         uint32  // float tolerance in units in the last place
	Abs         float32 // absolute float tolerance (for results near zero)
}

// Arg is a kernel argument: a buffer with its initial contents (exactly one
// of F32, I32, U32 set), or a scalar.
type Arg struct {
	F32 []float32
	I32 []int32
	U32 []uint32
	// Scalar is the argument when IsScalar.
	Scalar   gpu.Arg
	IsScalar bool
	// Unordered compares the buffer as a multiset (for outputs whose order
	// depends on the order atomics ran in).
	Unordered bool
}

// Elems is the buffer's length in elements (0 for a scalar).
func (a Arg) Elems() int { return len(a.F32) + len(a.I32) + len(a.U32) }

// Scalar argument constructors.
func sF32(v float32) Arg { return Arg{Scalar: gpu.F32(v), IsScalar: true} }
func sU32(v uint32) Arg  { return Arg{Scalar: gpu.U32(v), IsScalar: true} }
func sI32(v int32) Arg   { return Arg{Scalar: gpu.I32(v), IsScalar: true} }

// Buffer argument constructors.
func bF32(v []float32) Arg { return Arg{F32: v} }
func bI32(v []int32) Arg   { return Arg{I32: v} }
func bU32(v []uint32) Arg  { return Arg{U32: v} }

// randF32 returns n floats in [lo, hi), seeded.
func randF32(n int, seed uint64, lo, hi float32) []float32 {
	r := rand.New(rand.NewPCG(seed, 1))
	out := make([]float32, n)
	for i := range out {
		out[i] = lo + (hi-lo)*r.Float32()
	}
	return out
}

// randI32 returns n int32s, seeded, with the edge values mixed in.
func randI32(n int, seed uint64) []int32 {
	r := rand.New(rand.NewPCG(seed, 2))
	edges := []int32{0, 1, -1, math.MinInt32, math.MaxInt32, 7, -7, 65536, -65536}
	out := make([]int32, n)
	for i := range out {
		if i < len(edges) {
			out[i] = edges[i]
		} else {
			out[i] = int32(r.Uint32())
		}
	}
	return out
}

// randU32 returns n uint32s, seeded, below limit (0: any), edges first.
func randU32(n int, seed uint64, limit uint32) []uint32 {
	r := rand.New(rand.NewPCG(seed, 3))
	out := make([]uint32, n)
	for i := range out {
		v := r.Uint32()
		if i < 4 {
			v = []uint32{0, 1, math.MaxUint32, 1 << 31}[i]
		}
		if limit != 0 {
			v %= limit
		}
		out[i] = v
	}
	return out
}

// specialF32 returns n floats with NaN, ±Inf, ±0, subnormals, huge and tiny
// values first, then values in [-8, 8).
func specialF32(n int, seed uint64) []float32 {
	sp := []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), 0,
		float32(math.Copysign(0, -1)), math.SmallestNonzeroFloat32, -math.SmallestNonzeroFloat32,
		math.MaxFloat32, -math.MaxFloat32, 1, -1, 0.5, -0.5, 2.5, -2.5, 1e30, -1e30, 3e9, -3e9}
	out := randF32(n, seed, -8, 8)
	copy(out, sp)
	return out
}

func zerosF32(n int) []float32 { return make([]float32, n) }
func zerosI32(n int) []int32   { return make([]int32, n) }
func zerosU32(n int) []uint32  { return make([]uint32, n) }

// identity is the n×n identity matrix.
func identity(n int) []float32 {
	m := make([]float32, n*n)
	for i := range n {
		m[i*n+i] = 1
	}
	return m
}

// finiteEdges is the first n of xs of magnitude at most limit (their
// rounding stays finite, so that a product with 0 is 0), zeros after them
// if there are fewer.
func finiteEdges(xs []float32, limit float64, n int) []float32 {
	out := make([]float32, 0, n)
	for _, x := range xs {
		if math.Abs(float64(x)) <= limit && len(out) < n {
			out = append(out, x)
		}
	}
	return out[:n]
}

// bf16Edges are float32s where rounding to bfloat16 decides: ties to even
// (down and up), just either side of a tie, a float32 subnormal, negative
// zero; then a spread of magnitudes with random low bits.
var bf16Edges = func() []float32 {
	xs := []float32{0, float32(math.Copysign(0, -1)), 1, -2, 1 + 1.0/256, 1 + 3.0/256, -(1 + 5.0/256),
		math.Float32frombits(0x3f808001), math.Float32frombits(0x3f807fff), math.Float32frombits(0x7f7f0000),
		math.Float32frombits(0x00400000), 3.14159, -0.1}
	r := rand.New(rand.NewPCG(62, 5))
	for len(xs) < 520 {
		e := r.IntN(80) - 40
		xs = append(xs, float32(math.Ldexp(r.Float64()*2-1, e)))
	}
	return xs
}()

// Cases returns every case of the corpus, fresh (callers may keep the
// slices). Each kernel of the corpus has at least one.
func Cases() []Case {
	const n = 1000                   // not a multiple of any block: the guards matter
	const mmM, mmN, mmK = 64, 96, 64 // the MatMul cases' sizes
	g1 := func(n, b int) gpu.Dim3 { return gpu.D1((n + b - 1) / b) }
	shifts := randU32(n, 11, 40) // counts past the width included
	divisors := randI32(n, 12)
	for i := range divisors {
		if i%5 == 0 {
			divisors[i] = 0
		}
		if i == 3 {
			divisors[i] = -1 // MinInt32 / -1 at i = 3
		}
	}
	dividends := randI32(n, 13)
	dividends[3] = math.MinInt32
	udiv := randU32(n, 14, 0)
	for i := range udiv {
		if i%4 == 0 {
			udiv[i] = 0
		} else if i%4 == 1 {
			udiv[i] %= 1000
		}
	}
	collatz := randU32(n, 15, 10000)
	for i := range collatz {
		collatz[i]++
	}
	const rows, cols = 37, 53
	const m, nn, k = 33, 47, 29
	return append([]Case{
		{Name: "saxpy", Kernel: "Saxpy", Grid: g1(n, 64), Block: gpu.D1(64),
			Args: []Arg{bF32(randF32(n, 1, -4, 4)), bF32(randF32(n, 2, -4, 4)), sU32(n), sF32(1.5)}, ULP: 2, Abs: 1e-6},
		{Name: "saxpy_block256", Kernel: "Saxpy", Grid: g1(n, 256), Block: gpu.D1(256),
			Args: []Arg{bF32(randF32(n, 3, -4, 4)), bF32(randF32(n, 4, -4, 4)), sU32(n - 3), sF32(-0.25)}, ULP: 2, Abs: 1e-6},
		{Name: "early_return", Kernel: "EarlyReturn", Grid: g1(n, 128), Block: gpu.D1(128),
			Args: []Arg{bF32(randF32(n, 5, -4, 4)), sU32(n - 10)}, ULP: 1},
		{Name: "grid_stride", Kernel: "GridStride", Grid: gpu.D1(3), Block: gpu.D1(64),
			Args: []Arg{bF32(zerosF32(n)), bF32(randF32(n, 6, -4, 4)), sU32(n)}},
		{Name: "vec4_scale", Kernel: "Vec4Scale", Grid: g1(n/4, 32), Block: gpu.D1(32),
			Args: []Arg{bF32(zerosF32(n)), bF32(randF32(n, 7, -4, 4)), sU32(n / 4), sF32(3)}, ULP: 2, Abs: 1e-6},
		{Name: "vec4_make", Kernel: "Vec4Make", Grid: g1(n/4, 64), Block: gpu.D1(64),
			Args: []Arg{bF32(zerosF32(n)), sU32(n/4 - 1)}},
		{Name: "vec4_tail_3", Kernel: "Vec4Tail", Grid: g1((n-1+3)/4, 32), Block: gpu.D1(32),
			Args: []Arg{bF32(randF32(n-1, 41, -4, 4)), bF32(randF32(n-1, 42, -4, 4)), sU32(n - 1), sF32(1.5)}, ULP: 2, Abs: 1e-6},
		{Name: "vec4_tail_1", Kernel: "Vec4Tail", Grid: g1((n-3+3)/4, 64), Block: gpu.D1(64),
			Args: []Arg{bF32(randF32(n-3, 43, -4, 4)), bF32(randF32(n-3, 44, -4, 4)), sU32(n - 3), sF32(-0.5)}, ULP: 2, Abs: 1e-6},
		{Name: "vec4_tail_none", Kernel: "Vec4Tail", Grid: g1(n/4, 64), Block: gpu.D1(64),
			Args: []Arg{bF32(randF32(n, 45, -4, 4)), bF32(randF32(n, 46, -4, 4)), sU32(n), sF32(2)}, ULP: 2, Abs: 1e-6},
		{Name: "vec4_tail_short", Kernel: "Vec4Tail", Grid: gpu.D1(1), Block: gpu.D1(64),
			Args: []Arg{bF32(randF32(3, 47, -4, 4)), bF32(randF32(3, 48, -4, 4)), sU32(3), sF32(3)}, ULP: 2, Abs: 1e-6},
		{Name: "vec4_lanes", Kernel: "Vec4Lanes", Grid: g1(n, 64), Block: gpu.D1(64),
			Args: []Arg{bF32(randF32(n, 49, -4, 4)), bF32(randF32(n, 50, -4, 4)), sU32(n), sU32(n/2 + 1)}, ULP: 2, Abs: 1e-6},
		{Name: "ids_2d", Kernel: "Ids2D", Grid: gpu.D2(5, 4), Block: gpu.D2(8, 4),
			Args: []Arg{bU32(zerosU32(37 * 15)), sU32(37), sU32(15)}},
		{Name: "ids_3d", Kernel: "Ids3D", Grid: gpu.Dim3{X: 2, Y: 3, Z: 2}, Block: gpu.Dim3{X: 4, Y: 2, Z: 3},
			Args: []Arg{bU32(zerosU32(7 * 5 * 6)), sU32(7), sU32(5), sU32(6)}},
		{Name: "sizes", Kernel: "Sizes", Grid: gpu.Dim3{X: 3, Y: 2, Z: 5}, Block: gpu.Dim3{X: 8, Y: 4, Z: 2},
			Args: []Arg{bU32(zerosU32(6))}},
		{Name: "guarded", Kernel: "Guarded", Grid: g1(n, 64), Block: gpu.D1(64),
			Args: []Arg{bF32(zerosF32(n)), bF32(randF32(n, 8, -4, 4)), sU32(n), sI32(100), sI32(700)}},
		{Name: "int_overflow", Kernel: "IntOverflow", Grid: g1(n, 64), Block: gpu.D1(64),
			Args: []Arg{bI32(zerosI32(4 * n)), bI32(randI32(n, 9)), sU32(n)}},
		{Name: "uint_overflow", Kernel: "UintOverflow", Grid: g1(n, 64), Block: gpu.D1(64),
			Args: []Arg{bU32(zerosU32(3 * n)), bU32(randU32(n, 10, 0)), sU32(n)}},
		{Name: "div_rem", Kernel: "DivRem", Grid: g1(n, 64), Block: gpu.D1(64),
			Args: []Arg{bI32(zerosI32(2 * n)), bI32(dividends), bI32(divisors), sU32(n)}},
		{Name: "div_rem_unsigned", Kernel: "DivRemU", Grid: g1(n, 64), Block: gpu.D1(64),
			Args: []Arg{bU32(zerosU32(2 * n)), bU32(randU32(n, 16, 0)), bU32(udiv), sU32(n)}},
		{Name: "div_rem_const", Kernel: "DivRemConst", Grid: g1(n, 64), Block: gpu.D1(64),
			Args: []Arg{bI32(zerosI32(8 * n)), bU32(zerosU32(4 * n)), bI32(dividends), sU32(n)}},
		{Name: "shifts", Kernel: "Shifts", Grid: g1(n, 64), Block: gpu.D1(64),
			Args: []Arg{bI32(zerosI32(2 * n)), bU32(zerosU32(2 * n)), bI32(randI32(n, 17)), bU32(shifts), sU32(n)}},
		{Name: "bitwise", Kernel: "Bitwise", Grid: g1(n, 64), Block: gpu.D1(64),
			Args: []Arg{bU32(zerosU32(5 * n)), bU32(randU32(n, 18, 0)), bU32(randU32(n, 19, 0)), sU32(n)}},
		{Name: "conversions", Kernel: "Conversions", Grid: g1(n, 64), Block: gpu.D1(64),
			Args: []Arg{bI32(zerosI32(n)), bU32(zerosU32(n)), bF32(zerosF32(2 * n)), bF32(specialF32(n, 20)), sU32(n)}},
		{Name: "min_max_clamp_int", Kernel: "MinMaxClampInt", Grid: g1(n, 64), Block: gpu.D1(64),
			Args: []Arg{bI32(zerosI32(4 * n)), bI32(randI32(n, 21)), bI32(randI32(n, 22)), sU32(n)}},
		{Name: "bit_casts", Kernel: "BitCasts", Grid: g1(n, 64), Block: gpu.D1(64),
			Args: []Arg{bU32(zerosU32(n)), bF32(zerosF32(n)), bF32(specialF32(n, 23)[5:]), sU32(n - 5)}},
		{Name: "math_unary", Kernel: "MathUnary", Grid: g1(n, 64), Block: gpu.D1(64),
			Args: []Arg{bF32(zerosF32(16 * n)), bF32(randF32(n, 24, -6, 6)), sU32(n)}, ULP: 8, Abs: 2e-6},
		{Name: "float_min_max", Kernel: "FloatMinMax", Grid: g1(n, 64), Block: gpu.D1(64),
			Args: []Arg{bF32(zerosF32(2 * n)), bF32(specialF32(n, 25)), bF32(randF32(n, 26, -8, 8)), sU32(n)}},
		{Name: "nan_inf", Kernel: "NaNInf", Grid: g1(n, 64), Block: gpu.D1(64),
			Args: []Arg{bF32(zerosF32(3 * n)), bU32(zerosU32(n)), bF32(specialF32(n, 27)), sU32(n)}, ULP: 1},
		{Name: "polynomial", Kernel: "Polynomial", Grid: g1(n, 64), Block: gpu.D1(64),
			Args: []Arg{bF32(zerosF32(n)), bF32(randF32(n, 28, -3, 3)), sU32(n)}, ULP: 4, Abs: 1e-6},
		{Name: "helpers", Kernel: "Helpers", Grid: g1(n, 64), Block: gpu.D1(64),
			Args: []Arg{bF32(zerosF32(n)), bF32(randF32(n, 29, -3, 3)), sU32(n), sF32(0.75)}, ULP: 8, Abs: 1e-6},
		{Name: "nested_loops", Kernel: "NestedLoops", Grid: g1(200, 64), Block: gpu.D1(64),
			Args: []Arg{bI32(zerosI32(200)), sU32(200), sU32(13)}},
		{Name: "while_loop", Kernel: "WhileLoop", Grid: g1(n, 64), Block: gpu.D1(64),
			Args: []Arg{bU32(zerosU32(n)), bU32(collatz), sU32(n)}},
		{Name: "local_array", Kernel: "LocalArray", Grid: g1(n, 64), Block: gpu.D1(64),
			Args: []Arg{bF32(zerosF32(n)), bF32(randF32(n, 30, -2, 2)), sU32(n)}, ULP: 4, Abs: 1e-6},
		{Name: "infinite_loop_break", Kernel: "InfiniteLoopBreak", Grid: g1(n, 64), Block: gpu.D1(64),
			Args: []Arg{bI32(zerosI32(n)), sU32(n)}},
		{Name: "reduce_sum", Kernel: "ReduceSum", Grid: g1(n, 256), Block: gpu.D1(256),
			Args: []Arg{bF32(zerosF32(4)), bF32(randF32(n, 31, -1, 1)), sU32(n)}, ULP: 64, Abs: 1e-5},
		{Name: "transpose", Kernel: "Transpose", Grid: gpu.D2((cols+15)/16, (rows+15)/16), Block: gpu.D2(16, 16),
			Args: []Arg{bF32(zerosF32(rows * cols)), bF32(randF32(rows*cols, 32, -9, 9)), sU32(rows), sU32(cols)}},
		{Name: "sgemm", Kernel: "Sgemm", Grid: gpu.D2((nn+15)/16, (m+15)/16), Block: gpu.D2(16, 16),
			Args: []Arg{bF32(randF32(m*nn, 33, -1, 1)), bF32(randF32(m*k, 34, -1, 1)), bF32(randF32(k*nn, 35, -1, 1)),
				sU32(m), sU32(nn), sU32(k), sF32(1.5), sF32(-0.5)}, ULP: 64, Abs: 1e-5},
		{Name: "scan", Kernel: "Scan", Grid: g1(n, 128), Block: gpu.D1(128),
			Args: []Arg{bU32(zerosU32(n)), bU32(randU32(n, 36, 1000)), sU32(n)}},
		{Name: "shared_reverse", Kernel: "SharedReverse", Grid: g1(n, 64), Block: gpu.D1(64),
			Args: []Arg{bI32(zerosI32(n)), bI32(randI32(n, 37)), sU32(n)}},
		{Name: "histogram", Kernel: "Histogram", Grid: g1(4*n, 64), Block: gpu.D1(64),
			Args: []Arg{bU32(zerosU32(7)), bU32(randU32(4*n, 38, 0)), sU32(4 * n), sU32(7)}},
		{Name: "shared_histogram", Kernel: "SharedHistogram", Grid: g1(4*n, 128), Block: gpu.D1(128),
			Args: []Arg{bU32(zerosU32(16)), bU32(randU32(4*n, 39, 0)), sU32(4 * n)}},
		{Name: "atomic_min_max", Kernel: "AtomicMinMax", Grid: g1(n, 64), Block: gpu.D1(64),
			Args: []Arg{bI32([]int32{math.MaxInt32, math.MinInt32}), bU32([]uint32{math.MaxUint32, 0, 0, 0}),
				bI32(randI32(n, 40)), sU32(n)}},
		{Name: "atomic_ticket", Kernel: "AtomicTicket", Grid: g1(n, 64), Block: gpu.D1(64),
			Args: []Arg{bU32(zerosU32(1)), {U32: zerosU32(n), Unordered: true}, sU32(n)}},
		{Name: "subgroup_reduce", Kernel: "SubgroupReduce", Grid: g1(n, 256), Block: gpu.D1(256),
			Args: []Arg{bF32(zerosF32(4)), bF32(zerosF32(4)), bF32(zerosF32(4)), bI32(zerosI32(4)), bI32(zerosI32(4)),
				bU32(zerosU32(4)), bF32(randF32(n, 42, -1, 1)), sU32(n)}, ULP: 64, Abs: 1e-4},
		{Name: "subgroup_reduce_block64", Kernel: "SubgroupReduce", Grid: g1(n, 64), Block: gpu.D1(64),
			Args: []Arg{bF32(zerosF32(16)), bF32(zerosF32(16)), bF32(zerosF32(16)), bI32(zerosI32(16)), bI32(zerosI32(16)),
				bU32(zerosU32(16)), bF32(randF32(n, 43, -1, 1)), sU32(n)}, ULP: 64, Abs: 1e-4},
		{Name: "subgroup_scan", Kernel: "SubgroupScan", Grid: g1(n, 128), Block: gpu.D1(128),
			Args: []Arg{bU32(zerosU32(n)), bU32(randU32(n, 44, 1000)), sU32(n)}},
		{Name: "subgroup_lanes", Kernel: "SubgroupLanes", Grid: g1(n, 64), Block: gpu.D1(64),
			Args: []Arg{bU32(zerosU32(n)), bU32(zerosU32(n)), bU32(zerosU32(n)), bU32(zerosU32(n)), bF32(zerosF32(n)), sU32(n)}},
		{Name: "half_convert", Kernel: "HalfConvert", Grid: g1(len(halfEdges), 64), Block: gpu.D1(64),
			Args: []Arg{bU32(zerosU32(len(halfEdges) / 2)), bF32(zerosF32(len(halfEdges))), bF32(halfEdges), sU32(uint32(len(halfEdges)))}},
		{Name: "half_scale", Kernel: "HalfScale", Grid: g1(n, 64), Block: gpu.D1(64),
			Args: []Arg{bU32(zerosU32(n / 2)), bU32(zerosU32(n / 2)), bU32(halves(randF32(n, 45, -40000, 40000))), sF32(1.7), sU32(n)}},
		{Name: "half_row_sum", Kernel: "HalfRowSum", Grid: g1(rows, 32), Block: gpu.D1(32),
			Args: []Arg{bF32(zerosF32(rows)), bF32(zerosF32(rows)), bU32(halves(randF32(rows*cols+1, 46, -4, 4))), sU32(rows), sU32(cols)}, ULP: 2, Abs: 1e-5},
		// Matrix multiply-accumulate tiles: c (not zero) += a·b, 64×96 by k 64.
		{Name: "matmul_f32", Kernel: "MatMulF32", Grid: gpu.D2(mmN/32, mmM/32), Block: gpu.D1(64),
			Args: []Arg{bF32(randF32(mmM*mmN, 50, -1, 1)), bF32(randF32(mmM*mmK, 51, -1, 1)), bF32(randF32(mmK*mmN, 52, -1, 1)),
				sU32(mmN), sU32(mmK)}, ULP: 64, Abs: 1e-4},
		{Name: "matmul_bf16_transposed", Kernel: "MatMulBF16T", Grid: gpu.D2(mmN/32, mmM/16), Block: gpu.D1(128),
			Args: []Arg{bF32(randF32(mmM*mmN, 53, -1, 1)), bF32(randF32(mmM*mmK, 54, -1, 1)), bF32(randF32(mmN*mmK, 55, -1, 1)),
				sU32(mmN), sU32(mmK)}, ULP: 64, Abs: 1e-4},
		{Name: "matmul_f16", Kernel: "MatMulF16", Grid: gpu.D2(mmN/16, mmM/16), Block: gpu.D1(96),
			Args: []Arg{bF32(randF32(mmM*mmN, 56, -1, 1)), bF32(randF32(mmM*mmK, 57, -1, 1)), bF32(randF32(mmK*mmN, 58, -1, 1)),
				sU32(mmN), sU32(mmK), sU32(0)}, ULP: 64, Abs: 1e-4},
		{Name: "matmul_f16_transposed", Kernel: "MatMulF16", Grid: gpu.D2(mmN/16, mmM/16), Block: gpu.D1(32),
			// B up to 40000: sums of products near 1e5 cancel to results
			// near 1e3, so a device summing in another order (CUDA's
			// tensor cores) differs by about 0.02 there: Abs allows it.
			Args: []Arg{bF32(randF32(mmM*mmN, 59, -1, 1)), bF32(randF32(mmM*mmK, 60, -1, 1)), bF32(randF32(mmN*mmK, 61, -40000, 40000)),
				sU32(mmN), sU32(mmK), sU32(1)}, ULP: 64, Abs: 0.25},
		// The operands' rounding, exactly: c = 0 + a·I is a rounded.
		{Name: "matmul_f16_rounding", Kernel: "MatMulF16", Grid: gpu.D2(1, 1), Block: gpu.D1(64),
			Args: []Arg{bF32(zerosF32(16 * 16)), bF32(finiteEdges(halfEdges, 65504, 16*16)), bF32(identity(16)), sU32(16), sU32(16), sU32(0)}},
		{Name: "matmul_bf16_rounding", Kernel: "MatMulBF16T", Grid: gpu.D2(1, 1), Block: gpu.D1(64),
			Args: []Arg{bF32(zerosF32(16 * 32)), bF32(finiteEdges(bf16Edges, 3e38, 16*32)), bF32(identity(32)), sU32(32), sU32(32)}},
		// The same from the buffers (kernel.MatMulAddFrom): a's rows 3 and
		// b's 1 or 2 floats longer than their data in the 16-bit cases.
		{Name: "matmul_from_f32", Kernel: "MatMulFromF32", Grid: gpu.D2(mmN/32, mmM/32), Block: gpu.D1(64),
			Args: []Arg{bF32(randF32(mmM*mmN, 62, -1, 1)), bF32(randF32(mmM*mmK, 63, -1, 1)), bF32(randF32(mmK*mmN, 64, -1, 1)),
				sU32(mmN), sU32(mmK)}, ULP: 64, Abs: 1e-4},
		{Name: "matmul_from_bf16_transposed", Kernel: "MatMulFromHalf", Grid: gpu.D2(mmN/32, mmM/16), Block: gpu.D1(128),
			Args: []Arg{bF32(randF32(mmM*mmN, 65, -1, 1)), bF32(randF32(mmM*(mmK+3), 66, -1, 1)), bF32(randF32(mmN*(mmK+1), 67, -1, 1)),
				sU32(mmN), sU32(mmK), sU32(mmK + 3), sU32(mmK + 1), sU32(1)}, ULP: 64, Abs: 1e-4},
		{Name: "matmul_from_f16", Kernel: "MatMulFromHalf", Grid: gpu.D2(mmN/32, mmM/16), Block: gpu.D1(32),
			Args: []Arg{bF32(randF32(mmM*mmN, 68, -1, 1)), bF32(randF32(mmM*(mmK+3), 69, -1, 1)), bF32(randF32(mmK*(mmN+2), 70, -1, 1)),
				sU32(mmN), sU32(mmK), sU32(mmK + 3), sU32(mmN + 2), sU32(0)}, ULP: 64, Abs: 1e-4},
		{Name: "atomic_cas", Kernel: "AtomicCAS", Grid: g1(n, 64), Block: gpu.D1(64),
			Args: []Arg{bU32([]uint32{5}), bU32(randU32(n, 41, 0)), bU32(zerosU32(n)), sU32(n)}},
	}, append(mmaCases(), ldmCases()...)...)
}
