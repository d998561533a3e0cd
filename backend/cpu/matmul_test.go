package cpu_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/backend/cpu"
	"github.com/anygpu/gpu/errors"
	"github.com/anygpu/gpu/internal/memview"
)

// sentinel fills what a product must not write: the gaps between rows and
// matrices and the ends of the buffers.
var sentinel = math.Float32frombits(0x7fc0beef)

// matMulCase is one product of TestMatMul.
type matMulCase struct {
	m, n, k        int
	transA, transB bool
	batch          int
	broadcastB     bool // StrideB = 0: one B for every matrix of the batch
	alpha, beta    float32
	bias, d        bool
	act            backend.MatMulActivation
}

func (c matMulCase) String() string {
	return fmt.Sprintf("%dx%dx%d/ta=%v/tb=%v/batch=%d/bcast=%v/alpha=%g/beta=%g/bias=%v/d=%v/%v",
		c.m, c.n, c.k, c.transA, c.transB, c.batch, c.broadcastB, c.alpha, c.beta, c.bias, c.d, c.act)
}

// matMulCases is every combination of transposition, batch (with a
// broadcast B), alpha and beta, bias, a separate D and activation over odd
// sizes, and a few larger products that are split over the cores.
func matMulCases() []matMulCase {
	var cases []matMulCase
	sizes := [][3]int{{1, 1, 1}, {7, 33, 130}, {33, 7, 1}, {13, 130, 7}}
	for _, sz := range sizes {
		for _, trans := range [][2]bool{{false, false}, {false, true}, {true, false}, {true, true}} {
			for _, batch := range []struct {
				n     int
				bcast bool
			}{{1, false}, {3, true}, {2, false}} {
				for _, ab := range [][2]float32{{1, 0}, {-0.5, 0.75}} {
					for _, bias := range []bool{false, true} {
						for _, d := range []bool{false, true} {
							acts := []backend.MatMulActivation{backend.MatMulNoActivation}
							if ab[1] == 0 {
								acts = append(acts, backend.MatMulGELU, backend.MatMulReLU)
							}
							for _, act := range acts {
								cases = append(cases, matMulCase{
									m: sz[0], n: sz[1], k: sz[2], transA: trans[0], transB: trans[1],
									batch: batch.n, broadcastB: batch.bcast, alpha: ab[0], beta: ab[1],
									bias: bias, d: d, act: act,
								})
							}
						}
					}
				}
			}
		}
	}
	return append(cases,
		matMulCase{m: 300, n: 260, k: 70, transB: true, batch: 2, alpha: 1, bias: true, act: backend.MatMulGELU},
		matMulCase{m: 1, n: 2304, k: 768, batch: 1, alpha: 1, bias: true},
		matMulCase{m: 130, n: 1000, k: 40, transA: true, batch: 3, broadcastB: true, alpha: 2, beta: -1, d: true},
		matMulCase{m: 64, n: 64, k: 0, batch: 2, alpha: 1, beta: 0.5, bias: true},
		matMulCase{m: 9, n: 5, k: 0, batch: 1, alpha: 1, act: backend.MatMulGELU},
	)
}

// operand is a matrix (or batch of them) in a buffer: rows×cols with
// leading dimension ld, stride elements apart, starting off bytes in.
type operand struct {
	rows, cols, ld int
	stride         int64
	off            int64
	buf            backend.Buffer
	f              []float32
}

func (o *operand) at(b, r, c int) float32 { return o.f[int(o.off/4)+b*int(o.stride)+r*o.ld+c] }

// newOperand allocates a batch of matrices with gaps, filled with values
// from fill (sentinel in the gaps).
func newOperand(t *testing.T, dev backend.Device, rows, cols, batch int, broadcast bool, fill func() float32) *operand {
	o := &operand{rows: rows, cols: cols, ld: cols + 3, off: 16}
	o.stride = int64(rows*o.ld + 5)
	count := batch
	if broadcast {
		o.stride, count = 0, 1
	}
	floats := int(o.off/4) + (count-1)*int(o.stride) + rows*o.ld + 7
	buf, err := dev.Alloc(int64(4 * floats))
	require.NoError(t, err)
	t.Cleanup(func() { buf.Close() })
	o.buf = buf
	o.f = memview.As[float32](buf.(backend.HostMemory).Bytes())[:floats]
	for i := range o.f {
		o.f[i] = sentinel
	}
	for b := range count {
		for r := range rows {
			for c := range cols {
				o.f[int(o.off/4)+b*int(o.stride)+r*o.ld+c] = fill()
			}
		}
	}
	return o
}

// expect is the float64 result of tc at one element, with a bound on
// float32's rounding errors.
func (tc matMulCase) expect(a, b, c, bias *operand, batch, i, j int) (want, tol float64) {
	const u = 1.0 / (1 << 23)
	var s, mag float64
	for p := range tc.k {
		var x, y float32
		if tc.transA {
			x = a.at(batch, p, i)
		} else {
			x = a.at(batch, i, p)
		}
		bb := batch
		if tc.broadcastB {
			bb = 0
		}
		if tc.transB {
			y = b.at(bb, j, p)
		} else {
			y = b.at(bb, p, j)
		}
		s += float64(x) * float64(y)
		mag += math.Abs(float64(x) * float64(y))
	}
	v := float64(tc.alpha) * s
	mag *= math.Abs(float64(tc.alpha))
	if tc.beta != 0 {
		cv := float64(tc.beta) * float64(c.at(batch, i, j))
		v += cv
		mag += math.Abs(cv)
	}
	if tc.bias {
		bv := float64(bias.at(0, 0, j))
		v += bv
		mag += math.Abs(bv)
	}
	tol = float64(tc.k+4) * u * mag
	switch tc.act {
	case backend.MatMulGELU:
		v = 0.5 * v * (1 + math.Tanh(math.Sqrt(2/math.Pi)*(v+0.044715*v*v*v)))
		tol = 2*tol + 8*u*math.Abs(v) + 1e-7
	case backend.MatMulReLU:
		v = max(v, 0)
	}
	return v, tol
}

// TestMatMul runs every case against a float64 reference and checks that
// nothing outside the result is written (C included, when the result goes
// to D) and that NaN in C does not reach the result when beta is 0.
func TestMatMul(t *testing.T) {
	ctx := context.Background()
	dev, st := openStream(t)
	mm, ok := st.(backend.MatMuler)
	require.True(t, ok, "the CPU stream is a MatMuler")
	rng := rand.New(rand.NewPCG(3, 4))
	uniform := func() float32 { return 2*rng.Float32() - 1 }
	nan := func() float32 { return float32(math.NaN()) }
	for _, tc := range matMulCases() {
		t.Run(tc.String(), func(t *testing.T) {
			ar, ac := tc.m, tc.k
			if tc.transA {
				ar, ac = ac, ar
			}
			br, bc := tc.k, tc.n
			if tc.transB {
				br, bc = bc, br
			}
			a := newOperand(t, dev, ar, ac, tc.batch, false, uniform)
			b := newOperand(t, dev, br, bc, tc.batch, tc.broadcastB, uniform)
			cFill := uniform
			if tc.beta == 0 {
				cFill = nan // must not be read
			}
			c := newOperand(t, dev, tc.m, tc.n, tc.batch, false, cFill)
			cBefore := append([]float32(nil), c.f...)
			out := c
			args := backend.MatMulArgs{
				M: tc.m, N: tc.n, K: tc.k, A: a.buf, B: b.buf, C: c.buf,
				AOffset: a.off, BOffset: b.off, COffset: c.off, LDA: a.ld, LDB: b.ld, LDC: c.ld,
				TransA: tc.transA, TransB: tc.transB, In: backend.MatMulFloat32, Out: backend.MatMulFloat32,
				Alpha: tc.alpha, Beta: tc.beta, Batch: tc.batch,
				StrideA: a.stride, StrideB: b.stride, StrideC: c.stride, Act: tc.act,
			}
			var bias *operand
			if tc.bias {
				bias = newOperand(t, dev, 1, tc.n, 1, false, uniform)
				args.Bias, args.BiasOffset = bias.buf, bias.off
			}
			if tc.d {
				// D is laid out as C; its own offset differs from C's.
				d := newOperand(t, dev, tc.m, tc.n, tc.batch, false, nan)
				for i := range d.f {
					d.f[i] = sentinel
				}
				args.D, args.DOffset = d.buf, d.off
				out = d
			}
			outBefore := append([]float32(nil), out.f...)
			require.NoError(t, mm.MatMul(args))
			require.NoError(t, st.Synchronize(ctx))

			written := make([]bool, len(out.f))
			for bt := range tc.batch {
				for i := range tc.m {
					for j := range tc.n {
						want, tol := tc.expect(a, b, &operand{rows: c.rows, cols: c.cols, ld: c.ld, stride: c.stride, off: c.off, f: cBefore}, bias, bt, i, j)
						x := int(out.off/4) + bt*int(out.stride) + i*out.ld + j
						written[x] = true
						if got := float64(out.f[x]); !(math.Abs(got-want) <= tol) {
							require.Failf(t, "wrong element", "matrix %d C[%d,%d] = %g, want %g within %g", bt, i, j, got, want, tol)
						}
					}
				}
			}
			for x, w := range written {
				if !w && math.Float32bits(out.f[x]) != math.Float32bits(outBefore[x]) {
					require.Failf(t, "written outside the result", "element %d = %g", x, out.f[x])
				}
			}
			if tc.d {
				for x := range c.f {
					if math.Float32bits(c.f[x]) != math.Float32bits(cBefore[x]) {
						require.Failf(t, "C written although the result goes to D", "element %d = %g", x, c.f[x])
					}
				}
			}
		})
	}
}

// TestMatMulNotSupported: types other than float32 are NotSupported, and
// nothing is enqueued (the output is left alone).
func TestMatMulNotSupported(t *testing.T) {
	ctx := context.Background()
	dev, st := openStream(t)
	buf, err := dev.Alloc(1024)
	require.NoError(t, err)
	defer buf.Close()
	f := memview.As[float32](buf.(backend.HostMemory).Bytes())
	for i := range f {
		f[i] = 7
	}
	for _, ty := range [][2]backend.MatMulType{
		{backend.MatMulFloat16, backend.MatMulFloat16},
		{backend.MatMulFloat16, backend.MatMulFloat32},
		{backend.MatMulBFloat16, backend.MatMulFloat32},
		{backend.MatMulInt8, backend.MatMulInt32},
		{backend.MatMulFloat32, backend.MatMulFloat16},
	} {
		t.Run(fmt.Sprintf("%v→%v", ty[0], ty[1]), func(t *testing.T) {
			err := st.(backend.MatMuler).MatMul(backend.MatMulArgs{
				M: 4, N: 4, K: 4, A: buf, B: buf, C: buf, LDA: 4, LDB: 4, LDC: 4,
				In: ty[0], Out: ty[1], Alpha: 1, Batch: 1,
			})
			require.ErrorIs(t, err, errors.NotSupported)
			require.NoError(t, st.Synchronize(ctx))
			for i, v := range f {
				require.Equal(t, float32(7), v, "element %d", i)
			}
		})
	}
}

// openStream opens the CPU device and a stream on it, both closed when the
// test ends.
func openStream(t *testing.T) (backend.Device, backend.Stream) {
	t.Helper()
	dev, err := cpu.Driver{}.Open(context.Background(), 0)
	require.NoError(t, err)
	t.Cleanup(func() { _ = dev.Close() })
	st, err := dev.NewStream()
	require.NoError(t, err)
	t.Cleanup(func() { _ = st.Close() })
	return dev, st
}
