package kernels

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/kernels/internal/handwritten"
)

// handwrittenGo returns the built-in ops as they were written by hand in Go
// (kernels/internal/handwritten), named and declared as Source's, with
// Source's sgemm (the hand-tuned GEMM, which the hand-written set always
// ran): the baseline the CPU benchmarks time the generated Go against. It
// has Go kernels only, so only the CPU backend compiles it. Each call
// returns fresh maps and slices.
func handwrittenGo() backend.Source {
	src := backend.Source{Name: SourceName, Go: handwritten.Go()}
	src.Params = make(map[string][]backend.ArgKind, len(Params))
	for op, kinds := range Params {
		src.Params[op] = slices.Clone(kinds)
	}
	return src
}

// TestHandwrittenGo checks the baseline the benchmarks time against the host
// references, so that they compare the generated kernels with kernels that
// compute the same thing: every op, with blocks that move whole vectors and
// blocks that do not, grids exact, too large and too small.
func TestHandwrittenGo(t *testing.T) {
	src := handwrittenGo()
	require.Len(t, src.Go, len(Ops()))
	for _, op := range elemOps {
		for _, n := range []int{1, 257, 65537} {
			for _, b := range []int{1, 32, 256} {
				for _, gm := range gridModes {
					grid := gm.grid(ceilDiv(n, b))
					t.Run(fmt.Sprintf("%s/n=%d/block=%d/grid=%s(%d)", op.name, n, b, gm.name, grid), func(t *testing.T) {
						require.NoError(t, runElem(op, src.Go[op.name], n, backend.Dim3{X: grid}, backend.Dim3{X: b}, true))
					})
				}
			}
		}
	}
	for _, op := range []string{OpReduceSum, OpDot} {
		for _, n := range []int{1, 1000, 65537} {
			for _, b := range []int{1, 32, 256} {
				for _, gm := range gridModes {
					grid := gm.grid(ceilDiv(n, b))
					t.Run(fmt.Sprintf("%s/n=%d/block=%d/grid=%s(%d)", op, n, b, gm.name, grid), func(t *testing.T) {
						checkExactReduction(t, rand.New(rand.NewPCG(uint64(n), uint64(b))), src.Go, op, n, grid, b, true)
					})
				}
			}
		}
	}
	for _, s := range [][2]int{{17, 33}, {100, 37}} {
		rows, cols := s[0], s[1]
		for _, b := range []backend.Dim3{{X: 1, Y: 1}, {X: 16, Y: 16}, {X: 32, Y: 8}} {
			for _, gm := range gridModes {
				grid := backend.Dim3{X: gm.grid(ceilDiv(cols, b.X)), Y: gm.grid(ceilDiv(rows, b.Y))}
				t.Run(fmt.Sprintf("transpose/%dx%d/block=%v/grid=%s%v", rows, cols, b, gm.name, grid), func(t *testing.T) {
					checkTranspose(t, src.Go[OpTranspose], rows, cols, grid, b, true)
				})
			}
		}
	}
}
