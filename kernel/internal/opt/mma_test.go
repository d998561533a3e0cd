package opt

import (
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu/kernel/internal/front"
	"github.com/anygpu/gpu/kernel/internal/ir"
)

// mmaOptSrc has two MMAs of each precision in a kernel of maxthreads
// threads, PackHalves in the kernel and in a helper, a float16 buffer (whose
// rewrite shares the helpers) and a function named like the scratch.
func mmaOptSrc(maxthreads int) string {
	return `package k

import "github.com/anygpu/gpu/kernel"

func mmaScratch1(x float32) uint32 { return kernel.PackHalves(x, -x, kernel.PrecisionFloat16) }

//gpu:maxthreads ` + strconv.Itoa(maxthreads) + `
//gpu:kernel
func K(o []float32, h []kernel.Float16, w []uint32) {
	var acc [2][4]float32
	var a [4]uint32
	var b [2]uint32
	for j := 0; j < 2; j++ {
		kernel.MMA(&acc[j], &a, &b, kernel.PrecisionBFloat16)
		kernel.MMA(&acc[j], &a, &b, kernel.PrecisionFloat16)
	}
	w[0] = kernel.PackHalves(acc[0][0], acc[1][1], kernel.PrecisionBFloat16) + mmaScratch1(acc[0][2])
	o[0] = kernel.ToFloat32(h[0])
}
`
}

// TestPortableMMA checks the portable rewrite of MMA and PackHalves: no
// MMA or PackHalves left; one shared scratch of 192 words per 32 threads
// of maxthreads, named apart from the module's functions; the thread's
// slots declared once, first; two Barriers per MMA around the exchange; the
// helpers used prepended once each (callees first), shared with the float16
// rewrite; and a second run changing nothing.
func TestPortableMMA(t *testing.T) {
	for _, maxthreads := range []int{32, 256} {
		t.Run(strconv.Itoa(maxthreads), func(t *testing.T) {
			m, err := front.Load([]front.File{{Name: "k.go", Src: mmaOptSrc(maxthreads)}})
			require.NoError(t, err)
			Module(m)
			require.NoError(t, Portable(m))
			var k *ir.Func
			var names []string
			for _, f := range m.Funcs {
				names = append(names, f.Name)
				if f.Kernel {
					k = f
				}
			}
			assert.Equal(t, []string{"halfBitsToFloat32", "halfBitsFromFloat32", "bfloat16Bits", "packBFloat16Halves", "packFloat16Halves",
				"mmaStepBFloat16", "mmaStepFloat16", "mmaScratch1", "K"}, names)
			require.NotNil(t, k)
			require.Len(t, k.Shared, 1)
			s := k.Shared[0]
			assert.Equal(t, "mmaScratch2", s.Name)
			assert.Equal(t, &ir.Array{Elem: ir.U32, Len: 192 * maxthreads / 32}, s.Type)
			assert.True(t, k.Barriers)
			barriers, left := 0, 0
			for _, f := range m.Funcs {
				ir.WalkStmts(f.Body, func(st ir.Stmt) {
					switch st.(type) {
					case *ir.Barrier:
						barriers++
					case *ir.MMA:
						left++
					}
				}, func(e ir.Expr) {
					if b, ok := e.(*ir.CallBuiltin); ok && (b.Builtin == ir.PackHalvesBFloat16 || b.Builtin == ir.PackHalvesFloat16) {
						left++
					}
				})
			}
			assert.Equal(t, 0, left, "no MMA or PackHalves left")
			var first []string
			for _, st := range k.Body[:6] {
				first = append(first, st.(*ir.Decl).Var.Name)
			}
			assert.Equal(t, []string{"mmaBase3", "mmaG4", "mmaT5", "mmaRowA6", "mmaColB7", "mmaColC8"}, first)
			assert.Equal(t, 2*4, barriers, "two barriers for each of the 4 MMAs")

			before := dumpNames(m)
			require.NoError(t, Portable(m))
			assert.Equal(t, before, dumpNames(m), "idempotent")
			assert.Len(t, k.Shared, 1)
		})
	}
}

// dumpNames lists m's functions with their shared arrays and statement counts.
func dumpNames(m *ir.Module) string {
	var b strings.Builder
	for _, f := range m.Funcs {
		n := 0
		ir.WalkStmts(f.Body, func(ir.Stmt) { n++ }, nil)
		b.WriteString(f.Name + ":" + strconv.Itoa(len(f.Shared)) + ":" + strconv.Itoa(n) + " ")
	}
	return b.String()
}

// TestPortableMMAWithoutMaxThreads checks that the rewrite reports a
// kernel the front end would have rejected, rather than guess a size.
func TestPortableMMAWithoutMaxThreads(t *testing.T) {
	m, err := front.Load([]front.File{{Name: "k.go", Src: mmaOptSrc(64)}})
	require.NoError(t, err)
	for _, f := range m.Funcs {
		f.MaxThreads = 0
	}
	err = Portable(m)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "kernel.MMA in K, which is not a kernel with a //gpu:maxthreads multiple of 32")
}
