package gosrc

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/anygpu/gpu/kernel/internal/front"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// windowKernel is a grid-stride kernel in quarters of a group, as the
// built-in element-wise ops are written, with its guard, its access and its
// 4-wide index left to the test case.
const windowKernel = `package k

import "github.com/anygpu/gpu/kernel"

//gpu:kernel
func K(y, x []float32, n uint32) {
	b, t := kernel.GroupSizeX(), kernel.ThreadX()
	s := b * kernel.GridX()
	q := b / 4
	sub := t / q
	lane := t - sub*q
	for base := kernel.GroupX()*b + sub*s; base < n; base += 4 * s {
		e := base + 4*lane
		if %s {
			%s
		} else {
			for ; e < n; e++ {
				y[e] = x[e]
			}
		}
		if n-base <= 4*s {
			break
		}
	}
}
`

// TestWindowedRuns checks which runs of threads of the strip form take the
// windowed loop: guards of lane-affine comparisons are checked once per
// strip, and 4-wide accesses of consecutive float4s go through windows. The
// windowed code's results are checked by the built-in ops' tests
// (kernels/internal/ops) and the CPU conformance suite.
func TestWindowedRuns(t *testing.T) {
	cases := []struct {
		name, guard, body string
		windowed          bool // the guard is checked once per strip
		windows           int  // buffer windows
	}{
		{"float4 copy", "e < n && n-e > 3", "kernel.Store4(y, e/4, kernel.Load4(x, e/4))", true, 2},
		{"same window read and written", "e < n && n-e > 3", "kernel.Store4(y, e/4, kernel.Load4(y, e/4))", true, 1},
		{"scalar access", "e < n && n-e > 3", "y[e] = x[e]", true, 0},
		{"stride 2 float4s", "e < n && n-e > 7", "kernel.Store4(y, e/2, kernel.Load4(x, e/2))", true, 0},
		{"guard reads memory", "e < n && x[e] > 0", "y[e] = 1", false, 0},
		{"guard compares for equality", "e != n", "y[e] = 1", false, 0},
		{"guard on a thread's parity", "e < n && lane%2 == 0", "y[e] = 1", false, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := emitWindowKernel(t, c.guard, c.body)
			require.Contains(t, out.Code, "for agS0 := uint32(0); agS0 < agSx;", "the strip form")
			// The windowed run is an If around its loop, before the plain one.
			windowed := regexp.MustCompile(`\} else \{\s*for agTx := agS0; agTx < agS1; agTx\+\+ \{`)
			assert.Equal(t, c.windowed, windowed.MatchString(out.Code), "windowed:\n%s", out.Code)
			windows := regexp.MustCompile(`agW\d+ := `)
			assert.Len(t, windows.FindAllString(out.Code, -1), c.windows, "windows:\n%s", out.Code)
		})
	}
}

// emitWindowKernel emits windowKernel with guard and body, twice, and
// checks that both emissions are the same.
func emitWindowKernel(t *testing.T, guard, body string) Output {
	t.Helper()
	m, err := front.Load([]front.File{{Name: "k.go", Src: fmt.Sprintf(windowKernel, guard, body)}})
	require.NoError(t, err)
	out, err := Emit(m, "w")
	require.NoError(t, err)
	again, err := Emit(m, "w")
	require.NoError(t, err)
	require.Equal(t, out.Code, again.Code, "deterministic")
	return out
}

// TestOutlinedWindows checks which windowed loops move to a function of
// their own and which read their loads in place, lane by lane (forward.go).
func TestOutlinedWindows(t *testing.T) {
	const guard = "e < n && n-e > 3"
	cases := []struct {
		name, body string
		outlined   bool // the loop runs from K's own _win0 function
		forwarded  bool // the store writes lane by lane from the views
	}{
		{"element-wise", "v, w := kernel.Load4(x, e/4), kernel.Load4(y, e/4)\n" +
			"kernel.Store4(y, e/4, kernel.Float4{X: v.X + w.X, Y: v.Y * w.Y, Z: v.Z - w.Z, W: 2 * v.W})", true, true},
		{"float4 copy", "kernel.Store4(y, e/4, kernel.Load4(x, e/4))", true, false},
		{"lanes swapped", "v := kernel.Load4(x, e/4)\nkernel.Store4(y, e/4, kernel.Float4{X: v.Y, Y: v.X, Z: v.Z, W: v.W})", true, false},
		{"whole Float4 stored", "v := kernel.Load4(x, e/4)\nkernel.Store4(y, e/4, v)", true, false},
		{"two stores", "v := kernel.Load4(x, e/4)\nkernel.Store4(y, e/4, kernel.Float4{X: v.X, Y: v.Y, Z: v.Z, W: v.W})\n" +
			"kernel.Store4(x, e/4, kernel.Float4{X: v.X, Y: v.Y, Z: v.Z, W: v.W})", true, false},
		{"windows at other indices", "v := kernel.Load4(x, e/4+1)\nkernel.Store4(y, e/4, kernel.Float4{X: v.X, Y: v.Y, Z: v.Z, W: v.W})", true, false},
		{"no window", "y[e] = x[e]", false, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := emitWindowKernel(t, guard, c.body)
			assert.Equal(t, c.outlined, strings.Contains(out.Code, "func wK_win0("), "outlined:\n%s", out.Code)
			assert.Equal(t, c.outlined, strings.Contains(out.Code, "wK_win0(agW0"), "called:\n%s", out.Code)
			lanes := regexp.MustCompile(`(?m)^\s*agV\d+\[3\] = `)
			assert.Equal(t, c.forwarded, lanes.MatchString(out.Code), "forwarded:\n%s", out.Code)
		})
	}
}

// TestFreeNames checks the reading of a windowed loop's Go text for the
// values it takes from around it, and its refusals.
func TestFreeNames(t *testing.T) {
	cases := []struct {
		name, src string
		free      []string
		ok        bool
	}{
		{"declared and read", "for k := 0; k < n; k++ {\nv := w[k : k+4 : k+4]\nvar t uint32 = s0 + uint32(k)\n_ = t\nv[0] = a * v[0]\n}\n",
			[]string{"n", "w", "uint32", "s0", "a"}, true},
		{"fields, keys and slice bounds", "for k := 0; k < 4; k++ {\nf := kernel.Float4{X: v.X, Y: lo}\n_ = w[base:hi]\n_ = f\n}\n",
			[]string{"kernel", "v", "lo", "w", "base", "hi"}, true},
		{"two declared at once", "a, b := 1, 2\n_, _ = a, b\n", nil, true},
		{"assigns a value around it", "for k := 0; k < 4; k++ {\nsum += w[k]\n}\n", nil, false},
		{"assigns two values around it", "a, b = b, a\n", nil, false},
		{"returns", "for k := 0; k < 4; k++ {\nreturn\n}\n", nil, false},
		{"continues an outer loop", "for k := 0; k < 4; k++ {\ncontinue agStrips\n}\n", nil, false},
		{"breaks its own loop", "for k := 0; k < 4; k++ {\nbreak\n}\n", nil, true},
		{"unbalanced", "}\n", nil, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			free, ok := freeNames(c.src)
			require.Equal(t, c.ok, ok)
			assert.Equal(t, c.free, free)
		})
	}
}
