package cpu

import (
	"math"
	"runtime"
	"sync"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/errors"
	"github.com/anygpu/gpu/internal/gemm"
	"github.com/anygpu/gpu/internal/memview"
)

// Matrix products (backend.MatMuler) through internal/gemm, the packed,
// cache-blocked multiply the sgemm kernel also uses. A product's matrices
// are cut into blocks (gemm.Blocks' tiles, or finer pieces when there are
// too few of them to keep every core busy) spread over the cores; each
// block gets its bias and activation right after its multiply, while it is
// in cache.

var _ backend.MatMuler = (*stream)(nil)

// MatMul enqueues m, a float32 product (either operand may be transposed);
// other types are NotSupported, and nothing is enqueued then.
func (s *stream) MatMul(m backend.MatMulArgs) error {
	op := m.String()
	if m.In != backend.MatMulFloat32 || m.Out != backend.MatMulFloat32 {
		e := errors.E(errors.NotSupported, Name, op, "the CPU backend multiplies float32→float32 only, not %s→%s", m.In, m.Out)
		e.Hint = "multiply with a kernel instead (package tensor falls back to its own)"
		return e
	}
	if !m.Act.Valid() {
		return errors.E(errors.NotSupported, Name, op, "unknown activation %v", m.Act)
	}
	s.enqueue(func() error { return runMatMul(op, &m) })
	return nil
}

// The split of a product over the cores.
const (
	// serialFMAs is the size (multiply-adds over the whole batch) under
	// which a product runs on the stream's goroutine alone: waking other
	// cores costs more than it saves.
	serialFMAs = 1 << 18
	// chunkFMAs is the least work handed to a core at a time.
	chunkFMAs = 1 << 17
	// piecesPerCore is how many blocks a core gets at least, for balance,
	// when gemm.Blocks' tiles are too few: the matrices are then cut into
	// finer pieces.
	piecesPerCore = 2
	// pieceRows and pieceCols are the granularity of those pieces: the
	// AVX-512 micro-kernel's tile (a few rows of the widest kernel).
	pieceRows, pieceCols = 8, 32
)

// matMulTask is one block of one matrix of the batch.
type matMulTask struct {
	matrix int
	gemm.Block
}

// runMatMul computes m on the calling goroutine and the other cores; a
// panic (arguments the root should have refused) becomes an Execution error.
func runMatMul(op string, m *backend.MatMulArgs) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = panicError(op, v)
		}
	}()
	mm := newMatMulView(m)
	blocks := matMulBlocks(m.M, m.N, m.Batch, runtime.GOMAXPROCS(0))
	tasks := make([]matMulTask, 0, m.Batch*len(blocks))
	for b := range m.Batch {
		for _, bl := range blocks {
			tasks = append(tasks, matMulTask{b, bl})
		}
	}
	fmas := float64(m.M) * float64(m.N) * float64(max(m.K, 1))
	grain := len(tasks)
	if fmas*float64(m.Batch) >= serialFMAs {
		perTask := fmas / float64(len(blocks))
		grain = max(1, int(math.Ceil(chunkFMAs/perTask)))
	}
	var (
		errOnce  sync.Once
		firstErr error
	)
	perr := parallelFor(op, len(tasks), grain, func(lo, hi int) {
		for _, t := range tasks[lo:hi] {
			if err := mm.block(t.matrix, t.Block); err != nil {
				errOnce.Do(func() { firstErr = err })
				return
			}
		}
	})
	if perr != nil {
		return perr
	}
	if firstErr != nil {
		return errors.E(errors.Execution, Name, op, "%v", firstErr)
	}
	return nil
}

// matMulBlocks returns the blocks every m×n matrix of a batch of batch is
// cut into for workers cores: gemm.Blocks' tiles when the batch has at
// least piecesPerCore of them a core, else finer pieces.
func matMulBlocks(m, n, batch, workers int) []gemm.Block {
	want := piecesPerCore * workers
	tiles := gemm.Tiles(m, n)
	if tiles*batch >= want || tiles == 0 {
		var out []gemm.Block
		for p := range tiles {
			for b := range gemm.Blocks(p, tiles, m, n) {
				out = append(out, b)
			}
		}
		return out
	}
	return pieces(m, n, (want+batch-1)/batch)
}

// pieces cuts an m×n matrix into about count rectangles of whole
// pieceRows×pieceCols tiles: rows of about 128 first, then columns (a
// product of a few rows, decoding, is cut along n).
func pieces(m, n, count int) []gemm.Block {
	rowParts := min(count, ceilDiv(m, 128))
	colParts := min(ceilDiv(count, rowParts), ceilDiv(n, pieceCols))
	if rowParts*colParts < count {
		rowParts = min(ceilDiv(count, colParts), ceilDiv(m, pieceRows))
	}
	rows := roundUp(ceilDiv(m, rowParts), pieceRows)
	cols := roundUp(ceilDiv(n, colParts), pieceCols)
	var out []gemm.Block
	for i := 0; i < m; i += rows {
		for j := 0; j < n; j += cols {
			out = append(out, gemm.Block{I0: i, I1: min(m, i+rows), J0: j, J1: min(n, j+cols)})
		}
	}
	return out
}

func ceilDiv(x, y int) int  { return (x + y - 1) / y }
func roundUp(x, to int) int { return ceilDiv(x, to) * to }

// matMulView is a product's operands as float32 slices from their
// offsets.
type matMulView struct {
	*backend.MatMulArgs
	a, b, c, d, bias []float32 // d is c when the result goes to C
}

func newMatMulView(m *backend.MatMulArgs) *matMulView {
	v := &matMulView{MatMulArgs: m}
	view := func(buf backend.Buffer, off int64) []float32 { return memview.As[float32](mem(buf)[off:]) }
	v.a, v.b, v.c = view(m.A, m.AOffset), view(m.B, m.BOffset), view(m.C, m.COffset)
	v.d = v.c
	if m.D != nil {
		v.d = view(m.D, m.DOffset)
	}
	if m.Bias != nil {
		v.bias = view(m.Bias, m.BiasOffset)[:m.N]
	}
	return v
}

// block computes rows [I0, I1) × columns [J0, J1) of matrix number matrix
// of the batch, with its bias and activation.
func (v *matMulView) block(matrix int, bl gemm.Block) error {
	m := v.MatMulArgs
	cOff := int(int64(matrix)*m.StrideC) + bl.I0*m.LDC + bl.J0
	rows, cols := bl.I1-bl.I0, bl.J1-bl.J0
	var a, b []float32 // empty when K is 0: C becomes Beta·C
	if m.K > 0 {
		a = v.a[int64(matrix)*m.StrideA:]
		b = v.b[int64(matrix)*m.StrideB:]
		if m.TransA {
			a = a[bl.I0:]
		} else {
			a = a[bl.I0*m.LDA:]
		}
		if m.TransB {
			b = b[bl.J0*m.LDB:]
		} else {
			b = b[bl.J0:]
		}
	}
	out := v.d[cOff:]
	if m.D != nil && m.Beta != 0 {
		// D = Alpha·A·B + Beta·C: C's block is copied to D, then updated there.
		c := v.c[cOff:]
		for r := range rows {
			copy(out[r*m.LDC:r*m.LDC+cols], c[r*m.LDC:r*m.LDC+cols])
		}
	}
	if err := gemm.SgemmT(m.TransA, m.TransB, rows, cols, m.K, m.Alpha, a, m.LDA, b, m.LDB, m.Beta, out, m.LDC); err != nil {
		return err
	}
	if v.bias == nil && m.Act == backend.MatMulNoActivation {
		return nil
	}
	var bias []float32
	if v.bias != nil {
		bias = v.bias[bl.J0:bl.J1]
	}
	for r := range rows {
		epilogue(out[r*m.LDC:r*m.LDC+cols], bias, m.Act)
	}
	return nil
}

// epilogue adds bias (when not nil) to row and applies act.
func epilogue(row, bias []float32, act backend.MatMulActivation) {
	if bias != nil {
		bias = bias[:len(row)]
		for j := range row {
			row[j] += bias[j]
		}
	}
	switch act {
	case backend.MatMulGELU:
		for j, x := range row {
			row[j] = geluTanh(x)
		}
	case backend.MatMulReLU:
		for j, x := range row {
			row[j] = max(x, 0)
		}
	}
}

// geluTanh is GELU in its tanh form, x/2·(1 + tanh(√(2/π)·(x + 0.044715·x³))),
// in float32 as the kernels write it, with tanh32 for the tangent (the
// kernels' math.Tanh in float64 costs as much as a quarter of a GPT-2 MLP
// product on a core).
func geluTanh(x float32) float32 {
	return 0.5 * x * (1 + tanh32(0.7978845608028654*(x+0.044715*x*x*x)))
}

// tanh32 is the hyperbolic tangent in float32, within a few ulps: an odd
// polynomial near 0, 1 − 2/(e^{2|y|} + 1) beyond, ±1 from 9 on, NaN for NaN.
func tanh32(y float32) float32 {
	a := float32(math.Abs(float64(y)))
	switch {
	case a < 0.625:
		z := y * y
		return y + y*z*((((-5.70498872745e-3*z+2.06390887954e-2)*z-5.37397155531e-2)*z+1.33314422036e-1)*z-3.33332819422e-1)
	case a < 9:
		r := 1 - 2/(exp32(2*a)+1)
		if y < 0 {
			return -r
		}
		return r
	case y > 0:
		return 1
	case y < 0:
		return -1
	}
	return y // NaN
}

// exp32 is e^x in float32 for x in [0, 18] (tanh32's range): x = n·ln 2 + r
// with |r| ≤ ln 2 / 2, e^r by a polynomial, times 2ⁿ through the exponent.
func exp32(x float32) float32 {
	n := float32(math.Floor(float64(x*1.44269504088896341 + 0.5)))
	r := x - n*0.693359375 - n*-2.12194440e-4 // ln 2 in two parts: n·0.693359375 is exact
	p := (((((1.9875691500e-4*r+1.3981999507e-3)*r+8.3334519073e-3)*r+4.1665795894e-2)*r+1.6666665459e-1)*r + 5.0000001201e-1)
	e := p*r*r + r + 1
	return e * math.Float32frombits(uint32(int32(n)+127)<<23)
}
