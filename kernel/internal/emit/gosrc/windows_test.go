package gosrc

import (
	"fmt"
	"regexp"
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
			src := fmt.Sprintf(windowKernel, c.guard, c.body)
			m, err := front.Load([]front.File{{Name: "k.go", Src: src}})
			require.NoError(t, err)
			out, err := Emit(m, "w")
			require.NoError(t, err)
			again, err := Emit(m, "w")
			require.NoError(t, err)
			require.Equal(t, out.Code, again.Code, "deterministic")
			require.Contains(t, out.Code, "for agS0 := uint32(0); agS0 < agSx;", "the strip form")
			// The windowed run is an If around its loop, before the plain one.
			windowed := regexp.MustCompile(`\} else \{\s*for agTx := agS0; agTx < agS1; agTx\+\+ \{`)
			assert.Equal(t, c.windowed, windowed.MatchString(out.Code), "windowed:\n%s", out.Code)
			windows := regexp.MustCompile(`agW\d+ := `)
			assert.Len(t, windows.FindAllString(out.Code, -1), c.windows, "windows:\n%s", out.Code)
		})
	}
}
