package backendtest

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/kernels"
	"github.com/stretchr/testify/require"
)

// maxULP is how far an element-wise GPU result may be from the Go reference:
// GPUs contract a*x+y into one fused multiply-add (one rounding instead of two).
const maxULP = 2

func randomF32(n int, seed uint64, lo, hi float32) []float32 {
	r := rand.New(rand.NewPCG(seed, 42))
	out := make([]float32, n)
	for i := range out {
		out[i] = lo + (hi-lo)*r.Float32()
	}
	return out
}

// builtins compiles the built-in kernels once per device.
type builtins struct {
	dev *gpu.Device
	mod *gpu.Module
}

func (s *suite) builtins(t *testing.T, dev *gpu.Device) *builtins {
	t.Helper()
	mod, err := dev.Compile(ctxT(t), kernels.Source())
	require.NoError(t, err, "compile the built-in kernels")
	t.Cleanup(func() { _ = mod.Close() })
	return &builtins{dev: dev, mod: mod}
}

func (b *builtins) kernel(t testing.TB, op string) *gpu.Kernel {
	t.Helper()
	k, err := b.mod.Kernel(op)
	require.NoError(t, err, "kernel %s", op)
	return k
}

// block1D is the block size the suite launches 1-D kernels with.
func (s *suite) block1D() int { return min(256, s.info.MaxThreadsPerBlock) }

func (s *suite) grid1D(n int) gpu.Dim3 {
	b := s.block1D()
	return gpu.D1((n + b - 1) / b)
}

func upload(t testing.TB, dev *gpu.Device, x []float32) *gpu.Buffer {
	t.Helper()
	b, err := gpu.FromSlice(context.Background(), dev, x)
	require.NoError(t, err)
	t.Cleanup(func() { _ = b.Close() })
	return b
}

func download(t testing.TB, b *gpu.Buffer) []float32 {
	t.Helper()
	out, err := gpu.ToSlice[float32](context.Background(), b)
	require.NoError(t, err)
	return out
}

func (s *suite) testKernels(t *testing.T) {
	bk := s.builtins(t, s.dev)
	st := s.dev.DefaultStream()
	ctx := ctxT(t)
	for _, n := range []int{1, 255, 1000, 1<<20 + 3} {
		t.Run(fmt.Sprintf("elementwise/n=%d", n), func(t *testing.T) {
			x := randomF32(n, uint64(n), -1, 1)
			y := randomF32(n, uint64(n)+1, -1, 1)
			bx, by := upload(t, s.dev, x), upload(t, s.dev, y)
			out, err := gpu.AllocSlice[float32](s.dev, n)
			require.NoError(t, err)
			defer out.Close()
			g, blk, un := s.grid1D(n), gpu.D1(s.block1D()), gpu.U32(uint32(n))
			check := func(name string, want []float32) {
				t.Helper()
				require.NoError(t, st.Synchronize(ctx), name)
				require.NoError(t, kernels.CompareF32(download(t, out), want, maxULP, 0), name)
			}

			require.NoError(t, st.Launch(bk.kernel(t, kernels.OpFill), g, blk, gpu.Buf(out), un, gpu.F32(2.5)))
			check("fill", kernels.RefFill(n, 2.5))
			require.NoError(t, st.Launch(bk.kernel(t, kernels.OpCopy), g, blk, gpu.Buf(out), gpu.Buf(bx), un))
			check("copy", kernels.RefCopy(x))
			require.NoError(t, st.Launch(bk.kernel(t, kernels.OpScale), g, blk, gpu.Buf(out), gpu.Buf(bx), un, gpu.F32(-3)))
			check("scale", kernels.RefScale(x, -3))
			require.NoError(t, st.Launch(bk.kernel(t, kernels.OpAdd), g, blk, gpu.Buf(out), gpu.Buf(bx), gpu.Buf(by), un))
			check("add", kernels.RefAdd(x, y))
			require.NoError(t, st.Launch(bk.kernel(t, kernels.OpMul), g, blk, gpu.Buf(out), gpu.Buf(bx), gpu.Buf(by), un))
			check("mul", kernels.RefMul(x, y))
			require.NoError(t, st.Copy(out, 0, by, 0, int64(4*n)))
			require.NoError(t, st.Launch(bk.kernel(t, kernels.OpAxpy), g, blk, gpu.Buf(out), gpu.Buf(bx), un, gpu.F32(0.75)))
			// GPUs fuse a*x+y into one rounding; Go rounds twice. Either is right.
			require.NoError(t, st.Synchronize(ctx), "axpy")
			got := download(t, out)
			twice, fused := roundedTwiceAxpy(y, x, 0.75), kernels.RefAxpy(y, x, 0.75)
			for i := range got {
				if !kernels.AlmostEqual(got[i], twice[i], maxULP, 0) && !kernels.AlmostEqual(got[i], fused[i], maxULP, 0) {
					t.Fatalf("axpy[%d] = %v, want %v (two roundings) or %v (fused)", i, got[i], twice[i], fused[i])
				}
			}
		})
	}
	// The largest n strides over a grid capped at 1024 groups (see reduce);
	// -short keeps it four times the grid's width instead of sixteen.
	bigReduction := 1<<22 + 17
	if testing.Short() {
		bigReduction = 1<<20 + 17
	}
	for _, n := range []int{1, 1000, 65536, bigReduction} {
		t.Run(fmt.Sprintf("reductions/n=%d", n), func(t *testing.T) {
			x := randomF32(n, uint64(n)+7, 0, 1)
			y := randomF32(n, uint64(n)+8, 0, 1)
			bx, by := upload(t, s.dev, x), upload(t, s.dev, y)
			sum := s.reduce(t, bk, kernels.OpReduceSum, n, bx)
			want := kernels.RefReduceSum(x)
			require.InDelta(t, want, sum, kernels.ReductionTolerance(n)*math.Abs(want)+1e-6, "reduce_sum of %d", n)
			dot := s.reduce(t, bk, kernels.OpDot, n, bx, by)
			wantDot := kernels.RefDot(x, y)
			require.InDelta(t, wantDot, dot, kernels.ReductionTolerance(n)*math.Abs(wantDot)+1e-6, "dot of %d", n)
		})
	}
	for _, sh := range [][2]int{{1, 1}, {37, 53}, {64, 1}, {1, 300}, {256, 256}} {
		rows, cols := sh[0], sh[1]
		t.Run(fmt.Sprintf("transpose/%dx%d", rows, cols), func(t *testing.T) {
			in := randomF32(rows*cols, uint64(rows*cols), -10, 10)
			bin := upload(t, s.dev, in)
			out, err := gpu.AllocSlice[float32](s.dev, rows*cols)
			require.NoError(t, err)
			defer out.Close()
			const tile = 16
			grid := gpu.D2((cols+tile-1)/tile, (rows+tile-1)/tile)
			require.NoError(t, st.Launch(bk.kernel(t, kernels.OpTranspose), grid, gpu.D2(tile, tile),
				gpu.Buf(out), gpu.Buf(bin), gpu.U32(uint32(rows)), gpu.U32(uint32(cols))))
			require.NoError(t, st.Synchronize(ctx))
			require.NoError(t, kernels.CompareF32(download(t, out), kernels.RefTranspose(in, rows, cols), 0, 0))
		})
	}
	for _, sh := range sgemmCases {
		name := fmt.Sprintf("sgemm/%dx%dx%d", sh.m, sh.n, sh.k)
		grid, block := sh.grid, sh.block
		if block == (gpu.Dim3{}) {
			// A 16×16 block per 16×16 of C, as the benchmarks launch it.
			const tile = 16
			grid, block = gpu.D2((sh.n+tile-1)/tile, (sh.m+tile-1)/tile), gpu.D2(tile, tile)
		} else {
			name += fmt.Sprintf("/grid=%dx%d/block=%dx%d", grid.X, grid.Y, block.X, block.Y)
		}
		t.Run(name, func(t *testing.T) {
			a := randomF32(sh.m*sh.k, 1, -1, 1)
			b := randomF32(sh.k*sh.n, 2, -1, 1)
			c := randomF32(sh.m*sh.n, 3, -1, 1)
			ba, bb, bc := upload(t, s.dev, nonEmpty(a)), upload(t, s.dev, nonEmpty(b)), upload(t, s.dev, c)
			require.NoError(t, st.Launch(bk.kernel(t, kernels.OpSgemm), grid, block,
				gpu.Buf(bc), gpu.Buf(ba), gpu.Buf(bb), gpu.U32(uint32(sh.m)), gpu.U32(uint32(sh.n)), gpu.U32(uint32(sh.k)),
				gpu.F32(sh.alpha), gpu.F32(sh.beta)))
			require.NoError(t, st.Synchronize(ctx))
			want := kernels.RefSgemm(c, a, b, sh.m, sh.n, sh.k, sh.alpha, sh.beta)
			// Dot products of k terms of either sign: compare against the
			// magnitude of the terms, not of the (possibly cancelling) result.
			got := download(t, bc)
			tol := kernels.ReductionTolerance(sh.k) * math.Sqrt(float64(sh.k)) * float64(max(1, abs32(sh.alpha))+abs32(sh.beta))
			for i := range got {
				require.InDelta(t, want[i], got[i], tol+1e-6, "C[%d] of %dx%dx%d", i, sh.m, sh.n, sh.k)
			}
		})
	}
}

// sgemmCase is one sgemm the suite checks: C(m×n) = alpha·A(m×k)·B(k×n) +
// beta·C, launched with grid and block (when block is zero, a 16×16 block
// per 16×16 of C).
type sgemmCase struct {
	m, n, k     int
	alpha, beta float32
	grid, block gpu.Dim3
}

// sgemmCases cover the edges of tiled sgemms (tiles of 16, 64 and 128, B and
// C moved four floats at a time when n%4 == 0), grids with fewer groups than
// tiles, groups of 256 threads in other shapes, and other group sizes.
var sgemmCases = []sgemmCase{
	{m: 1, n: 1, k: 1, alpha: 1},
	{m: 17, n: 31, k: 13, alpha: 1},
	{m: 64, n: 64, k: 64, alpha: 0.5, beta: 2},
	{m: 100, n: 37, k: 129, alpha: -1, beta: 1},
	{m: 256, n: 256, k: 256, alpha: 1},
	// n%4 == 0, every size a partial tile of 16 and of 128, beta != 0.
	{m: 200, n: 132, k: 40, alpha: 1, beta: 0.5},
	// n%4 != 0 over several tiles of 128 in both directions.
	{m: 129, n: 131, k: 17, alpha: 1, beta: -1},
	// k == 0: C = beta·C.
	{m: 33, n: 20, k: 0, alpha: 1, beta: 0.5},
	// Fewer groups than tiles: the groups stride over them.
	{m: 300, n: 260, k: 50, alpha: 1, grid: gpu.D2(1, 2), block: gpu.D2(16, 16)},
	// 256 threads in one row.
	{m: 70, n: 90, k: 33, alpha: 1, beta: 0.25, grid: gpu.D2(3, 1), block: gpu.D1(256)},
	// Another group size: one element of C per thread, grid-stride.
	{m: 45, n: 70, k: 23, alpha: 2, beta: 0.25, grid: gpu.D2(2, 2), block: gpu.D2(8, 8)},
}

// nonEmpty is x, or one zero when x is empty (a buffer holds at least one
// element; the kernels read none of it then).
func nonEmpty(x []float32) []float32 {
	if len(x) == 0 {
		return []float32{0}
	}
	return x
}

// roundedTwiceAxpy is a*x+y with the product rounded to float32 before the
// sum, as an unfused multiply and add compute it (the conversion stops Go
// from fusing them).
func roundedTwiceAxpy(y, x []float32, a float32) []float32 {
	out := make([]float32, len(y))
	for i := range y {
		out[i] = float32(a*x[i]) + y[i]
	}
	return out
}

func abs32(x float32) float64 { return math.Abs(float64(x)) }

// reduce runs a two-pass reduction (reduce_sum or dot, then reduce_sum over
// the partial sums with one group) and returns the total.
func (s *suite) reduce(t *testing.T, bk *builtins, op string, n int, in ...*gpu.Buffer) float64 {
	t.Helper()
	st := s.dev.DefaultStream()
	groups := min(s.grid1D(n).X, 1024)
	partial, err := gpu.AllocSlice[float32](s.dev, groups)
	require.NoError(t, err)
	defer partial.Close()
	total, err := gpu.AllocSlice[float32](s.dev, 1)
	require.NoError(t, err)
	defer total.Close()
	args := []gpu.Arg{gpu.Buf(partial)}
	for _, b := range in {
		args = append(args, gpu.Buf(b))
	}
	args = append(args, gpu.U32(uint32(n)))
	blk := gpu.D1(s.block1D())
	require.NoError(t, st.Launch(bk.kernel(t, op), gpu.D1(groups), blk, args...))
	require.NoError(t, st.Launch(bk.kernel(t, kernels.OpReduceSum), gpu.D1(1), blk, gpu.Buf(total), gpu.Buf(partial), gpu.U32(uint32(groups))))
	require.NoError(t, st.Synchronize(ctxT(t)))
	return float64(download(t, total)[0])
}
