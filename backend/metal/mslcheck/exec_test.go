package mslcheck_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/backend/metal/mslcheck"
	"github.com/anygpu/gpu/kernels"
)

// The built-in kernels' MSL, run on the CPU by mslcheck.Execute and compared
// with the Go references, for launch shapes that exercise the semantics every
// dialect must have: grids smaller than the data (grid-stride loops), larger
// than the data (idle groups), blocks that are not multiples of 32, blocks
// with y or z > 1 (idle lanes of the 1-D ops, which still take part in the
// reductions' barriers), reductions in two passes, sgemm with beta = 0 over a
// C full of NaN, and k = 0.

func f32s(b []byte) []float32 {
	out := make([]float32, len(b)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

func bytesOf(x []float32) []byte {
	out := make([]byte, 4*len(x))
	for i, v := range x {
		binary.LittleEndian.PutUint32(out[4*i:], math.Float32bits(v))
	}
	return out
}

func randomF32(r *rand.Rand, n int, lo, hi float32) []float32 {
	out := make([]float32, n)
	for i := range out {
		out[i] = lo + (hi-lo)*r.Float32()
	}
	return out
}

// params packs the scalars the way the Metal backend does (PackScalars; the
// backend's TestLayoutMatchesPackScalars checks that it is the same).
func params(args ...backend.Arg) []byte { return backend.PackScalars(args, false) }

func u32(v int) backend.Arg { return backend.Arg{Kind: backend.ArgU32, Bits: uint64(uint32(v))} }
func f32(v float32) backend.Arg {
	return backend.Arg{Kind: backend.ArgF32, Bits: uint64(math.Float32bits(v))}
}
func dim(x, y, z int) [3]int { return [3]int{x, y, z} }
func execCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

var (
	builtinOnce sync.Once
	builtinProg *mslcheck.Program
	builtinErr  error
)

// execute runs launches of the built-in kernels, built once for the test
// binary (TestMain removes the build).
func execute(t *testing.T, launches ...mslcheck.Launch) {
	t.Helper()
	builtinOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		builtinProg, builtinErr = mslcheck.Build(ctx, "builtin MSL", kernels.Source().MSL)
	})
	if builtinErr != nil {
		t.Fatal(builtinErr)
	}
	if err := builtinProg.Run(execCtx(t), launches); err != nil {
		t.Fatal(err)
	}
}

func TestMain(m *testing.M) {
	code := m.Run()
	if builtinProg != nil {
		builtinProg.Close()
	}
	os.Exit(code)
}

type shape struct{ grid, block [3]int }

func (s shape) String() string { return fmt.Sprintf("grid%v/block%v", s.grid, s.block) }

func TestExecuteElementwise(t *testing.T) {
	needClang(t)
	r := rand.New(rand.NewPCG(3, 4))
	for _, tc := range []struct {
		n int
		s shape
	}{
		{1, shape{dim(1, 1, 1), dim(1, 1, 1)}},
		{1000, shape{dim(4, 1, 1), dim(256, 1, 1)}}, // exact cover
		{1000, shape{dim(3, 1, 1), dim(37, 1, 1)}},  // grid-stride, odd block
		{300, shape{dim(9, 1, 1), dim(64, 1, 1)}},   // idle groups
		{500, shape{dim(2, 2, 1), dim(32, 2, 2)}},   // y and z of groups and threads idle
		{777, shape{dim(1, 1, 1), dim(1024, 1, 1)}}, // one full threadgroup
	} {
		t.Run(fmt.Sprintf("n=%d/%v", tc.n, tc.s), func(t *testing.T) {
			n := tc.n
			x, y := randomF32(r, n, -1, 1), randomF32(r, n, -1, 1)
			out := randomF32(r, n, 5, 6)
			L := func(k string, bufs [][]byte, p []byte) mslcheck.Launch {
				return mslcheck.Launch{Kernel: k, Grid: tc.s.grid, Block: tc.s.block, Buffers: bufs, Params: p}
			}
			ls := []mslcheck.Launch{
				L(kernels.OpFill, [][]byte{bytesOf(out)}, params(u32(n), f32(2.5))),
				L(kernels.OpCopy, [][]byte{bytesOf(out), bytesOf(x)}, params(u32(n))),
				L(kernels.OpScale, [][]byte{bytesOf(out), bytesOf(x)}, params(u32(n), f32(-3))),
				L(kernels.OpAxpy, [][]byte{bytesOf(y), bytesOf(x)}, params(u32(n), f32(0.75))),
				L(kernels.OpAdd, [][]byte{bytesOf(out), bytesOf(x), bytesOf(y)}, params(u32(n))),
				L(kernels.OpMul, [][]byte{bytesOf(out), bytesOf(x), bytesOf(y)}, params(u32(n))),
			}
			execute(t, ls...)
			want := [][]float32{
				kernels.RefFill(n, 2.5), kernels.RefCopy(x), kernels.RefScale(x, -3),
				kernels.RefAxpy(y, x, 0.75), kernels.RefAdd(x, y), kernels.RefMul(x, y),
			}
			for i, l := range ls {
				got := f32s(l.Buffers[0])
				if l.Kernel == kernels.OpAxpy {
					// One rounding (fused) or two, as the GPU compiler chooses.
					twice := make([]float32, n)
					for j := range twice {
						twice[j] = float32(0.75*x[j]) + y[j]
					}
					for j := range got {
						if !kernels.AlmostEqual(got[j], want[i][j], 2, 0) && !kernels.AlmostEqual(got[j], twice[j], 2, 0) {
							t.Errorf("axpy[%d] = %v, want %v (fused) or %v (two roundings)", j, got[j], want[i][j], twice[j])
						}
					}
					continue
				}
				if err := kernels.CompareF32(got, want[i], 2, 0); err != nil {
					t.Errorf("%s: %v", l.Kernel, err)
				}
			}
		})
	}
}

// TestExecuteElementwiseLeavesTail: a kernel told n elements does not touch
// element n and beyond.
func TestExecuteElementwiseLeavesTail(t *testing.T) {
	needClang(t)
	buf := bytesOf([]float32{9, 9, 9, 9, 9, 9, 9, 9})
	execute(t, mslcheck.Launch{Kernel: kernels.OpFill, Grid: dim(4, 1, 1), Block: dim(4, 1, 1),
		Buffers: [][]byte{buf}, Params: params(u32(5), f32(1))})
	if got := f32s(buf); fmt.Sprint(got) != "[1 1 1 1 1 9 9 9]" {
		t.Fatalf("fill of 5: %v", got)
	}
}

func TestExecuteReductions(t *testing.T) {
	needClang(t)
	r := rand.New(rand.NewPCG(5, 6))
	for _, tc := range []struct {
		n      int
		groups int
		block  [3]int
	}{
		{1, 1, dim(1, 1, 1)},
		{1000, 4, dim(256, 1, 1)},
		{5000, 3, dim(100, 1, 1)}, // not a power of two
		{4097, 7, dim(33, 2, 1)},  // idle y lanes take part in the barriers
		{2048, 2, dim(1024, 1, 1)},
		{10, 16, dim(64, 1, 1)}, // groups without elements write 0
	} {
		t.Run(fmt.Sprintf("n=%d/groups=%d/block%v", tc.n, tc.groups, tc.block), func(t *testing.T) {
			x, y := randomF32(r, tc.n, 0, 1), randomF32(r, tc.n, 0, 1)
			for _, op := range []string{kernels.OpReduceSum, kernels.OpDot} {
				partial := make([]byte, 4*tc.groups)
				total := make([]byte, 4)
				first := [][]byte{partial, bytesOf(x)}
				want := kernels.RefReduceSum(x)
				if op == kernels.OpDot {
					first = append(first, bytesOf(y))
					want = kernels.RefDot(x, y)
				}
				ls := []mslcheck.Launch{
					{Kernel: op, Grid: dim(tc.groups, 1, 1), Block: tc.block, Buffers: first, Params: params(u32(tc.n))},
				}
				execute(t, ls...)
				second := mslcheck.Launch{Kernel: kernels.OpReduceSum, Grid: dim(1, 1, 1), Block: tc.block,
					Buffers: [][]byte{total, ls[0].Buffers[0]}, Params: params(u32(tc.groups))}
				execute(t, second)
				got := float64(f32s(second.Buffers[0])[0])
				if tol := kernels.ReductionTolerance(tc.n)*math.Abs(want) + 1e-6; math.Abs(got-want) > tol {
					t.Errorf("%s of %d: got %v, want %v (tolerance %v)", op, tc.n, got, want, tol)
				}
			}
			// With a grid of one group, out may be x itself.
			inPlace := bytesOf(x)
			execute(t, mslcheck.Launch{Kernel: kernels.OpReduceSum, Grid: dim(1, 1, 1), Block: tc.block,
				Buffers: [][]byte{inPlace, inPlace}, Params: params(u32(tc.n))})
			// (the same slice twice: Run binds one memory block to both, as
			// the Metal backend binds one MTLBuffer twice)
			want := kernels.RefReduceSum(x)
			if got := float64(f32s(inPlace)[0]); math.Abs(got-want) > kernels.ReductionTolerance(tc.n)*math.Abs(want)+1e-6 {
				t.Errorf("in place: got %v, want %v", got, want)
			}
		})
	}
}

func TestExecuteTranspose(t *testing.T) {
	needClang(t)
	r := rand.New(rand.NewPCG(7, 8))
	for _, tc := range []struct {
		rows, cols int
		s          shape
	}{
		{1, 1, shape{dim(1, 1, 1), dim(1, 1, 1)}},
		{37, 53, shape{dim(4, 3, 1), dim(16, 16, 1)}},
		{64, 1, shape{dim(1, 2, 1), dim(16, 16, 1)}},
		{1, 300, shape{dim(2, 1, 1), dim(32, 1, 1)}}, // grid-stride in x
		{50, 40, shape{dim(2, 2, 2), dim(8, 4, 2)}},  // z of groups and threads idle, grid-stride in both
	} {
		t.Run(fmt.Sprintf("%dx%d/%v", tc.rows, tc.cols, tc.s), func(t *testing.T) {
			in := randomF32(r, tc.rows*tc.cols, -10, 10)
			out := make([]byte, 4*tc.rows*tc.cols)
			l := mslcheck.Launch{Kernel: kernels.OpTranspose, Grid: tc.s.grid, Block: tc.s.block,
				Buffers: [][]byte{out, bytesOf(in)}, Params: params(u32(tc.rows), u32(tc.cols))}
			execute(t, l)
			if err := kernels.CompareF32(f32s(l.Buffers[0]), kernels.RefTranspose(in, tc.rows, tc.cols), 0, 0); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestExecuteSgemm(t *testing.T) {
	needClang(t)
	r := rand.New(rand.NewPCG(9, 10))
	// The tk = 1 case runs one 1024-thread group over every row of C, with
	// two barriers of all 1024 threads per step of k: 17 s for 30 rows and
	// k = 17. -short keeps a 1024-thread block (so tk is still 1) and k > tk
	// (several steps), with fewer rows and steps.
	tk1Rows, tk1K := 30, 17
	// The grid-stride case walks 125 tiles of 8×4 on two groups, nine steps
	// of k each; -short keeps 50 tiles (still several per group) and three
	// steps (the last one partial).
	strideRows, strideK := 100, 129
	if testing.Short() {
		tk1Rows, tk1K = 5, 3
		strideRows, strideK = 40, 33
	}
	for _, tc := range []struct {
		m, n, k     int
		alpha, beta float32
		s           shape
	}{
		{1, 1, 1, 1, 0, shape{dim(1, 1, 1), dim(16, 16, 1)}},
		{17, 31, 13, 1, 0, shape{dim(2, 2, 1), dim(16, 16, 1)}},
		{64, 64, 64, 0.5, 2, shape{dim(4, 4, 1), dim(16, 16, 1)}},
		{strideRows, 37, strideK, -1, 1, shape{dim(1, 2, 1), dim(8, 4, 1)}}, // grid-stride over tiles, tk = 16
		{33, 20, 40, 1, 0.5, shape{dim(1, 1, 1), dim(64, 1, 1)}},            // a 64×1 block: tk = 16, one row per tile
		{20, 33, 19, 2, 0, shape{dim(1, 2, 1), dim(1, 64, 1)}},              // a 1×64 block
		{40, 40, 70, 1, 1, shape{dim(2, 2, 2), dim(5, 3, 2)}},               // odd block, idle z
		{tk1Rows, 30, tk1K, 1, 0, shape{dim(1, 1, 1), dim(1024, 1, 1)}},     // tk = 1
		{9, 7, 0, 1, 3, shape{dim(1, 1, 1), dim(4, 4, 1)}},                  // k = 0: C = beta·C
	} {
		t.Run(fmt.Sprintf("%dx%dx%d/%v", tc.m, tc.n, tc.k, tc.s), func(t *testing.T) {
			a := randomF32(r, tc.m*tc.k, -1, 1)
			b := randomF32(r, tc.k*tc.n, -1, 1)
			c := randomF32(r, tc.m*tc.n, -1, 1)
			cIn := c
			if tc.beta == 0 {
				cIn = make([]float32, len(c))
				for i := range cIn {
					cIn[i] = float32(math.NaN()) // beta = 0 never reads C
				}
			}
			l := mslcheck.Launch{Kernel: kernels.OpSgemm, Grid: tc.s.grid, Block: tc.s.block,
				Buffers: [][]byte{bytesOf(cIn), bytesOf(a), bytesOf(b)},
				Params:  params(u32(tc.m), u32(tc.n), u32(tc.k), f32(tc.alpha), f32(tc.beta))}
			execute(t, l)
			want := kernels.RefSgemm(c, a, b, tc.m, tc.n, tc.k, tc.alpha, tc.beta)
			got := f32s(l.Buffers[0])
			tol := kernels.ReductionTolerance(max(tc.k, 1)) * math.Sqrt(float64(max(tc.k, 1))) * float64(max(1, abs32(tc.alpha))+abs32(tc.beta))
			for i := range got {
				if math.IsNaN(float64(got[i])) || math.Abs(float64(got[i]-want[i])) > tol+1e-6 {
					t.Fatalf("C[%d] = %v, want %v (tolerance %v)", i, got[i], want[i], tol)
				}
			}
		})
	}
}

func abs32(x float32) float64 { return math.Abs(float64(x)) }
