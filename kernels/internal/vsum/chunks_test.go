package vsum

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// smallInts returns n integers in [-7, 7], which add and multiply exactly in
// float32 and float64: a chunk's sum is exact whatever the order.
func smallInts(rng *rand.Rand, n int) []float32 {
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(rng.IntN(15) - 7)
	}
	return x
}

// chunkWant returns acc0 plus, in slot i % len(acc0), the sums of the
// chunks i of b elements of the first m elements of the runs xs (of
// x[i]·y[i] where ys is not nil): the definition SumChunks4 and DotChunks4
// follow, one element at a time.
func chunkWant(acc0 []float64, xs, ys [][]float32, m, b int) []float64 {
	want := append([]float64(nil), acc0...)
	for r := range xs {
		for i := range m {
			v := float64(xs[r][i])
			if ys != nil {
				v *= float64(ys[r][i])
			}
			want[i/b%len(want)] += v
		}
	}
	return want
}

// TestChunksExact checks every loop set's SumChunks4, DotChunks4,
// SumChunks and DotChunks against chunkWant bit for bit, over small
// integers: a chunk summed into the wrong slot, an element dropped, read
// twice or read past its run, or a partial overwritten instead of added to
// changes the result. Chunk lengths cover the vector loops' steps (16, 32)
// and their remainders, beyond BlockLen, and a last chunk cut short; the
// runs after the first are longer than it, their tails NaN (reading one
// would show).
func TestChunksExact(t *testing.T) {
	for name := range loops() {
		for _, c := range []struct{ m, b, k int }{
			{0, 16, 3}, {5, 1, 2}, {7, 3, 4}, {48, 16, 3}, {64, 16, 4}, {100, 17, 2},
			{256, 32, 8}, {1000, 64, 5}, {4096, 256, 16}, {4000, 256, 3}, {3000, 100, 7},
			{5000, 1500, 2}, {2048, 2048, 1}, {17 * 48, 48, 17},
		} {
			t.Run(fmt.Sprintf("%s/m=%d/b=%d/k=%d", name, c.m, c.b, c.k), func(t *testing.T) {
				rng := rand.New(rand.NewPCG(uint64(c.m), uint64(c.b)))
				xs, ys := make([][]float32, 4), make([][]float32, 4)
				for r := range 4 {
					xs[r], ys[r] = smallInts(rng, c.m+r), smallInts(rng, c.m+r)
					for i := c.m; i < c.m+r; i++ {
						xs[r][i], ys[r][i] = float32(math.NaN()), float32(math.NaN())
					}
				}
				acc0 := make([]float64, c.k)
				for j := range acc0 {
					acc0[j] = float64(j) + 0.5 // the partials are added to, not set
				}
				run := func(f func(acc []float64)) []float64 {
					acc := append([]float64(nil), acc0...)
					withLoops(t, name, func() { f(acc) })
					return acc
				}
				x0 := xs[0][:c.m]
				require.Equal(t, chunkWant(acc0, xs, nil, c.m, c.b), run(func(acc []float64) {
					SumChunks4(x0, xs[1], xs[2], xs[3], c.b, acc)
				}), "SumChunks4")
				require.Equal(t, chunkWant(acc0, xs, ys, c.m, c.b), run(func(acc []float64) {
					DotChunks4(x0, xs[1], xs[2], xs[3], ys[0], ys[1], ys[2], ys[3], c.b, acc)
				}), "DotChunks4")
				require.Equal(t, chunkWant(acc0, xs[:1], nil, c.m, c.b), run(func(acc []float64) {
					SumChunks(x0, c.b, acc)
				}), "SumChunks")
				require.Equal(t, chunkWant(acc0, xs[:1], ys[:1], c.m, c.b), run(func(acc []float64) {
					DotChunks(x0, ys[0], c.b, acc)
				}), "DotChunks")
			})
		}
	}
}

// TestChunksNothingToAdd: a chunk length below 1 or no partials adds
// nothing and does not panic.
func TestChunksNothingToAdd(t *testing.T) {
	x := []float32{1, 2, 3, 4}
	for _, b := range []int{0, -1} {
		acc := []float64{5, 6}
		SumChunks4(x, x, x, x, b, acc)
		DotChunks4(x, x, x, x, x, x, x, x, b, acc)
		SumChunks(x, b, acc)
		DotChunks(x, x, b, acc)
		require.Equal(t, []float64{5, 6}, acc, "b=%d", b)
	}
	require.NotPanics(t, func() {
		SumChunks4(x, x, x, x, 2, nil)
		DotChunks4(x, x, x, x, x, x, x, x, 2, nil)
		SumChunks(x, 2, nil)
		DotChunks(x, x, 2, nil)
	})
}

// TestChunksRounding: random values of both signs stay within the
// tolerance of a float32 block sum, chunk by chunk.
func TestChunksRounding(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	const m, b, k = 10000, 256, 6
	xs := [][]float32{randRun(rng, m), randRun(rng, m), randRun(rng, m), randRun(rng, m)}
	want, abs := make([]float64, k), make([]float64, k)
	for r := range xs {
		for i := range m {
			want[i/b%k] += float64(xs[r][i])
			abs[i/b%k] += math.Abs(float64(xs[r][i]))
		}
	}
	for name := range loops() {
		acc := make([]float64, k)
		withLoops(t, name, func() { SumChunks4(xs[0], xs[1], xs[2], xs[3], b, acc) })
		for j := range k {
			require.InDelta(t, want[j], acc[j], tolerance(abs[j])+1e-30, "%s: slot %d", name, j)
		}
	}
}

// BenchmarkSumChunks4 times SumChunks4 over 64 Ki floats in the caches, in
// chunks of b floats into 32 partials, beside Sum4 over the same runs whole:
// the cost of summing chunk by chunk.
func BenchmarkSumChunks4(b *testing.B) {
	x := randRun(rand.New(rand.NewPCG(1, 1)), 64<<10)
	q := len(x) / 4
	var acc [32]float64
	for _, chunk := range []int{64, 256, 1024} {
		b.Run(fmt.Sprintf("b=%d", chunk), func(b *testing.B) {
			b.SetBytes(int64(4 * len(x)))
			for b.Loop() {
				SumChunks4(x[:q], x[q:2*q], x[2*q:3*q], x[3*q:], chunk, acc[:])
			}
		})
	}
	b.Run("Sum4", func(b *testing.B) {
		b.SetBytes(int64(4 * len(x)))
		for b.Loop() {
			Sum4(x[:q], x[q:2*q], x[2*q:3*q], x[3*q:])
		}
	})
}
