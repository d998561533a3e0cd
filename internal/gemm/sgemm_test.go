package gemm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// sentinel marks the floats of C outside the matrix (the gaps of a leading
// dimension wider than n, and the tail): Sgemm must leave them alone.
var sentinel = float32(math.Float32frombits(0x7fc0beef))

// matrix returns a rows×cols matrix with leading dimension ld (the gap filled
// with sentinel) and two extra floats at the end, values in [lo, hi).
func matrix(rng *rand.Rand, rows, cols, ld int, lo, hi float32) []float32 {
	m := make([]float32, max(0, (rows-1)*ld+cols)+2)
	for i := range m {
		m[i] = sentinel
	}
	for r := range rows {
		for j := range cols {
			m[r*ld+j] = lo + (hi-lo)*rng.Float32()
		}
	}
	return m
}

// reference computes alpha·A·B + beta·C in float64, with the bound on the
// float32 rounding error of each element: a few ulps of |alpha|·Σ|a·b| +
// |beta·c| per step of k.
func reference(m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) (want, bound []float64) {
	want, bound = make([]float64, m*n), make([]float64, m*n)
	const u = 1.0 / (1 << 23)
	for i := range m {
		for j := range n {
			var s, abs float64
			for p := range k {
				x := float64(a[i*lda+p]) * float64(b[p*ldb+j])
				s += x
				abs += math.Abs(x)
			}
			w := float64(alpha) * s
			mag := math.Abs(float64(alpha)) * abs
			if beta != 0 {
				w += float64(beta) * float64(c[i*ldc+j])
				mag += math.Abs(float64(beta) * float64(c[i*ldc+j]))
			}
			want[i*n+j] = w
			bound[i*n+j] = float64(k+3) * u * mag
		}
	}
	return want, bound
}

// checkC compares C with the reference and checks that nothing outside the
// matrix was written.
func checkC(t *testing.T, c []float32, ldc, m, n int, want, bound []float64) {
	t.Helper()
	for i := range m {
		for j := range n {
			// Compared here, not by require for each element: this runs for
			// millions of elements (slowly under an emulator).
			got := float64(c[i*ldc+j])
			if !(math.Abs(got-want[i*n+j]) <= bound[i*n+j]) { // NaN fails too
				require.Failf(t, "wrong element", "C[%d,%d] = %g, want %g within %g", i, j, got, want[i*n+j], bound[i*n+j])
			}
		}
	}
	for x := range c {
		if r, j := x/ldc, x%ldc; r < m && j < n {
			continue
		}
		if math.Float32bits(c[x]) != math.Float32bits(sentinel) {
			require.Failf(t, "written outside the matrix", "C[%d] = %g", x, c[x])
		}
	}
}

// TestSgemmKernels runs every micro-kernel this CPU has (the assembly ones and
// the pure-Go fallback) over odd sizes, alpha and beta, and leading
// dimensions wider than the matrices.
func TestSgemmKernels(t *testing.T) {
	sizes := []int{1, 3, 17, 33, 127, 129}
	scalars := []struct{ alpha, beta float32 }{{1, 0}, {-1.5, 0}, {0.5, 2}, {2, -0.75}}
	for _, kern := range kernels {
		for _, m := range sizes {
			for _, n := range sizes {
				for _, k := range sizes {
					for si, s := range scalars {
						pad := si % 2 * 5 // every other case with gaps between rows
						name := fmt.Sprintf("%s/%dx%dx%d/alpha=%g,beta=%g/pad=%d", kern.name, m, n, k, s.alpha, s.beta, pad)
						t.Run(name, func(t *testing.T) {
							runCase(t, kern, m, n, k, k+pad, n+2*pad, n+pad, s.alpha, s.beta)
						})
					}
				}
			}
		}
	}
}

// TestSgemmWholeTiles runs every micro-kernel over sizes that are whole
// multiples of its tile (every tile goes straight to C, none through the
// edge path), one off them on either side, k = 1 and k past kcBlock.
func TestSgemmWholeTiles(t *testing.T) {
	scalars := []struct{ alpha, beta float32 }{{1, 0}, {-2, 1}, {0.5, -0.25}}
	for _, kern := range kernels {
		mr, nr := kern.mr, kern.nr
		shapes := []struct{ m, n, k int }{
			{mr, nr, 1}, {mr, nr, 2}, {2 * mr, 3 * nr, 1}, {3 * mr, 2 * nr, 7}, {2 * mr, 2 * nr, kcBlock + 5},
			{mr + 1, nr - 1, 1}, {mr - 1, nr + 1, 3}, {2*mr - 1, 2*nr + 1, 9},
		}
		for _, sh := range shapes {
			for si, sc := range scalars {
				pad := si % 2 * 3
				name := fmt.Sprintf("%s/%dx%dx%d/alpha=%g,beta=%g/pad=%d", kern.name, sh.m, sh.n, sh.k, sc.alpha, sc.beta, pad)
				t.Run(name, func(t *testing.T) {
					runCase(t, kern, sh.m, sh.n, sh.k, sh.k+pad, sh.n+pad, sh.n+2*pad, sc.alpha, sc.beta)
				})
			}
		}
	}
}

// TestMicroKernel calls each micro-kernel directly on one packed panel of A
// and of B and checks the whole mr×nr tile of C, that the floats between its
// rows (ldc wider than nr) and after it are left alone, and that C is not
// read when loadC is false.
func TestMicroKernel(t *testing.T) {
	cases := []struct {
		alpha, beta float32
		loadC       bool
	}{{1, 0, false}, {-1.5, 0, false}, {0.5, 2, true}, {2, -0.75, true}, {1, 1, true}}
	for _, kern := range kernels {
		mr, nr := kern.mr, kern.nr
		for _, kc := range []int{1, 2, 3, 17, kcBlock} {
			for _, ldc := range []int{nr, nr + 5} {
				for _, tc := range cases {
					name := fmt.Sprintf("%s/kc=%d/ldc=%d/alpha=%g,beta=%g,loadC=%t", kern.name, kc, ldc, tc.alpha, tc.beta, tc.loadC)
					t.Run(name, func(t *testing.T) {
						rng := rand.New(rand.NewPCG(uint64(kc), uint64(ldc)))
						a := matrix(rng, 1, mr*kc, mr*kc, -1, 1)[:mr*kc]
						b := matrix(rng, 1, nr*kc, nr*kc, -1, 1)[:nr*kc]
						c := matrix(rng, mr, nr, ldc, -1, 1)
						// The panels hold column p of A at a[p·mr:], row p
						// of B at b[p·nr:]: as an mr×kc matrix A and a kc×nr
						// matrix B, in the reference's row-major terms.
						aRows := make([]float32, mr*kc)
						for p := range kc {
							for r := range mr {
								aRows[r*kc+p] = a[p*mr+r]
							}
						}
						beta := tc.beta
						if !tc.loadC {
							beta = 0
						}
						want, bound := reference(mr, nr, kc, tc.alpha, aRows, kc, b, nr, beta, c, ldc)
						if !tc.loadC {
							for r := range mr {
								for j := range nr {
									c[r*ldc+j] = float32(math.NaN())
								}
							}
						}
						kern.run(kc, a, b, c, ldc, tc.alpha, tc.beta, tc.loadC)
						checkC(t, c, ldc, mr, nr, want, bound)
					})
				}
			}
		}
	}
}

// TestSgemmBlocking crosses the cache blocks: k beyond kcBlock (later blocks
// add to C), m beyond mcRows, n beyond ncCols.
func TestSgemmBlocking(t *testing.T) {
	shapes := []struct{ m, n, k int }{
		{9, 40, kcBlock + 1}, {3, 5, 3*kcBlock + 7}, {mcRows + 13, 35, 20}, {2*mcRows + 1, 17, kcBlock + 3}, {5, ncCols + 37, 9},
	}
	for _, kern := range kernels {
		for _, s := range shapes {
			for _, beta := range []float32{0, -0.5} {
				t.Run(fmt.Sprintf("%s/%dx%dx%d/beta=%g", kern.name, s.m, s.n, s.k, beta), func(t *testing.T) {
					runCase(t, kern, s.m, s.n, s.k, s.k+1, s.n, s.n+3, 1.25, beta)
				})
			}
		}
	}
}

func runCase(t *testing.T, kern microKernel, m, n, k, lda, ldb, ldc int, alpha, beta float32) {
	t.Helper()
	rng := rand.New(rand.NewPCG(uint64(m*1000+n), uint64(k)))
	a := matrix(rng, m, k, lda, -1, 1)
	b := matrix(rng, k, n, ldb, -1, 1)
	c := matrix(rng, m, n, ldc, -1, 1)
	want, bound := reference(m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
	if beta == 0 { // C must not be read: NaN there must not reach the result
		for i := range m {
			for j := range n {
				c[i*ldc+j] = float32(math.NaN())
			}
		}
	}
	saved := active
	active = kern
	defer func() { active = saved }()
	require.NoError(t, Sgemm(m, n, k, alpha, a, lda, b, ldb, beta, c, ldc))
	checkC(t, c, ldc, m, n, want, bound)
}

// TestSgemmExact: small integers multiply and add exactly in float32, so
// every kernel must agree with the reference bit for bit.
func TestSgemmExact(t *testing.T) {
	const m, n, k = 37, 70, 300
	rng := rand.New(rand.NewPCG(1, 2))
	ints := func(size int) []float32 {
		x := make([]float32, size)
		for i := range x {
			x[i] = float32(rng.IntN(7) - 3)
		}
		return x
	}
	a, b, c0 := ints(m*k), ints(k*n), ints(m*n)
	want, _ := reference(m, n, k, 2, a, k, b, n, -1, c0, n)
	for _, kern := range kernels {
		t.Run(kern.name, func(t *testing.T) {
			c := append([]float32(nil), c0...)
			sgemm(kern, m, n, k, 2, a, k, b, n, false, -1, c, n)
			for i, w := range want {
				require.Equal(t, float32(w), c[i], "C[%d]", i)
			}
		})
	}
}

// TestSgemmZeroK: with k = 0, C becomes beta·C, and zero for beta = 0 even
// where C held NaN.
func TestSgemmZeroK(t *testing.T) {
	nan := float32(math.NaN())
	for _, tc := range []struct {
		beta float32
		c    []float32
		want []float32
	}{
		{0, []float32{nan, 1, 2, 3}, []float32{0, 0, 0, 0}},
		{-2, []float32{1, 2, 3, 4}, []float32{-2, -4, -6, -8}},
	} {
		require.NoError(t, Sgemm(2, 2, 0, 1, nil, 1, nil, 2, tc.beta, tc.c, 2))
		require.Equal(t, tc.want, tc.c)
	}
}

// TestSgemmBadArguments: sizes that do not fit the slices are errors, and C
// is left alone.
func TestSgemmBadArguments(t *testing.T) {
	buf := func(n int) []float32 { return make([]float32, n) }
	cases := map[string]struct {
		m, n, k       int
		a, b, c       []float32
		lda, ldb, ldc int
		want          string
	}{
		"negative m":       {-1, 2, 2, buf(4), buf(4), buf(4), 2, 2, 2, "negative size"},
		"lda below k":      {2, 2, 3, buf(6), buf(6), buf(4), 2, 2, 2, "leading dimension of a"},
		"ldc below n":      {2, 3, 2, buf(4), buf(6), buf(6), 2, 3, 2, "leading dimension of c"},
		"a too short":      {2, 2, 2, buf(3), buf(4), buf(4), 2, 2, 2, "a holds 3 floats"},
		"b too short":      {2, 2, 2, buf(4), buf(3), buf(4), 2, 2, 2, "b holds 3 floats"},
		"c too short":      {2, 2, 2, buf(4), buf(4), buf(3), 2, 2, 2, "c holds 3 floats"},
		"c short for ldc":  {2, 2, 2, buf(4), buf(4), buf(4), 2, 2, 3, "c holds 4 floats"},
		"huge rows":        {math.MaxInt / 2, 2, 2, buf(4), buf(4), buf(4), 2, 2, 2, "a holds 4 floats"},
		"zero ld of empty": {0, 0, 0, nil, nil, nil, 0, 0, 0, "leading dimension of a"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			for i := range tc.c {
				tc.c[i] = 7
			}
			err := Sgemm(tc.m, tc.n, tc.k, 1, tc.a, tc.lda, tc.b, tc.ldb, 0, tc.c, tc.ldc)
			require.ErrorContains(t, err, tc.want)
			for _, v := range tc.c {
				require.Equal(t, float32(7), v)
			}
		})
	}
}

// TestBlocksCoverOnce: for any number of parts, the blocks of all parts cover
// every element of C exactly once.
func TestBlocksCoverOnce(t *testing.T) {
	for _, s := range [][2]int{{1, 1}, {17, 33}, {minTileRows, minTileCols}, {minTileRows + 1, 3*minTileCols - 1}, {512, 512}, {1000, 70}, {2049, 2047}} {
		m, n := s[0], s[1]
		for _, parts := range []int{1, 2, 3, 7, 64, 1000, 1 << 16} {
			t.Run(fmt.Sprintf("%dx%d/parts=%d", m, n, parts), func(t *testing.T) {
				hits := make([]uint8, m*n)
				for part := range parts {
					for b := range Blocks(part, parts, m, n) {
						if !(0 <= b.I0 && b.I0 < b.I1 && b.I1 <= m && 0 <= b.J0 && b.J0 < b.J1 && b.J1 <= n) {
							t.Fatalf("part %d: block %+v outside C", part, b)
						}
						for i := b.I0; i < b.I1; i++ {
							for j := b.J0; j < b.J1; j++ {
								hits[i*n+j]++
							}
						}
					}
				}
				for x, h := range hits {
					if h != 1 {
						t.Fatalf("element (%d,%d) covered %d times", x/n, x%n, h)
					}
				}
			})
		}
	}
}

// TestBlocksOutside: parts outside the range, and empty matrices, own nothing.
func TestBlocksOutside(t *testing.T) {
	for _, tc := range []struct{ part, parts, m, n int }{{-1, 4, 8, 8}, {4, 4, 8, 8}, {0, 0, 8, 8}, {0, 1, 0, 8}, {0, 1, 8, -1}} {
		for b := range Blocks(tc.part, tc.parts, tc.m, tc.n) {
			t.Fatalf("part %d of %d of %dx%d owns %+v", tc.part, tc.parts, tc.m, tc.n, b)
		}
	}
}

// TestShareLargeProducts: the split stays exact when part·tiles exceeds 64
// bits.
func TestShareLargeProducts(t *testing.T) {
	const parts, total = 1 << 40, 1 << 40
	require.Equal(t, uint64(1<<39), share(1<<39, parts, total))
	require.Equal(t, uint64(total), share(parts, parts, total))
	require.Equal(t, uint64(1), share(1, parts, total))
}

// TestTileSize: tiles grow with C but leave at least minTiles of them, and
// stay within the bounds.
func TestTileSize(t *testing.T) {
	for _, s := range [][2]int{{1, 1}, {512, 512}, {1024, 1024}, {2048, 2048}, {4096, 4096}, {100000, 3}, {3, 100000}} {
		m, n := s[0], s[1]
		rows, cols := tileSize(m, n)
		require.True(t, minTileRows <= rows && rows <= maxTileRows && minTileCols <= cols && cols <= maxTileCols, "%dx%d: %dx%d", m, n, rows, cols)
		if rows > minTileRows || cols > minTileCols {
			require.GreaterOrEqual(t, ceilDiv(m, rows)*ceilDiv(n, cols), minTiles, "%dx%d: %dx%d", m, n, rows, cols)
		}
	}
	rows, cols := tileSize(2048, 2048)
	require.Equal(t, [2]int{256, 512}, [2]int{rows, cols}, "2048² is cut into 32 tiles")
}

// TestSgemmBT runs every micro-kernel with B given transposed over odd sizes
// (edges of every micro-kernel's tile, and more than one block of k) and
// leading dimensions wider than the rows, against the reference on B.
func TestSgemmBT(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	tests := []struct {
		m, n, k, lda, ldbt, ldc int
		alpha, beta             float32
	}{
		{1, 1, 1, 1, 1, 1, 1, 0},
		{13, 35, 17, 20, 19, 40, 1, 1},
		{37, 70, 300, 301, 310, 71, -2, 0.5},
		{64, 64, 64, 64, 64, 64, 1, 1},
	}
	for _, kern := range kernels {
		for _, tc := range tests {
			t.Run(fmt.Sprintf("%s/%dx%dx%d", kern.name, tc.m, tc.n, tc.k), func(t *testing.T) {
				a := matrix(rng, tc.m, tc.k, tc.lda, -1, 1)
				bt := matrix(rng, tc.n, tc.k, tc.ldbt, -1, 1)
				c := matrix(rng, tc.m, tc.n, tc.ldc, -1, 1)
				b := make([]float32, tc.k*tc.n) // B itself, for the reference
				for p := range tc.k {
					for j := range tc.n {
						b[p*tc.n+j] = bt[j*tc.ldbt+p]
					}
				}
				want, bound := reference(tc.m, tc.n, tc.k, tc.alpha, a, tc.lda, b, tc.n, tc.beta, c, tc.ldc)
				saved := active
				active = kern
				defer func() { active = saved }()
				require.NoError(t, SgemmBT(tc.m, tc.n, tc.k, tc.alpha, a, tc.lda, bt, tc.ldbt, tc.beta, c, tc.ldc))
				checkC(t, c, tc.ldc, tc.m, tc.n, want, bound)
			})
		}
	}
}

// TestSgemmBTBadArguments: a transposed B too short for n rows of k is an
// error, and C is left alone.
func TestSgemmBTBadArguments(t *testing.T) {
	c := []float32{7, 7, 7, 7}
	err := SgemmBT(2, 2, 3, 1, make([]float32, 6), 3, make([]float32, 5), 3, 0, c, 2)
	require.ErrorContains(t, err, "bt holds 5 floats")
	require.Equal(t, []float32{7, 7, 7, 7}, c)
}

// transpose returns the cols×rows transpose (leading dimension ld, gaps
// holding sentinel) of the rows×cols matrix x with leading dimension ldx.
func transpose(x []float32, rows, cols, ldx, ld int) []float32 {
	t := make([]float32, max(0, (cols-1)*ld+rows)+2)
	for i := range t {
		t[i] = sentinel
	}
	for r := range rows {
		for j := range cols {
			t[j*ld+r] = x[r*ldx+j]
		}
	}
	return t
}

// TestSgemmT runs every micro-kernel over the four combinations of
// transposed operands, odd sizes (edges of every tile, several blocks of k
// and of m) and leading dimensions wider than the rows, against the
// reference on the untransposed matrices.
func TestSgemmT(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	tests := []struct {
		m, n, k     int
		alpha, beta float32
	}{
		{1, 1, 1, 1, 0},
		{7, 33, 130, 1, 1},
		{13, 35, 17, -2, 0.5},
		{130, 7, 300, 0.5, 0},
	}
	for _, kern := range kernels {
		for _, tc := range tests {
			for _, transA := range []bool{false, true} {
				for _, transB := range []bool{false, true} {
					name := fmt.Sprintf("%s/%dx%dx%d/ta=%v/tb=%v", kern.name, tc.m, tc.n, tc.k, transA, transB)
					t.Run(name, func(t *testing.T) {
						a := matrix(rng, tc.m, tc.k, tc.k+1, -1, 1)
						b := matrix(rng, tc.k, tc.n, tc.n+2, -1, 1)
						c := matrix(rng, tc.m, tc.n, tc.n+3, -1, 1)
						want, bound := reference(tc.m, tc.n, tc.k, tc.alpha, a, tc.k+1, b, tc.n+2, tc.beta, c, tc.n+3)
						opA, lda := a, tc.k+1
						if transA {
							lda = tc.m + 5
							opA = transpose(a, tc.m, tc.k, tc.k+1, lda)
						}
						opB, ldb := b, tc.n+2
						if transB {
							ldb = tc.k + 4
							opB = transpose(b, tc.k, tc.n, tc.n+2, ldb)
						}
						saved := active
						active = kern
						defer func() { active = saved }()
						require.NoError(t, SgemmT(transA, transB, tc.m, tc.n, tc.k, tc.alpha, opA, lda, opB, ldb, tc.beta, c, tc.n+3))
						checkC(t, c, tc.n+3, tc.m, tc.n, want, bound)
					})
				}
			}
		}
	}
}

// TestSgemmTBadArguments: a transposed A too short for k rows of m is an
// error, and C is left alone.
func TestSgemmTBadArguments(t *testing.T) {
	c := []float32{7, 7, 7, 7}
	err := SgemmT(true, false, 2, 2, 3, 1, make([]float32, 5), 2, make([]float32, 6), 2, 0, c, 2)
	require.ErrorContains(t, err, "at holds 5 floats")
	require.Equal(t, []float32{7, 7, 7, 7}, c)
}
