package kmath

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// tileReference is c + a·b in float64 for shape s, the operands rounded to
// s's precision, with a bound on float32 summation error: K+2 ulps of the
// sum of the magnitudes.
func tileReference(c, a, b []float32, s TileShape) (want, bound []float64) {
	want, bound = make([]float64, len(c)), make([]float64, len(c))
	const u = 1.0 / (1 << 23)
	for i := range s.M {
		for j := range s.N {
			sum, mag := float64(c[i*s.LDC+j]), math.Abs(float64(c[i*s.LDC+j]))
			for k := range s.K {
				at := k*s.LDB + j
				if s.TransposeB {
					at = j*s.LDB + k
				}
				bv := b[at]
				x := float64(round(a[i*s.LDA+k], s.Precision)) * float64(round(bv, s.Precision))
				sum += x
				mag += math.Abs(x)
			}
			want[i*s.LDC+j], bound[i*s.LDC+j] = sum, float64(s.K+2)*u*mag
		}
	}
	return want, bound
}

// TestMatMulAddPaths runs both of MatMulAdd's paths (the packed GEMM and
// the loop) and MatMulAdd itself on shapes whose sides are not multiples of
// any micro-kernel's tile (6×16, 8×32, 8×12, 4×4), more than one block of k
// deep, with padded strides and a transposed B, in every precision: each
// element within float32 summation error of the float64 sum, and nothing
// outside the tile written.
func TestMatMulAddPaths(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	shapes := []TileShape{
		{M: 16, N: 16, K: 16},
		{M: 48, N: 80, K: 32, LDA: 37, LDB: 83, LDC: 81},
		{M: 112, N: 48, K: 304, TransposeB: true, LDB: 305},
		{M: 32, N: 144, K: 64, LDC: 150, Precision: PrecisionBFloat16},
		{M: 80, N: 16, K: 48, TransposeB: true, LDA: 50, LDB: 49, LDC: 17, Precision: PrecisionFloat16},
		{M: 128, N: 128, K: 64, Precision: PrecisionFloat16},
	}
	paths := []struct {
		name string
		run  func(c, a, b []float32, s TileShape) error
	}{
		{"packed", matMulPacked},
		{"loop", func(c, a, b []float32, s TileShape) error { matMulLoop(c, a, b, s); return nil }},
		{"MatMulAdd", MatMulAdd},
	}
	for _, s := range shapes {
		s = s.WithDefaults()
		nc, na, nb := s.Need()
		for _, p := range paths {
			t.Run(fmt.Sprintf("%dx%dx%d/T%t/p%d/%s", s.M, s.N, s.K, s.TransposeB, s.Precision, p.name), func(t *testing.T) {
				fill := func(n int) []float32 {
					x := make([]float32, n+3) // a tail past what the shape needs
					for i := range x {
						x[i] = float32(rng.Float64()*2 - 1)
					}
					return x
				}
				c, a, b := fill(nc), fill(na), fill(nb)
				want, bound := tileReference(c, a, b, s)
				before := append([]float32(nil), c...)
				require.NoError(t, p.run(c, a, b, s))
				for i := range c {
					if i%s.LDC >= s.N || i/s.LDC >= s.M {
						require.Equal(t, math.Float32bits(before[i]), math.Float32bits(c[i]), "c[%d], outside the tile, changed", i)
						continue
					}
					if d := math.Abs(float64(c[i]) - want[i]); !(d <= bound[i]) {
						require.Failf(t, "wrong element", "c[%d] = %g, want %g within %g", i, c[i], want[i], bound[i])
					}
				}
			})
		}
	}
}

// TestMatMulAddPackedExact: small integers (and their bfloat16 and float16
// roundings, which they are) multiply and add exactly, so the packed path
// agrees with the loop bit for bit, whatever the order of its sums.
func TestMatMulAddPackedExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, p := range []Precision{PrecisionFloat32, PrecisionBFloat16, PrecisionFloat16} {
		for _, transB := range []bool{false, true} {
			s := TileShape{M: 48, N: 96, K: 272, TransposeB: transB, Precision: p}.WithDefaults()
			nc, na, nb := s.Need()
			ints := func(n int) []float32 {
				x := make([]float32, n)
				for i := range x {
					x[i] = float32(rng.IntN(9) - 4)
				}
				return x
			}
			c, a, b := ints(nc), ints(na), ints(nb)
			loop := append([]float32(nil), c...)
			matMulLoop(loop, a, b, s)
			require.NoError(t, matMulPacked(c, a, b, s))
			require.Equal(t, loop, c, "precision %d, transposed %t", p, transB)
		}
	}
}

// TestMatMulAddBadShape: a shape that does not fit the slices is an error,
// on either path, and c is left alone.
func TestMatMulAddBadShape(t *testing.T) {
	c := make([]float32, 16*16)
	err := MatMulAdd(c, make([]float32, 16*16), make([]float32, 16*16-1), TileShape{M: 16, N: 16, K: 16}.WithDefaults())
	require.ErrorContains(t, err, "b holds 255 elements")
	require.Equal(t, make([]float32, 16*16), c)
}

// TestMatMulAddAllocatesNothing: a group runs MatMulAdd once per step of
// its loop, so once the pools hold their buffers a call allocates nothing,
// in every precision.
func TestMatMulAddAllocatesNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector makes sync.Pool drop entries: the pools allocate again")
	}
	for _, p := range []Precision{PrecisionFloat32, PrecisionBFloat16, PrecisionFloat16} {
		s := TileShape{M: 64, N: 64, K: 32, TransposeB: p == PrecisionBFloat16, Precision: p}.WithDefaults()
		nc, na, nb := s.Need()
		c, a, b := make([]float32, nc), make([]float32, na), make([]float32, nb)
		require.NoError(t, MatMulAdd(c, a, b, s)) // fills the pools
		allocs := testing.AllocsPerRun(20, func() { _ = MatMulAdd(c, a, b, s) })
		require.Zero(t, allocs, "precision %d", p)
	}
}
