package kernelcorpus

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/anygpu/gpu/kernels"
)

// Compare compares the buffers of a run of c (got) with those of the
// reference run (want), in argument order (scalars are skipped): integers
// exactly, floats within c.ULP or c.Abs, or both zero-or-subnormal of one
// sign (a GPU may flush subnormals), and Unordered buffers as multisets. The
// error lists, per buffer, how many elements differ and the first few.
func (c Case) Compare(got, want []Arg) error {
	if len(got) != len(c.Args) || len(want) != len(c.Args) {
		return fmt.Errorf("%s: %d and %d results for %d arguments", c.Kernel, len(got), len(want), len(c.Args))
	}
	var errs []string
	for i, a := range c.Args {
		if a.IsScalar {
			continue
		}
		g, w := got[i], want[i]
		if a.Unordered {
			g, w = sorted(g), sorted(w)
		}
		where := fmt.Sprintf("%s argument %d", c.Kernel, i)
		if msg := diffInts(w.I32, g.I32); msg != "" {
			errs = append(errs, where+": "+msg)
		}
		if msg := diffInts(w.U32, g.U32); msg != "" {
			errs = append(errs, where+": "+msg)
		}
		if msg := c.diffFloats(w.F32, g.F32); msg != "" {
			errs = append(errs, where+": "+msg)
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("%s", strings.Join(errs, "\n"))
	}
	return nil
}

// sorted is a copy of a buffer with its elements in order.
func sorted(a Arg) Arg {
	a = Arg{F32: slices.Clone(a.F32), I32: slices.Clone(a.I32), U32: slices.Clone(a.U32)}
	slices.Sort(a.I32)
	slices.Sort(a.U32)
	slices.SortFunc(a.F32, func(x, y float32) int { return cmp.Compare(x, y) })
	return a
}

// diffInts describes how got differs from want ("" when equal).
func diffInts[T int32 | uint32](want, got []T) string {
	if len(got) != len(want) {
		return fmt.Sprintf("%d elements, want %d", len(got), len(want))
	}
	var bad []string
	for j := range want {
		if got[j] != want[j] {
			bad = append(bad, fmt.Sprintf("element %d: got %d, want %d", j, got[j], want[j]))
		}
	}
	if len(bad) == 0 {
		return ""
	}
	return fmt.Sprintf("%d of %d elements differ; the first: %s", len(bad), len(want), strings.Join(bad[:min(len(bad), 8)], "; "))
}

// diffFloats describes how got differs from want beyond c's tolerance.
func (c Case) diffFloats(want, got []float32) string {
	if len(got) != len(want) {
		return fmt.Sprintf("%d elements, want %d", len(got), len(want))
	}
	var bad []string
	for j := range want {
		if !kernels.AlmostEqual(got[j], want[j], c.ULP, c.Abs) && !FlushedSubnormal(got[j], want[j]) {
			bad = append(bad, fmt.Sprintf("element %d: got %g (%#08x), want %g (%#08x)",
				j, got[j], math.Float32bits(got[j]), want[j], math.Float32bits(want[j])))
		}
	}
	if len(bad) == 0 {
		return ""
	}
	return fmt.Sprintf("%d of %d elements differ beyond %d ULP or %g; the first: %s",
		len(bad), len(want), c.ULP, c.Abs, strings.Join(bad[:min(len(bad), 8)], "; "))
}

// FlushedSubnormal reports whether got and want differ only by a GPU
// flushing subnormals to zero (NVIDIA's Vulkan, OpenGL and WebGPU do): both
// are zero or subnormal, of the same sign. The kernel language allows it.
func FlushedSubnormal(got, want float32) bool {
	const minNormal = 0x1p-126
	return math.Abs(float64(got)) < minNormal && math.Abs(float64(want)) < minNormal &&
		math.Signbit(float64(got)) == math.Signbit(float64(want))
}
