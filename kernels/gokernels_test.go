package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/errors"
	"github.com/anygpu/gpu/internal/memview"
)

var (
	testSizes  = []int{1, 7, 255, 256, 257, 1000, 65537}
	testBlocks = []int{1, 32, 256, 1024}
)

// slowInShort reports the launches -short leaves out: one thread per group
// over 65537 elements with the grid too large or too small (131077 and 21845
// groups, most of the package's time). The exact grid of 65537 groups still
// runs, and the other blocks run every grid mode at that size.
func slowInShort(n, block int, mode string) bool {
	return testing.Short() && n == 65537 && block == 1 && mode != "exact"
}

// gridModes turns the exact group count for a launch into the counts the tests
// run: exact, too large (groups with nothing to do), and too small (groups
// loop grid-stride over several chunks).
var gridModes = []struct {
	name string
	grid func(exact int) int
}{
	{"exact", func(e int) int { return e }},
	{"large", func(e int) int { return 2*e + 3 }},
	{"small", func(e int) int { return max(1, e/3) }},
}

// elemOp describes an element-wise op for the table-driven tests: setup
// returns the initial contents of its buffers (the output first), the scalars
// that follow n, and the expected output.
type elemOp struct {
	name   string
	setup  func(rng *rand.Rand, n int) (bufs [][]float32, scalars []backend.Arg, want []float32)
	maxULP uint32 // allowed distance from the reference (which rounds once)
}

var elemOps = []elemOp{
	{OpFill, func(rng *rand.Rand, n int) ([][]float32, []backend.Arg, []float32) {
		return [][]float32{randF32(rng, n, -1, 1)}, []backend.Arg{f32Arg(2.5)}, RefFill(n, 2.5)
	}, 0},
	{OpCopy, func(rng *rand.Rand, n int) ([][]float32, []backend.Arg, []float32) {
		x := randF32(rng, n, -10, 10)
		return [][]float32{make([]float32, n), x}, nil, RefCopy(x)
	}, 0},
	{OpScale, func(rng *rand.Rand, n int) ([][]float32, []backend.Arg, []float32) {
		x := randF32(rng, n, -10, 10)
		return [][]float32{randF32(rng, n, -1, 1), x}, []backend.Arg{f32Arg(-1.75)}, RefScale(x, -1.75)
	}, 0},
	{OpAxpy, func(rng *rand.Rand, n int) ([][]float32, []backend.Arg, []float32) {
		// Same signs for a*x and y: no cancellation, so the unfused Go result
		// is within 2 ULP of the once-rounded reference.
		x, y := randF32(rng, n, 0, 10), randF32(rng, n, 0, 10)
		return [][]float32{y, x}, []backend.Arg{f32Arg(0.3)}, RefAxpy(y, x, 0.3)
	}, 2},
	{OpAdd, func(rng *rand.Rand, n int) ([][]float32, []backend.Arg, []float32) {
		x, y := randF32(rng, n, -10, 10), randF32(rng, n, -10, 10)
		return [][]float32{make([]float32, n), x, y}, nil, RefAdd(x, y)
	}, 0},
	{OpMul, func(rng *rand.Rand, n int) ([][]float32, []backend.Arg, []float32) {
		x, y := randF32(rng, n, -10, 10), randF32(rng, n, -10, 10)
		return [][]float32{make([]float32, n), x, y}, nil, RefMul(x, y)
	}, 0},
}

// runElem launches k as op over n elements and checks the output against the
// reference and the guard elements after it. It returns what went wrong.
func runElem(op elemOp, k backend.GoKernel, n int, grid, block backend.Dim3, parallel bool) error {
	rng := rand.New(rand.NewPCG(uint64(n), uint64(block.X)))
	data, scalars, want := op.setup(rng, n)
	var args []backend.Arg
	var out []float32
	for i, d := range data {
		b, f := newBuf(d)
		if i == 0 {
			out = f
		}
		args = append(args, bufArg(b))
	}
	args = append(args, u32Arg(n))
	args = append(args, scalars...)
	launch(k, grid, block, args, parallel)
	if err := CompareF32(out[:n], want, op.maxULP, 0); err != nil {
		return err
	}
	if i := guardIntact(out, n); i >= 0 {
		return fmt.Errorf("element %d past n=%d was overwritten: %g", i, n, out[i])
	}
	return nil
}

func TestElementwise(t *testing.T) {
	for _, parallel := range []bool{false, true} {
		for _, op := range elemOps {
			k := goKernels[op.name]
			require.NotNil(t, k, op.name)
			for _, n := range testSizes {
				for _, b := range testBlocks {
					for _, gm := range gridModes {
						if slowInShort(n, b, gm.name) {
							continue
						}
						grid := gm.grid(ceilDiv(n, b))
						name := fmt.Sprintf("%s/parallel=%v/n=%d/block=%d/grid=%s(%d)", op.name, parallel, n, b, gm.name, grid)
						t.Run(name, func(t *testing.T) {
							require.NoError(t, runElem(op, k, n, backend.Dim3{X: grid}, backend.Dim3{X: b}, parallel))
						})
					}
				}
			}
		}
	}
}

// TestElementwiseIgnoresYZ launches 1-D ops over 2-D and 3-D grids and blocks:
// work items with a y or z index other than 0 must do nothing (axpy would
// otherwise add twice).
func TestElementwiseIgnoresYZ(t *testing.T) {
	for _, op := range elemOps {
		t.Run(op.name, func(t *testing.T) {
			n, b := 1000, 64
			grid := backend.Dim3{X: ceilDiv(n, b), Y: 2, Z: 2}
			require.NoError(t, runElem(op, goKernels[op.name], n, grid, backend.Dim3{X: b, Y: 3}, true))
		})
	}
}

// TestHarnessCatchesBugs makes sure the element-wise checks can fail: kernels
// with typical indexing bugs must be reported.
func TestHarnessCatchesBugs(t *testing.T) {
	axpy := elemOps[3]
	require.Equal(t, OpAxpy, axpy.name)
	bugs := map[string]backend.GoKernel{
		// skips the last thread of every group
		"off-by-one": func(g backend.Group, args []backend.Arg) {
			y, x, n, a := args[0].Float32s(), args[1].Float32s(), int(args[2].U32()), args[3].F32()
			for i := g.ID.X * g.Size.X; i < min(g.ID.X*g.Size.X+g.Size.X-1, n); i++ {
				y[i] += a * x[i]
			}
		},
		// ignores the grid stride
		"no-stride": func(g backend.Group, args []backend.Arg) {
			y, x, n, a := args[0].Float32s(), args[1].Float32s(), int(args[2].U32()), args[3].F32()
			lo, hi := g.Span(n)
			for i := lo; i < hi; i++ {
				y[i] += a * x[i]
			}
		},
		// writes past n
		"overrun": func(g backend.Group, args []backend.Arg) {
			y, x, n, a := args[0].Float32s(), args[1].Float32s(), int(args[2].U32()), args[3].F32()
			lo := g.ID.X * g.Size.X
			for i := lo; i < min(lo+g.Size.X, n+1); i++ {
				y[i] += a * x[i]
			}
		},
	}
	for name, k := range bugs {
		t.Run(name, func(t *testing.T) {
			// 257 elements in 2 groups of 256: the grid is too small for a
			// kernel without the grid stride, and the last group is partial.
			err := runElem(axpy, k, 257, backend.Dim3{X: 1}, backend.Dim3{X: 256}, false)
			if name == "overrun" {
				err = runElem(axpy, k, 255, backend.Dim3{X: 1}, backend.Dim3{X: 256}, false)
			}
			assert.Error(t, err)
		})
	}
	require.NoError(t, runElem(axpy, goAxpy, 257, backend.Dim3{X: 1}, backend.Dim3{X: 256}, false))
}

func TestInPlace(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	n := 1000
	x := randF32(rng, n, -4, 4)
	y := randF32(rng, n, -4, 4)
	grid, block := backend.Dim3{X: 5}, backend.Dim3{X: 64}
	t.Run("scale y=x", func(t *testing.T) {
		b, f := newBuf(x)
		launch(goScale, grid, block, []backend.Arg{bufArg(b), bufArg(b), u32Arg(n), f32Arg(3)}, true)
		require.NoError(t, CompareF32(f[:n], RefScale(x, 3), 0, 0))
	})
	t.Run("axpy y=x", func(t *testing.T) {
		b, f := newBuf(x)
		launch(goAxpy, grid, block, []backend.Arg{bufArg(b), bufArg(b), u32Arg(n), f32Arg(0.5)}, true)
		require.NoError(t, CompareF32(f[:n], RefAxpy(x, x, 0.5), 2, 0))
	})
	t.Run("add z=x", func(t *testing.T) {
		bx, fx := newBuf(x)
		by, _ := newBuf(y)
		launch(goAdd, grid, block, []backend.Arg{bufArg(bx), bufArg(bx), bufArg(by), u32Arg(n)}, true)
		require.NoError(t, CompareF32(fx[:n], RefAdd(x, y), 0, 0))
	})
	t.Run("mul z=y", func(t *testing.T) {
		bx, _ := newBuf(x)
		by, fy := newBuf(y)
		launch(goMul, grid, block, []backend.Arg{bufArg(by), bufArg(bx), bufArg(by), u32Arg(n)}, true)
		require.NoError(t, CompareF32(fy[:n], RefMul(x, y), 0, 0))
	})
}

// partials computes the first pass of the two-pass reduction from its
// definition: group g sums x[c*G*B + g*B + t]·y[...] (y nil: just x).
func partials(x, y []float32, G, B int) []float64 {
	p := make([]float64, G)
	for g := 0; g < G; g++ {
		for c := 0; ; c++ {
			base := c*G*B + g*B
			if base >= len(x) {
				break
			}
			for t := 0; t < B && base+t < len(x); t++ {
				v := float64(x[base+t])
				if y != nil {
					v *= float64(y[base+t])
				}
				p[g] += v
			}
		}
	}
	return p
}

// reductionSets are the CPU reductions TestReductions checks: those Source
// hands out (hand-tuned) and the generated ones they stand in for.
var reductionSets = []struct {
	name string
	go_  map[string]backend.GoKernel
}{{"source", goKernels}, {"generated", generated().Go}}

// twoPass runs reduce_sum (y nil) or dot of the Go kernels ks over x in two
// passes and returns the first pass's partials and the total.
func twoPass(ks map[string]backend.GoKernel, x, y []float32, grid, block int, parallel bool) (part []float32, total float32, err error) {
	goReduceSum, goDot := ks[OpReduceSum], ks[OpDot]
	n := len(x)
	bx, _ := newBuf(x)
	bp, fp := newBuf(make([]float32, grid))
	if y == nil {
		launch(goReduceSum, backend.Dim3{X: grid}, backend.Dim3{X: block},
			[]backend.Arg{bufArg(bp), bufArg(bx), u32Arg(n)}, parallel)
	} else {
		by, _ := newBuf(y)
		launch(goDot, backend.Dim3{X: grid}, backend.Dim3{X: block},
			[]backend.Arg{bufArg(bp), bufArg(bx), bufArg(by), u32Arg(n)}, parallel)
	}
	if i := guardIntact(fp, grid); i >= 0 {
		return nil, 0, fmt.Errorf("first pass wrote past its %d partials at %d", grid, i)
	}
	part = append([]float32(nil), fp[:grid]...)
	bt, ft := newBuf([]float32{-1})
	launch(goReduceSum, backend.Dim3{X: 1}, backend.Dim3{X: block},
		[]backend.Arg{bufArg(bt), bufArg(bp), u32Arg(grid)}, parallel)
	if i := guardIntact(ft, 1); i >= 0 {
		return nil, 0, fmt.Errorf("second pass wrote past out[0] at %d", i)
	}
	return part, ft[0], nil
}

// checkExactReduction runs reduce_sum or dot (op) of the Go kernels ks in two
// passes over n small integers drawn from rng, whose partials and total are
// exact whatever the order of the additions, so they must match the
// definition bit for bit.
func checkExactReduction(t *testing.T, rng *rand.Rand, ks map[string]backend.GoKernel, op string, n, grid, block int, parallel bool) {
	t.Helper()
	x := randInts(rng, n, -7, 7)
	var y []float32
	want := RefReduceSum(x)
	if op == OpDot {
		y = randInts(rng, n, -3, 3)
		want = RefDot(x, y)
	}
	part, total, err := twoPass(ks, x, y, grid, block, parallel)
	require.NoError(t, err)
	for g, p := range partials(x, y, grid, block) {
		require.Equal(t, float32(p), part[g], "partial of group %d", g)
	}
	require.Equal(t, float32(want), total)
}

func TestReductions(t *testing.T) {
	for _, set := range reductionSets {
		for _, op := range []string{OpReduceSum, OpDot} {
			for _, parallel := range []bool{false, true} {
				for _, n := range testSizes {
					for _, b := range testBlocks {
						for _, gm := range gridModes {
							if slowInShort(n, b, gm.name) {
								continue
							}
							grid := gm.grid(ceilDiv(n, b))
							name := fmt.Sprintf("%s/%s/parallel=%v/n=%d/block=%d/grid=%s(%d)", set.name, op, parallel, n, b, gm.name, grid)
							t.Run(name, func(t *testing.T) {
								rng := rand.New(rand.NewPCG(uint64(n), uint64(b)))
								checkExactReduction(t, rng, set.go_, op, n, grid, b, parallel)

								// Random data of one sign: within the tolerance.
								x := randF32(rng, n, 0, 1)
								want := RefReduceSum(x)
								var y []float32
								if op == OpDot {
									y = randF32(rng, n, 0, 2)
									want = RefDot(x, y)
								}
								_, total, err := twoPass(set.go_, x, y, grid, b, parallel)
								require.NoError(t, err)
								require.NoError(t, CompareF32([]float32{total}, []float32{float32(want)}, 1, ReductionTolerance(n)))
							})
						}
					}
				}
			}
		}
	}
}

// TestReduceInPlace runs the second pass with out aliasing its input, which
// the package documents as allowed for a grid of one group.
func TestReduceInPlace(t *testing.T) {
	x := []float32{1, 2, 3, 4, 5, 6, 7}
	b, f := newBuf(x)
	launch(goReduceSum, backend.Dim3{X: 1}, backend.Dim3{X: 4}, []backend.Arg{bufArg(b), bufArg(b), u32Arg(len(x))}, false)
	require.Equal(t, float32(28), f[0])
	require.Equal(t, x[1:], f[1:len(x)])
}

// checkTranspose launches transpose (k) of a rows×cols matrix of random
// values and checks the result and the guard elements after it.
func checkTranspose(t *testing.T, k backend.GoKernel, rows, cols int, grid, block backend.Dim3, parallel bool) {
	t.Helper()
	rng := rand.New(rand.NewPCG(uint64(rows), uint64(cols)))
	in := randF32(rng, rows*cols, -100, 100)
	bi, _ := newBuf(in)
	bo, fo := newBuf(make([]float32, rows*cols))
	launch(k, grid, block, []backend.Arg{bufArg(bo), bufArg(bi), u32Arg(rows), u32Arg(cols)}, parallel)
	require.NoError(t, CompareF32(fo[:rows*cols], RefTranspose(in, rows, cols), 0, 0))
	require.Equal(t, -1, guardIntact(fo, rows*cols))
}

func TestTranspose(t *testing.T) {
	shapes := [][2]int{{1, 1}, {17, 33}, {33, 17}, {64, 1}, {1, 64}, {100, 37}}
	blocks := []backend.Dim3{{X: 1, Y: 1}, {X: 16, Y: 16}, {X: 32, Y: 8}, {X: 256, Y: 1}, {X: 1, Y: 64}}
	for _, parallel := range []bool{false, true} {
		for _, s := range shapes {
			rows, cols := s[0], s[1]
			for _, b := range blocks {
				for _, gm := range gridModes {
					grid := backend.Dim3{X: gm.grid(ceilDiv(cols, b.X)), Y: gm.grid(ceilDiv(rows, b.Y))}
					name := fmt.Sprintf("parallel=%v/%dx%d/block=%v/grid=%s%v", parallel, rows, cols, b, gm.name, grid)
					t.Run(name, func(t *testing.T) { checkTranspose(t, goTranspose, rows, cols, grid, b, parallel) })
				}
			}
		}
	}
}

type sgemmCase struct {
	m, n, k     int
	alpha, beta float32
	block       backend.Dim3
}

// runSgemm launches sgemm (the CPU's hand-tuned kernel) and returns C.
func runSgemm(c sgemmCase, grid backend.Dim3, a, b, c0 []float32, parallel bool) ([]float32, error) {
	return runSgemmKernel(goSgemm, c, grid, a, b, c0, parallel)
}

// runSgemmKernel launches k, a Go kernel with sgemm's parameters, and
// returns C.
func runSgemmKernel(k backend.GoKernel, c sgemmCase, grid backend.Dim3, a, b, c0 []float32, parallel bool) ([]float32, error) {
	ba, _ := newBuf(a)
	bb, _ := newBuf(b)
	bc, fc := newBuf(c0)
	launch(k, grid, c.block, []backend.Arg{
		bufArg(bc), bufArg(ba), bufArg(bb),
		u32Arg(c.m), u32Arg(c.n), u32Arg(c.k), f32Arg(c.alpha), f32Arg(c.beta),
	}, parallel)
	if i := guardIntact(fc, c.m*c.n); i >= 0 {
		return nil, fmt.Errorf("C written past its %d elements at %d", c.m*c.n, i)
	}
	return fc[:c.m*c.n], nil
}

func TestSgemm(t *testing.T) {
	shapes := [][3]int{{1, 1, 1}, {17, 31, 13}, {64, 64, 64}, {33, 1, 70}, {1, 300, 9}, {5, 7, 0}, {3, 513, 6}}
	scalars := [][2]float32{{1, 0}, {0.5, 2}, {-1.5, -0.25}}
	blocks := []backend.Dim3{{X: 1, Y: 1}, {X: 16, Y: 16}, {X: 32, Y: 4}, {X: 512, Y: 1}}
	for _, parallel := range []bool{false, true} {
		for _, s := range shapes {
			for _, ab := range scalars {
				for _, blk := range blocks {
					for _, gm := range gridModes {
						c := sgemmCase{m: s[0], n: s[1], k: s[2], alpha: ab[0], beta: ab[1], block: blk}
						grid := backend.Dim3{X: gm.grid(ceilDiv(c.n, blk.X)), Y: gm.grid(ceilDiv(c.m, blk.Y))}
						name := fmt.Sprintf("parallel=%v/%dx%dx%d/alpha=%g,beta=%g/block=%v/grid=%s%v",
							parallel, c.m, c.n, c.k, c.alpha, c.beta, blk, gm.name, grid)
						t.Run(name, func(t *testing.T) {
							rng := rand.New(rand.NewPCG(uint64(c.m*c.n), uint64(c.k)))
							// Inputs of one sign and alpha, beta of one sign: no
							// cancellation, so the float32 accumulation is within
							// the reduction tolerance of the float64 reference.
							a := randF32(rng, c.m*c.k, 0, 1)
							b := randF32(rng, c.k*c.n, 0, 1)
							c0 := randF32(rng, c.m*c.n, 0, 1)
							got, err := runSgemm(c, grid, a, b, c0, parallel)
							require.NoError(t, err)
							want := RefSgemm(c0, a, b, c.m, c.n, c.k, c.alpha, c.beta)
							require.NoError(t, CompareF32(got, want, 4, ReductionTolerance(c.k)))

							// Small integers: exact, so bit for bit.
							a = randInts(rng, c.m*c.k, -3, 3)
							b = randInts(rng, c.k*c.n, -3, 3)
							c0 = randInts(rng, c.m*c.n, -5, 5)
							ci := c
							ci.alpha, ci.beta = 2, -1
							got, err = runSgemm(ci, grid, a, b, c0, parallel)
							require.NoError(t, err)
							require.NoError(t, CompareF32(got, RefSgemm(c0, a, b, c.m, c.n, c.k, 2, -1), 0, 0))
						})
					}
				}
			}
		}
	}
}

// TestSgemmBetaZeroIgnoresC: with beta = 0, NaN in C must not reach the result.
func TestSgemmBetaZeroIgnoresC(t *testing.T) {
	c := sgemmCase{m: 9, n: 11, k: 5, alpha: 1.5, beta: 0, block: backend.Dim3{X: 4, Y: 4}}
	rng := rand.New(rand.NewPCG(3, 4))
	a, b := randInts(rng, c.m*c.k, -3, 3), randInts(rng, c.k*c.n, -3, 3)
	c0 := make([]float32, c.m*c.n)
	for i := range c0 {
		c0[i] = float32(math.NaN())
	}
	got, err := runSgemm(c, backend.Dim3{X: 3, Y: 3}, a, b, c0, true)
	require.NoError(t, err)
	want := RefSgemm(c0, a, b, c.m, c.n, c.k, c.alpha, 0)
	for i := range want {
		require.False(t, math.IsNaN(float64(want[i])), "reference must not read C")
	}
	require.NoError(t, CompareF32(got, want, 0, 0))
}

// TestBadLaunches: buffers too small for the sizes, missing arguments, and
// grids with no groups must neither panic nor write anything.
func TestBadLaunches(t *testing.T) {
	small := &hostBuf{mem: memview.Aligned(4*8, 64)} // exactly 8 float32s
	fs := memview.As[float32](small.mem)
	big, _ := newBuf(make([]float32, 64))
	grid, block := backend.Dim3{X: 4}, backend.Dim3{X: 4}
	cases := map[string]struct {
		k    backend.GoKernel
		args []backend.Arg
	}{
		"fill":       {goFill, []backend.Arg{bufArg(small), u32Arg(9), f32Arg(1)}},
		"copy":       {goCopy, []backend.Arg{bufArg(small), bufArg(big), u32Arg(9)}},
		"scale":      {goScale, []backend.Arg{bufArg(small), bufArg(big), u32Arg(9), f32Arg(1)}},
		"axpy":       {goAxpy, []backend.Arg{bufArg(small), bufArg(big), u32Arg(9), f32Arg(1)}},
		"add":        {goAdd, []backend.Arg{bufArg(small), bufArg(big), bufArg(big), u32Arg(9)}},
		"mul":        {goMul, []backend.Arg{bufArg(small), bufArg(big), bufArg(big), u32Arg(9)}},
		"reduce x":   {goReduceSum, []backend.Arg{bufArg(small), bufArg(small), u32Arg(9)}},
		"dot":        {goDot, []backend.Arg{bufArg(small), bufArg(big), bufArg(small), u32Arg(9)}},
		"transpose":  {goTranspose, []backend.Arg{bufArg(small), bufArg(big), u32Arg(3), u32Arg(3)}},
		"sgemm c":    {goSgemm, []backend.Arg{bufArg(small), bufArg(big), bufArg(big), u32Arg(3), u32Arg(3), u32Arg(1), f32Arg(1), f32Arg(0)}},
		"sgemm a":    {goSgemm, []backend.Arg{bufArg(big), bufArg(small), bufArg(big), u32Arg(3), u32Arg(3), u32Arg(3), f32Arg(1), f32Arg(0)}},
		"sgemm huge": {goSgemm, []backend.Arg{bufArg(small), bufArg(big), bufArg(big), u32Arg(1 << 31), u32Arg(1 << 31), u32Arg(1 << 31), f32Arg(1), f32Arg(0)}},
		// An empty matrix with a huge other dimension returns at once (it
		// used to walk the huge dimension for seconds, doing nothing).
		"sgemm empty huge m":        {goSgemm, []backend.Arg{bufArg(small), bufArg(big), bufArg(big), u32Arg(0xfffffffc), u32Arg(0), u32Arg(0), f32Arg(1), f32Arg(0)}},
		"transpose empty huge rows": {goTranspose, []backend.Arg{bufArg(small), bufArg(big), u32Arg(0xfffffffc), u32Arg(0)}},
		"no args":                   {goAxpy, nil},
		"non-host":                  {goFill, []backend.Arg{{Kind: backend.ArgBuffer}, u32Arg(4), f32Arg(1)}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			for i := range fs {
				fs[i] = sentinel
			}
			require.NotPanics(t, func() { launch(c.k, grid, block, c.args, false) })
			require.Equal(t, -1, guardIntact(fs, 0), "nothing may be written")
		})
	}
	t.Run("empty block", func(t *testing.T) {
		for _, k := range goKernels {
			require.NotPanics(t, func() {
				k(backend.Group{Grid: backend.Dim3{X: 1}}, []backend.Arg{bufArg(big), bufArg(big), bufArg(big), u32Arg(1), u32Arg(1), u32Arg(1), f32Arg(1), f32Arg(1)})
			})
		}
	})
	t.Run("reduce group beyond out", func(t *testing.T) {
		x, _ := newBuf(make([]float32, 64))
		out := &hostBuf{mem: make([]byte, 8)} // room for 2 partials, grid of 4
		require.NotPanics(t, func() {
			launch(goReduceSum, grid, block, []backend.Arg{bufArg(out), bufArg(x), u32Arg(64)}, false)
		})
	})
}

func TestSource(t *testing.T) {
	src := Source()
	require.Equal(t, SourceName, src.Name)
	require.Equal(t, "builtin", src.Name)
	require.Len(t, src.Go, len(Ops()))
	require.Equal(t, Params, src.Params)
	for _, op := range Ops() {
		require.NotNil(t, src.Go[op], op)
		require.Contains(t, Params, op)
	}
	// Each call hands out its own maps.
	src.Params[OpAxpy][0] = backend.ArgF64
	delete(src.Go, OpFill)
	again := Source()
	require.Equal(t, backend.ArgBuffer, again.Params[OpAxpy][0])
	require.Equal(t, backend.ArgBuffer, Params[OpAxpy][0])
	require.NotNil(t, again.Go[OpFill])
}

// TestDialectsCoverEveryOp: a dialect that is present has every built-in op,
// named as the Source convention says.
func TestDialectsCoverEveryOp(t *testing.T) {
	src := Source()
	for _, op := range Ops() {
		if src.CUDA != "" {
			require.Regexp(t, `__global__[^;{]*\b`+op+`\s*\(`, src.CUDA, "CUDA entry point %s", op)
		}
		if src.GLSL != "" {
			require.Contains(t, src.GLSL, "ANYGPU_KERNEL_"+op, "GLSL section for %s", op)
		}
		if src.WGSL != "" {
			require.Regexp(t, `fn\s+`+op+`\s*\(`, src.WGSL, "WGSL entry point %s", op)
		}
		if src.MSL != "" {
			require.Regexp(t, `kernel\s+void\s+`+op+`\s*\(`, src.MSL, "MSL kernel %s", op)
		}
		if len(src.SPIRVKernels) > 0 {
			require.NotEmpty(t, src.SPIRVKernels[op], "SPIR-V module for %s", op)
		}
	}
}

func TestParamsABI(t *testing.T) {
	// Buffers first, then scalars, every scalar 4 bytes: the params block is
	// the scalars back to back.
	for op, kinds := range Params {
		seenScalar := false
		for _, k := range kinds {
			if k == backend.ArgBuffer {
				require.False(t, seenScalar, "%s: buffer after a scalar", op)
			} else {
				seenScalar = true
				require.Equal(t, 4, k.Size(), op)
			}
		}
	}
	require.Equal(t, []string{"fill", "copy", "scale", "axpy", "add", "mul", "reduce_sum", "dot", "transpose", "sgemm"}, Ops())
	require.Equal(t, []backend.ArgKind{backend.ArgBuffer, backend.ArgBuffer, backend.ArgBuffer,
		backend.ArgU32, backend.ArgU32, backend.ArgU32, backend.ArgF32, backend.ArgF32}, Params[OpSgemm])
}

func TestCheckLaunch(t *testing.T) {
	b := func(n int) backend.Arg { return bufArg(&hostBuf{mem: make([]byte, 4*n)}) }
	grid := backend.Dim3{X: 4}
	ok := map[string][]backend.Arg{
		OpFill:      {b(10), u32Arg(10), f32Arg(1)},
		OpCopy:      {b(10), b(10), u32Arg(10)},
		OpScale:     {b(10), b(11), u32Arg(10), f32Arg(2)},
		OpAxpy:      {b(10), b(10), u32Arg(10), f32Arg(2)},
		OpAdd:       {b(10), b(10), b(10), u32Arg(10)},
		OpMul:       {b(10), b(10), b(10), u32Arg(10)},
		OpReduceSum: {b(4), b(10), u32Arg(10)},
		OpDot:       {b(4), b(10), b(10), u32Arg(10)},
		OpTranspose: {b(6), b(6), u32Arg(2), u32Arg(3)},
		OpSgemm:     {b(6), b(8), b(12), u32Arg(2), u32Arg(3), u32Arg(4), f32Arg(1), f32Arg(0)},
	}
	require.Len(t, ok, len(Ops()))
	for op, args := range ok {
		require.NoError(t, CheckLaunch(op, grid, args), op)
	}
	bad := []struct {
		name, op string
		args     []backend.Arg
		msg      string
	}{
		{"unknown op", "nope", nil, `unknown built-in op "nope"`},
		{"too few", OpAxpy, ok[OpAxpy][:3], "3 arguments, want 4"},
		{"wrong kind", OpAxpy, []backend.Arg{b(10), b(10), u32Arg(10), u32Arg(2)}, "argument 3 is u32, want f32"},
		{"nil buffer", OpCopy, []backend.Arg{{Kind: backend.ArgBuffer}, b(10), u32Arg(10)}, "argument 0 is a nil buffer"},
		{"short y", OpFill, []backend.Arg{b(9), u32Arg(10), f32Arg(1)}, "buffer y holds 9 float32s"},
		{"short x", OpAxpy, []backend.Arg{b(10), b(9), u32Arg(10), f32Arg(1)}, "buffer x holds 9"},
		{"short z", OpAdd, []backend.Arg{b(9), b(10), b(10), u32Arg(10)}, "buffer z holds 9"},
		{"out < grid", OpReduceSum, []backend.Arg{b(3), b(10), u32Arg(10)}, "buffer out holds 3"},
		{"dot y", OpDot, []backend.Arg{b(4), b(10), b(9), u32Arg(10)}, "buffer y holds 9"},
		{"transpose in", OpTranspose, []backend.Arg{b(6), b(5), u32Arg(2), u32Arg(3)}, "buffer in holds 5"},
		{"sgemm b", OpSgemm, []backend.Arg{b(6), b(8), b(11), u32Arg(2), u32Arg(3), u32Arg(4), f32Arg(1), f32Arg(0)}, "buffer b holds 11"},
		{"sgemm overflow", OpSgemm, []backend.Arg{b(6), b(8), b(12), u32Arg(1 << 31), u32Arg(1 << 31), u32Arg(4), f32Arg(1), f32Arg(0)}, "buffer c holds 6"},
	}
	for _, c := range bad {
		t.Run(c.name, func(t *testing.T) {
			err := CheckLaunch(c.op, grid, c.args)
			require.Error(t, err)
			require.ErrorIs(t, err, errors.InvalidArgument)
			require.Contains(t, err.Error(), c.msg)
		})
	}
}

// TestGuardRemembersOnlyEqualArguments: a launch whose arguments pass the
// guard, then the same argument slice changed to sizes its buffers do not
// hold (the guard remembers the arguments that passed), writes nothing and
// does not panic; the first launch wrote.
func TestGuardRemembersOnlyEqualArguments(t *testing.T) {
	k := guardGo(OpFill, generated().Go[OpFill])
	bs, fs := newBuf(make([]float32, 8))
	args := []backend.Arg{bufArg(bs), u32Arg(8), f32Arg(2)}
	g := backend.Group{Size: backend.Dim3{X: 8, Y: 1, Z: 1}, Grid: backend.Dim3{X: 1, Y: 1, Z: 1}}
	k(g, args)
	require.Equal(t, float32(2), fs[7])
	args[1], args[2] = u32Arg(1<<20), f32Arg(3) // more than the buffer holds
	require.NotPanics(t, func() { k(g, args) })
	assert.Equal(t, float32(2), fs[0], "nothing written")
	assert.Equal(t, -1, guardIntact(fs, 8), "nothing written past the data")
	args[1] = u32Arg(8)
	k(g, args)
	assert.Equal(t, float32(3), fs[7], "a launch that fits again runs")
}
