package kernels

import (
	"fmt"
	"math"

	"github.com/anygpu/gpu/errors"
)

// Results of the same kernel differ between backends within limits: a GPU may
// contract a*x+y into one fused multiply-add (one rounding instead of two), and
// reductions add in a different order. The helpers below compare float32
// results allowing for exactly that.

// ordered maps the bits of a non-NaN float32 onto the integers so that
// adjacent floats map to adjacent integers and both zeros map to 0.
func ordered(f float32) int64 {
	b := math.Float32bits(f)
	if b&0x8000_0000 != 0 {
		return -int64(b & 0x7fff_ffff)
	}
	return int64(b)
}

// ULPDiff returns the distance between a and b in units in the last place:
// how many steps from one float32 to the next lead from a to b. It is 0 when
// a == b (+0 and -0 included) and 1 for adjacent floats, counting across
// zero (the smallest positive and negative subnormals are 2 apart) and up to
// the infinities (MaxFloat32 and +Inf are 1 apart). If a or b is NaN, it
// returns math.MaxUint32, as it does for distances that do not fit a uint32.
func ULPDiff(a, b float32) uint32 {
	if a != a || b != b {
		return math.MaxUint32
	}
	d := ordered(a) - ordered(b)
	if d < 0 {
		d = -d
	}
	if d > math.MaxUint32 {
		return math.MaxUint32
	}
	return uint32(d)
}

// AlmostEqual reports whether a and b agree: they are equal (+0 == -0), or both
// NaN (a kernel that yields NaN where the reference does is right), or both
// finite and at most absTol apart or at most maxULP representable values
// apart. An infinity equals only the same infinity, and a NaN only a NaN.
func AlmostEqual(a, b float32, maxULP uint32, absTol float32) bool {
	if a == b {
		return true
	}
	aNaN, bNaN := a != a, b != b
	if aNaN || bNaN {
		return aNaN && bNaN
	}
	if math.IsInf(float64(a), 0) || math.IsInf(float64(b), 0) {
		return false
	}
	if math.Abs(float64(a)-float64(b)) <= float64(absTol) {
		return true
	}
	return ULPDiff(a, b) <= maxULP
}

// relClose reports whether finite got and want are within relTol of each other
// relative to the larger magnitude.
func relClose(got, want float32, relTol float64) bool {
	g, w := float64(got), float64(want)
	if math.IsInf(g, 0) || math.IsInf(w, 0) || g != g || w != w {
		return false
	}
	return math.Abs(g-w) <= relTol*math.Max(math.Abs(g), math.Abs(w))
}

// CompareF32 checks got against want element by element. An element matches
// when AlmostEqual(got, want, maxULP, 0) holds or, for finite values, when
// |got-want| <= relTol·max(|got|, |want|). It returns nil when every element
// matches and the slices have the same length; otherwise an error (category
// Execution) naming the first mismatching index, both values, their distance,
// the worst relative error, and how many elements differ.
func CompareF32(got, want []float32, maxULP uint32, relTol float64) error {
	if len(got) != len(want) {
		return errors.E(errors.Execution, "", "compare", "got %d elements, want %d", len(got), len(want))
	}
	bad, first, worst := 0, -1, -1
	worstRel := -1.0
	for i := range got {
		g, w := got[i], want[i]
		if AlmostEqual(g, w, maxULP, 0) || relClose(g, w, relTol) {
			continue
		}
		bad++
		if first < 0 {
			first = i
		}
		if r := relErr(g, w); r > worstRel || worst < 0 {
			worst, worstRel = i, r
		}
	}
	if bad == 0 {
		return nil
	}
	msg := fmt.Sprintf("%d of %d elements differ (allowed: %d ULP or relative %.3g); first at [%d]: %s",
		bad, len(got), maxULP, relTol, first, describe(got[first], want[first]))
	if worst != first {
		msg += fmt.Sprintf("; worst at [%d]: %s", worst, describe(got[worst], want[worst]))
	}
	return errors.E(errors.Execution, "", "compare", "%s", msg)
}

// relErr is |got-want| / max(|got|, |want|), +Inf where that is undefined.
func relErr(got, want float32) float64 {
	g, w := float64(got), float64(want)
	d := math.Abs(g - w)
	m := math.Max(math.Abs(g), math.Abs(w))
	if d != d || math.IsInf(d, 0) || m == 0 {
		return math.Inf(1)
	}
	return d / m
}

func describe(got, want float32) string {
	return fmt.Sprintf("got %g (%#08x), want %g (%#08x), %d ULP apart, relative error %.3g",
		got, math.Float32bits(got), want, math.Float32bits(want), ULPDiff(got, want), relErr(got, want))
}

// eps32 is the unit roundoff of float32, 2^-24: the largest relative error of
// one correctly rounded operation.
const eps32 = 1.0 / (1 << 24)

// ReductionTolerance returns the relative tolerance to allow between a float32
// sum of n elements, added in an unknown order (a backend's blocked or tree
// reduction), and the exact sum (RefReduceSum rounded to float32). It is
// relative to the sum of the magnitudes; for data of one sign, as the
// conformance tests use, that is the magnitude of the sum itself, which is what
// CompareF32's relTol measures against.
//
// Reasoning, with eps = 2^-24 (one rounding): the worst case of any summation
// order is (n-1)·eps, which for large n is far too loose to catch a wrong
// result (at n = 2^24 it allows 100%). In practice the rounding errors of the
// additions are nearly independent and of either sign, so they grow like a
// random walk, about sqrt(n)·eps; tree and blocked sums, which every GPU
// backend uses, grow only like log2(n)·eps. The tolerance is therefore
//
//	eps · (1 + min(n-1, 2·(sqrt(n) + log2(n) + 1)))
//
// the worst case while that is smaller (short sums), else about twice the
// typical random-walk error plus the tree depth, plus one rounding of the
// reference. Measured against a plain left-to-right float32 sum of uniform
// [0,1) values, the least accurate order a backend could use, the observed
// error stays below a third of this up to 2^25 elements. It is bounded to
// [eps, 1e-3], the cap reached near 7·10^7 elements, so the check stays
// meaningful for the largest sums. No tolerance rescues a plain float32 sum
// whose running total reaches 2^24 times its addends (2^26 such values lose
// half the total): long sums must be blocked, as the two-pass reduction is.
func ReductionTolerance(n int) float64 {
	if n <= 1 {
		return eps32
	}
	f := float64(n)
	t := eps32 * (1 + math.Min(f-1, 2*(math.Sqrt(f)+math.Log2(f)+1)))
	return math.Min(t, 1e-3)
}
