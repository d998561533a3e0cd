package sgemm_test

import (
	"context"
	"math"
	"math/rand/v2"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/errors"
	"github.com/anygpu/gpu/kernels"
	"github.com/anygpu/gpu/kernels/sgemm"
)

// TestLauncherOnEveryBackend runs products through a Launcher on every
// backend here (whatever it picks: the library, or the kernel ChooseSgemm
// names) and compares C with the reference bit for bit (small integers).
func TestLauncherOnEveryBackend(t *testing.T) {
	shapes := [][3]int{{1, 1, 1}, {100, 37, 29}, {257, 130, 64}, {64, 1000, 9}, {3, 5, 0}}
	for _, tg := range targets {
		t.Run(tg.name, func(t *testing.T) {
			dev := open(t, tg)
			l, err := sgemm.New(dev, nil)
			require.NoError(t, err)
			t.Cleanup(func() { require.NoError(t, l.Close()) })
			st := dev.DefaultStream()
			for _, s := range shapes {
				m, n, k := s[0], s[1], s[2]
				rng := rand.New(rand.NewPCG(uint64(m), uint64(n+k)))
				a, b, c := ints(rng, m*k, -3, 3), ints(rng, k*n, -3, 3), ints(rng, m*n, -5, 5)
				for _, ab := range [][2]float32{{1, 0}, {2, -1}, {0, 3}, {0, 0}} {
					bc := upload(t, dev, c)
					require.NoError(t, l.Sgemm(st, bc, upload(t, dev, a), upload(t, dev, b), m, n, k, ab[0], ab[1]))
					require.NoError(t, st.Synchronize(context.Background()))
					want := kernels.RefSgemm(c, a, b, m, n, k, ab[0], ab[1])
					require.NoError(t, kernels.CompareF32(download(t, bc, m*n), want, 0, 0), "%dx%dx%d alpha %g beta %g", m, n, k, ab[0], ab[1])
				}
			}
			// Floats of either sign, 512 deep: exact float32 products are
			// within the conformance suite's tolerance (about 1e-4 here);
			// TF32 inputs (10-bit mantissas, as a library may use for
			// float32) would miss it by up to 85 times (most elements out).
			const m, n, k = 128, 200, 512
			rng := rand.New(rand.NewPCG(5, 6))
			a, b := floats(rng, m*k, -1, 1), floats(rng, k*n, -1, 1)
			bc := upload(t, dev, make([]float32, m*n))
			require.NoError(t, l.Sgemm(st, bc, upload(t, dev, a), upload(t, dev, b), m, n, k, 1, 0))
			got, want := download(t, bc, m*n), kernels.RefSgemm(make([]float32, m*n), a, b, m, n, k, 1, 0)
			tol := kernels.ReductionTolerance(k)*math.Sqrt(k) + 1e-6
			for i := range got {
				require.InDelta(t, want[i], got[i], tol, "C[%d] of %dx%dx%d (library used: %v)", i, m, n, k, l.UsesLibrary())
			}
		})
	}
}

// libraryCall is what a stand-in for Stream.MatMul saw.
type libraryCall struct {
	calls atomic.Int32
	last  gpu.MatMul
}

// TestLauncherLibrary: a product goes to the library while it answers, the
// kernel takes over for good once it answers NotSupported, and any other
// answer is the product's error. Alpha and beta both 0, and k = 0, never
// reach the library (MatMul reads them differently).
func TestLauncherLibrary(t *testing.T) {
	dev := open(t, targets[0]) // the CPU backend: always here
	st := dev.DefaultStream()
	const m, n, k = 20, 12, 7
	rng := rand.New(rand.NewPCG(1, 2))
	a, b, c := ints(rng, m*k, -3, 3), ints(rng, k*n, -3, 3), ints(rng, m*n, -5, 5)
	ba, bb := upload(t, dev, a), upload(t, dev, b)
	for _, tc := range []struct {
		name        string
		answer      error
		k           int
		alpha, beta float32
		wantCalls   int32 // over two products
		wantLibrary bool
		wantErr     errors.Category
	}{
		{name: "library multiplies", answer: nil, k: k, alpha: 2, beta: -1, wantCalls: 2, wantLibrary: true},
		{name: "library absent", answer: errors.E(errors.NotSupported, "cpu", "matmul", "no library"), k: k, alpha: 2, beta: -1, wantCalls: 1},
		{name: "library fails", answer: errors.E(errors.OutOfMemory, "cpu", "matmul", "no room"), k: k, alpha: 1, beta: 0, wantCalls: 2, wantErr: errors.OutOfMemory},
		{name: "alpha and beta 0", answer: nil, k: k, alpha: 0, beta: 0, wantCalls: 0},
		{name: "k 0", answer: nil, k: 0, alpha: 1, beta: 2, wantCalls: 0},
		{name: "beta only", answer: nil, k: k, alpha: 0, beta: 2, wantCalls: 2, wantLibrary: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, err := sgemm.New(dev, nil)
			require.NoError(t, err)
			defer l.Close()
			var seen libraryCall
			sgemm.SetMatMul(l, func(s *gpu.Stream, mm gpu.MatMul) error {
				seen.calls.Add(1)
				seen.last = mm
				return tc.answer
			})
			bc := upload(t, dev, c)
			for range 2 {
				err := l.Sgemm(st, bc, ba, bb, m, n, tc.k, tc.alpha, tc.beta)
				if tc.wantErr != 0 {
					require.Error(t, err)
					assert.Equal(t, tc.wantErr, errors.CategoryOf(err))
					continue
				}
				require.NoError(t, err)
			}
			require.NoError(t, st.Synchronize(context.Background()))
			assert.Equal(t, tc.wantCalls, seen.calls.Load())
			assert.Equal(t, tc.wantLibrary, l.UsesLibrary())
			got := download(t, bc, m*n)
			switch {
			case tc.wantLibrary || tc.wantErr != 0:
				// The stand-in computes nothing: C is as it was, and the
				// library was asked for exactly this product.
				assert.Equal(t, c, got)
				assert.Equal(t, gpu.MatMul{M: m, N: n, K: tc.k, A: ba, B: bb, C: bc, In: gpu.MatMulFloat32, Alpha: tc.alpha, Beta: tc.beta}, seen.last)
			default:
				// The kernel ran twice: C = alpha·A·B + beta·(alpha·A·B + beta·C).
				ak, bk := a[:m*tc.k], b[:tc.k*n]
				once := kernels.RefSgemm(c, ak, bk, m, n, tc.k, tc.alpha, tc.beta)
				require.NoError(t, kernels.CompareF32(got, kernels.RefSgemm(once, ak, bk, m, n, tc.k, tc.alpha, tc.beta), 0, 0))
			}
		})
	}
}

// TestLauncherLibraryPerAlignment: a library that refuses one alignment
// class keeps the others: its NotSupported for k = 7 sends later k = 7
// products to the kernel without asking, while k = 8 still goes to it.
func TestLauncherLibraryPerAlignment(t *testing.T) {
	dev := open(t, targets[0])
	st := dev.DefaultStream()
	l, err := sgemm.New(dev, nil)
	require.NoError(t, err)
	defer l.Close()
	var asked []int // k of each product the library was asked for
	sgemm.SetMatMul(l, func(s *gpu.Stream, mm gpu.MatMul) error {
		asked = append(asked, mm.K)
		if mm.K%4 != 0 {
			return errors.E(errors.NotSupported, "cpu", "matmul", "no algorithm for these alignments")
		}
		return nil
	})
	const m, n = 9, 8
	rng := rand.New(rand.NewPCG(3, 4))
	for _, k := range []int{7, 7, 8, 7, 8} {
		a, b, c := ints(rng, m*k, -3, 3), ints(rng, k*n, -3, 3), ints(rng, m*n, -5, 5)
		bc := upload(t, dev, c)
		require.NoError(t, l.Sgemm(st, bc, upload(t, dev, a), upload(t, dev, b), m, n, k, 1, 0))
		require.NoError(t, st.Synchronize(context.Background()))
		if k == 7 { // the kernel computed it
			require.NoError(t, kernels.CompareF32(download(t, bc, m*n), kernels.RefSgemm(c, a, b, m, n, k, 1, 0), 0, 0))
		}
	}
	assert.Equal(t, []int{7, 8, 8}, asked)
	assert.True(t, l.UsesLibrary())
}

// TestLauncherBadArguments: every bad argument is an InvalidArgument error
// that says what is wrong, and nothing is launched.
func TestLauncherBadArguments(t *testing.T) {
	dev := open(t, targets[0])
	other, err := gpu.Open(context.Background(), gpu.WithBackends("cpu"), gpu.WithFallback(false))
	require.NoError(t, err)
	defer other.Close()
	st := dev.DefaultStream()
	l, err := sgemm.New(dev, nil)
	require.NoError(t, err)
	defer l.Close()
	small, big := upload(t, dev, make([]float32, 5)), upload(t, dev, make([]float32, 64))
	foreign := upload(t, other, make([]float32, 64))
	for _, tc := range []struct {
		name    string
		st      *gpu.Stream
		c, a, b *gpu.Buffer
		m, n, k int
		want    string
	}{
		{"nil stream", nil, big, big, big, 2, 2, 2, "stream"},
		{"stream of another device", other.DefaultStream(), big, big, big, 2, 2, 2, "stream"},
		{"nil c", st, nil, big, big, 2, 2, 2, "buffer c is nil"},
		{"foreign b", st, big, big, foreign, 2, 2, 2, "buffer b is not of"},
		{"negative m", st, big, big, big, -1, 2, 2, "m = -1"},
		{"huge k", st, big, big, big, 1, 1, 1 << 33, "k = 8589934592"},
		{"small a", st, big, small, big, 3, 2, 2, "buffer a holds 5 float32s, need 3×2"},
		{"small c", st, small, big, big, 3, 2, 2, "buffer c holds 5"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := l.Sgemm(tc.st, tc.c, tc.a, tc.b, tc.m, tc.n, tc.k, 1, 0)
			require.Error(t, err)
			assert.Equal(t, errors.InvalidArgument, errors.CategoryOf(err))
			assert.Contains(t, err.Error(), tc.want)
		})
	}
	_, err = sgemm.New(nil, nil)
	require.Error(t, err)
	assert.Equal(t, errors.InvalidArgument, errors.CategoryOf(err))
	require.NoError(t, l.Close())
	err = l.Sgemm(st, big, big, big, 2, 2, 2, 1, 0)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "the launcher is closed")
	assert.ErrorIs(t, err, errors.Closed)
	require.NoError(t, l.Close(), "Close is idempotent")
	var none *sgemm.Launcher
	require.ErrorIs(t, none.Sgemm(st, big, big, big, 2, 2, 2, 1, 0), errors.InvalidArgument)
	require.NoError(t, none.Close())
	require.False(t, none.UsesLibrary())
}
