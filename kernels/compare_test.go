package kernels

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu/errors"
)

func TestULPDiff(t *testing.T) {
	next := func(f float32) float32 { return math.Nextafter32(f, float32(math.Inf(1))) }
	tiny := math.Float32frombits(1) // smallest positive subnormal
	inf := float32(math.Inf(1))
	nan := float32(math.NaN())
	negZero := float32(math.Copysign(0, -1))
	cases := []struct {
		name string
		a, b float32
		want uint32
	}{
		{"equal", 1, 1, 0},
		{"adjacent at 1", 1, next(1), 1},
		{"adjacent below 1", 1, math.Nextafter32(1, 0), 1},
		{"two apart", 1, next(next(1)), 2},
		{"1 to 2", 1, 2, 1 << 23},
		{"+0 and -0", 0, negZero, 0},
		{"0 and tiny", 0, tiny, 1},
		{"-0 and tiny", negZero, tiny, 1},
		{"tiny across zero", tiny, -tiny, 2},
		{"-1 and 1", -1, 1, 2 * 0x3f80_0000},
		{"max and +inf", math.MaxFloat32, inf, 1},
		{"-max and -inf", -math.MaxFloat32, -inf, 1},
		{"-inf and +inf", -inf, inf, 2 * 0x7f80_0000},
		{"NaN and 1", nan, 1, math.MaxUint32},
		{"1 and NaN", 1, nan, math.MaxUint32},
		{"NaN and NaN", nan, nan, math.MaxUint32},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, ULPDiff(c.a, c.b))
			assert.Equal(t, c.want, ULPDiff(c.b, c.a), "symmetric")
		})
	}
}

func TestAlmostEqual(t *testing.T) {
	inf := float32(math.Inf(1))
	nan := float32(math.NaN())
	one1 := math.Nextafter32(1, 2)
	cases := []struct {
		name   string
		a, b   float32
		ulp    uint32
		abs    float32
		expect bool
	}{
		{"equal", 3, 3, 0, 0, true},
		{"zeros", 0, float32(math.Copysign(0, -1)), 0, 0, true},
		{"1 ULP allowed", 1, one1, 1, 0, true},
		{"1 ULP not allowed", 1, one1, 0, 0, false},
		{"abs tol", 1e-7, -1e-7, 0, 1e-6, true},
		{"abs tol too small", 1e-7, -1e-7, 0, 1e-8, false},
		{"NaN both", nan, nan, 0, 0, true},
		{"NaN one", nan, 1, math.MaxUint32, 1e30, false},
		{"inf same", inf, inf, 0, 0, true},
		{"inf opposite", inf, -inf, math.MaxUint32, 0, false},
		{"inf vs max", inf, math.MaxFloat32, 10, 0, false},
		{"far", 1, 1.5, 1000, 0.1, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.expect, AlmostEqual(c.a, c.b, c.ulp, c.abs))
			assert.Equal(t, c.expect, AlmostEqual(c.b, c.a, c.ulp, c.abs), "symmetric")
		})
	}
}

func TestCompareF32(t *testing.T) {
	nan := float32(math.NaN())
	one1 := math.Nextafter32(1, 2)
	t.Run("match", func(t *testing.T) {
		require.NoError(t, CompareF32(nil, nil, 0, 0))
		require.NoError(t, CompareF32([]float32{1, 2, nan, 0}, []float32{1, 2, nan, float32(math.Copysign(0, -1))}, 0, 0))
		require.NoError(t, CompareF32([]float32{one1}, []float32{1}, 1, 0))
		require.NoError(t, CompareF32([]float32{1000.1}, []float32{1000}, 0, 1e-3), "relative")
	})
	t.Run("length", func(t *testing.T) {
		err := CompareF32([]float32{1}, []float32{1, 2}, 0, 0)
		require.Error(t, err)
		require.Contains(t, err.Error(), "got 1 elements, want 2")
	})
	t.Run("mismatch", func(t *testing.T) {
		got := []float32{1, 2.5, 3, 4, 100}
		want := []float32{1, 2, 3, 4.5, 50}
		err := CompareF32(got, want, 4, 1e-6)
		require.Error(t, err)
		require.ErrorIs(t, err, errors.Execution)
		msg := err.Error()
		for _, s := range []string{"3 of 5 elements differ", "first at [1]", "got 2.5", "want 2 ", "worst at [4]", "got 100", "want 50"} {
			require.Contains(t, msg, s)
		}
	})
	t.Run("NaN vs number", func(t *testing.T) {
		err := CompareF32([]float32{nan}, []float32{1}, math.MaxUint32, math.Inf(1))
		require.Error(t, err)
		require.Contains(t, err.Error(), "1 of 1 elements differ")
	})
	t.Run("ulp only", func(t *testing.T) {
		require.Error(t, CompareF32([]float32{one1}, []float32{1}, 0, 0))
	})
}

func TestReductionTolerance(t *testing.T) {
	require.Equal(t, eps32, ReductionTolerance(0))
	require.Equal(t, eps32, ReductionTolerance(1))
	require.Equal(t, 2*eps32, ReductionTolerance(2), "one addition: its rounding plus the reference's")
	prev := 0.0
	for n := 1; n <= 1<<30; n = n*3/2 + 1 {
		tol := ReductionTolerance(n)
		require.GreaterOrEqual(t, tol, prev, "monotone at n=%d", n)
		require.LessOrEqual(t, tol, 1e-3)
		require.LessOrEqual(t, tol, eps32*float64(n), "never looser than the worst case at n=%d", n)
		if n <= 10000 {
			// Tight enough that losing one of n similar elements is caught.
			require.Less(t, tol, 0.5/float64(n), "n=%d", n)
		}
		prev = tol
	}
	require.Equal(t, 1e-3, ReductionTolerance(1<<30))

	// A plain left-to-right float32 sum (the least accurate order any
	// backend could use) and a pairwise one stay within the tolerance.
	rng := rand.New(rand.NewPCG(11, 12))
	for _, n := range []int{2, 3, 10, 100, 1000, 65537, 1 << 20} {
		x := randF32(rng, n, 0, 1)
		want := float32(RefReduceSum(x))
		var seq float32
		for _, v := range x {
			seq += v
		}
		assert.NoError(t, CompareF32([]float32{seq}, []float32{want}, 0, ReductionTolerance(n)), "sequential n=%d", n)
		assert.NoError(t, CompareF32([]float32{pairwise(x)}, []float32{want}, 0, ReductionTolerance(n)), "pairwise n=%d", n)
	}
}

func pairwise(x []float32) float32 {
	if len(x) <= 2 {
		var s float32
		for _, v := range x {
			s += v
		}
		return s
	}
	h := len(x) / 2
	return pairwise(x[:h]) + pairwise(x[h:])
}
