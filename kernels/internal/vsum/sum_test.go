package vsum

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// loops lists the loop sets this machine can run: the pure-Go one always,
// the assembly one where the CPU has it (sum4, dot4, sumChunks4,
// dotChunks4).
func loops() map[string][4]any {
	m := map[string][4]any{"generic": {sum4Generic, dot4Generic, sumChunks4By4, dotChunks4By4}}
	if Arch() != "generic" {
		m[Arch()] = [4]any{sum4, dot4, sumChunks4, dotChunks4}
	}
	return m
}

// withLoops runs f with the package's loops set to those named.
func withLoops(t *testing.T, name string, f func()) {
	t.Helper()
	l := loops()[name]
	saveS, saveD, saveSC, saveDC := sum4, dot4, sumChunks4, dotChunks4
	sum4 = l[0].(func(x0, x1, x2, x3 []float32) float32)
	dot4 = l[1].(func(x0, x1, x2, x3, y0, y1, y2, y3 []float32) float32)
	sumChunks4 = l[2].(func(x0, x1, x2, x3 []float32, b int, out []float32))
	dotChunks4 = l[3].(func(x0, x1, x2, x3, y0, y1, y2, y3 []float32, b int, out []float32))
	defer func() { sum4, dot4, sumChunks4, dotChunks4 = saveS, saveD, saveSC, saveDC }()
	f()
}

func randRun(rng *rand.Rand, n int) []float32 {
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(rng.NormFloat64())
	}
	return x
}

// tolerance is the error allowed for a sum whose terms' magnitudes add up
// to abs: a float32 block sum's error grows with the terms each accumulator
// adds (at most BlockLen/16 here), each rounding at most 2⁻²⁴ of the total.
func tolerance(abs float64) float64 { return abs * (BlockLen / 16) * 0x1p-24 }

func TestSumAndDot(t *testing.T) {
	lengths := []int{0, 1, 3, 4, 15, 16, 17, 63, 64, 65, 100, 1023, 1024, 1025, 4096, 5000, 70001}
	for name := range loops() {
		for _, n := range lengths {
			t.Run(fmt.Sprintf("%s/n=%d", name, n), func(t *testing.T) {
				rng := rand.New(rand.NewPCG(uint64(n), 7))
				x, y := randRun(rng, n), randRun(rng, n)
				var wantS, absS, wantD, absD float64
				for i := range x {
					wantS += float64(x[i])
					absS += math.Abs(float64(x[i]))
					p := float64(x[i]) * float64(y[i])
					wantD += p
					absD += math.Abs(p)
				}
				withLoops(t, name, func() {
					require.InDelta(t, wantS, Sum(x), tolerance(absS)+1e-30, "Sum")
					require.InDelta(t, wantD, Dot(x, y), tolerance(absD)+1e-30, "Dot")
				})
			})
		}
	}
}

// TestSumExact: small integers add and multiply exactly in float32, so every
// loop set must return the exact sum: an element dropped, read twice or read
// from the wrong run changes it, however long the run.
func TestSumExact(t *testing.T) {
	ints := func(rng *rand.Rand, n int) []float32 {
		x := make([]float32, n)
		for i := range x {
			x[i] = float32(rng.IntN(15) - 7)
		}
		return x
	}
	for name := range loops() {
		for _, n := range []int{1, 15, 16, 17, 31, 32, 48, 64, 65, 100, 1024, 1040, 3000} {
			t.Run(fmt.Sprintf("%s/n=%d", name, n), func(t *testing.T) {
				rng := rand.New(rand.NewPCG(uint64(n), 11))
				var xs, ys [4][]float32
				var wantS, wantD float64
				for r := range 4 {
					xs[r], ys[r] = ints(rng, n), ints(rng, n)
					for i := range n {
						wantS += float64(xs[r][i])
						wantD += float64(xs[r][i]) * float64(ys[r][i])
					}
				}
				withLoops(t, name, func() {
					require.Equal(t, wantS, Sum4(xs[0], xs[1], xs[2], xs[3]), "Sum4")
					require.Equal(t, wantD, Dot4(xs[0], xs[1], xs[2], xs[3], ys[0], ys[1], ys[2], ys[3]), "Dot4")
					require.Equal(t, wantS, Sum(append(append(append(append([]float32(nil), xs[0]...), xs[1]...), xs[2]...), xs[3]...)), "Sum")
				})
			})
		}
	}
}

func TestSum4ReadsFourRuns(t *testing.T) {
	for name := range loops() {
		for _, n := range []int{0, 5, 16, 33, 2048} {
			t.Run(fmt.Sprintf("%s/n=%d", name, n), func(t *testing.T) {
				rng := rand.New(rand.NewPCG(uint64(n), 9))
				var xs, ys [4][]float32
				var wantS, absS, wantD, absD float64
				for r := range 4 {
					// The runs are longer than x0: Sum4 reads n of each.
					xs[r], ys[r] = randRun(rng, n+r), randRun(rng, n+r)
					for i := range n {
						wantS += float64(xs[r][i])
						absS += math.Abs(float64(xs[r][i]))
						wantD += float64(xs[r][i]) * float64(ys[r][i])
						absD += math.Abs(float64(xs[r][i]) * float64(ys[r][i]))
					}
				}
				xs[0] = xs[0][:n]
				withLoops(t, name, func() {
					require.InDelta(t, wantS, Sum4(xs[0], xs[1], xs[2], xs[3]), tolerance(absS)+1e-30)
					require.InDelta(t, wantD, Dot4(xs[0], xs[1], xs[2], xs[3], ys[0], ys[1], ys[2], ys[3]), tolerance(absD)+1e-30)
				})
			})
		}
	}
}

func BenchmarkSum(b *testing.B) {
	x := randRun(rand.New(rand.NewPCG(1, 1)), 64<<10)
	for name, l := range loops() {
		f := l[0].(func(x0, x1, x2, x3 []float32) float32)
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(4 * len(x)))
			q := len(x) / 4
			for b.Loop() {
				for lo := 0; lo < q; lo += BlockLen {
					hi := min(lo+BlockLen, q)
					f(x[lo:hi], x[q+lo:q+hi], x[2*q+lo:2*q+hi], x[3*q+lo:3*q+hi])
				}
			}
		})
	}
}

// BenchmarkDot is BenchmarkSum's counterpart for the dot products (the
// bytes of both runs).
func BenchmarkDot(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	x, y := randRun(rng, 64<<10), randRun(rng, 64<<10)
	for name, l := range loops() {
		f := l[1].(func(x0, x1, x2, x3, y0, y1, y2, y3 []float32) float32)
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(8 * len(x)))
			q := len(x) / 4
			for b.Loop() {
				for lo := 0; lo < q; lo += BlockLen {
					hi := min(lo+BlockLen, q)
					f(x[lo:hi], x[q+lo:q+hi], x[2*q+lo:2*q+hi], x[3*q+lo:3*q+hi], y[lo:hi], y[q+lo:q+hi], y[2*q+lo:2*q+hi], y[3*q+lo:3*q+hi])
				}
			}
		})
	}
}
