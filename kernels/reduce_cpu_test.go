package kernels

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/internal/memview"
	"github.com/stretchr/testify/require"
)

// TestReduceBatches runs Source's reduce_sum and dot over launches whose
// groups fall into several batches (reduce_cpu.go), with batchCPUs set so
// that each case takes the path it names, over small integers (exact in any
// order): every group's partial must equal the documented one and nothing
// past out may be written, groups run in order or shuffled on several
// goroutines. TestReductions covers the small launches (at most three
// rounds); these have more than four (four streams and rounds left over).
func TestReduceBatches(t *testing.T) {
	cases := []struct {
		name           string
		n, block, grid int
		cpus           int
		whole          bool // one batch is the whole grid
	}{
		{"four streams, partial last batch, rounds left over", 600*64*9 + 37, 64, 600, 1, false},
		{"block not a multiple of 16", 37*20*11 + 3, 20, 37, 4, false},
		{"block 1024", 10*1024*9 + 1000, 1024, 10, 2, false},
		{"block 1", 5000*9 + 17, 1, 5000, 1, false},
		{"the whole grid in one batch", 4*256*20 + 100, 256, 4, 1, true},
		{"256 groups of 256", 256*256*9 + 5, 256, 256, 2, false},
	}
	saved := batchCPUs
	defer func() { batchCPUs = saved }()
	for _, c := range cases {
		for _, op := range []string{OpReduceSum, OpDot} {
			for _, parallel := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/%s/parallel=%v", c.name, op, parallel), func(t *testing.T) {
					batchCPUs = c.cpus
					k := batchGroups(c.block, c.grid)
					require.Equal(t, c.whole, k == c.grid, "batch of %d groups", k)
					require.Greater(t, c.n/(c.grid*c.block), 4, "too few rounds for the streams and a round left over")
					rng := rand.New(rand.NewPCG(uint64(c.n), uint64(c.block)))
					x, y := randInts(rng, c.n, -7, 7), []float32(nil)
					if op == OpDot {
						y = randInts(rng, c.n, -3, 3)
					}
					want := partials(x, y, c.grid, c.block)
					got := reducePartials(t, op, x, y, backend.Dim3{X: c.grid}, c.block, c.grid, parallel)
					for g, p := range want {
						require.Equal(t, float32(p), got[g], "partial of group %d", g)
					}
				})
			}
		}
	}
}

// TestReduceBatchEdges: a grid with y groups (only y = 0 writes) and an out
// buffer shorter than the grid (nothing is written past it, and the slots
// it has hold their partials).
func TestReduceBatchEdges(t *testing.T) {
	saved := batchCPUs
	defer func() { batchCPUs = saved }()
	batchCPUs = 1
	const n, block, grid = 600*64*5 + 11, 64, 600
	rng := rand.New(rand.NewPCG(1, 2))
	x := randInts(rng, n, -7, 7)
	want := partials(x, nil, grid, block)
	for _, c := range []struct {
		name    string
		grid    backend.Dim3
		outLen  int
		checked int
	}{
		{"grid with y groups", backend.Dim3{X: grid, Y: 2}, grid, grid},
		{"out holds 100 partials", backend.Dim3{X: grid}, 100, 100},
		{"out holds 300 partials", backend.Dim3{X: grid}, 300, 300},
	} {
		for _, parallel := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/parallel=%v", c.name, parallel), func(t *testing.T) {
				got := reducePartials(t, OpReduceSum, x, nil, c.grid, block, c.outLen, parallel)
				for g := range c.checked {
					require.Equal(t, float32(want[g]), got[g], "partial of group %d", g)
				}
			})
		}
	}
}

// reducePartials launches Source's op (reduce_sum, or dot with y) over x
// with grid and block into an out of outLen floats and returns out. An out
// with a slot per group has guard elements after it, which must be intact;
// a shorter one is a buffer of exactly outLen floats (the kernel sees a
// buffer's length, guard elements included).
func reducePartials(t *testing.T, op string, x, y []float32, grid backend.Dim3, block, outLen int, parallel bool) []float32 {
	t.Helper()
	bx, _ := newBuf(x)
	bo, fo := newBuf(make([]float32, outLen))
	if outLen < grid.X {
		bo = &hostBuf{mem: memview.Aligned(4*outLen, 64)}
		fo = memview.As[float32](bo.mem)
	}
	args := []backend.Arg{bufArg(bo), bufArg(bx), u32Arg(len(x))}
	if y != nil {
		by, _ := newBuf(y)
		args = []backend.Arg{bufArg(bo), bufArg(bx), bufArg(by), u32Arg(len(x))}
	}
	launch(goKernels[op], grid, backend.Dim3{X: block}, args, parallel)
	require.Equal(t, -1, guardIntact(fo, outLen), "written past out")
	return fo[:outLen]
}
