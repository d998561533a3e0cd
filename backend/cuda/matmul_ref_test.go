package cuda

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/anygpu/gpu"
	klang "github.com/anygpu/gpu/kernel"
	"github.com/stretchr/testify/require"
)

// What the MatMul tests share, over the fakes and on the GPU: a product
// described in the MatMul's terms, its operands laid out in buffers with
// padding (leading dimensions beyond the row length, offsets, batch strides),
// and a float64 CPU reference computed from the values as stored.

// mmCase is one product to check.
type mmCase struct {
	name           string
	m, n, k        int
	transA, transB bool
	in, out        gpu.MatMulType // out 0: the default (in, int32 for int8)
	padA, padB     int            // elements each stored row has beyond its length
	padC           int
	offA, offB     int // elements before the first matrix
	offC           int
	batch          int  // 0: 1
	shareB         bool // StrideB 0: one B for the whole batch
	tight          bool // the matrices of A and C follow one another (stride rows·ld)
	alpha, beta    float32
	bias           bool // a Bias vector of N elements of the output type
	offBias        int  // elements before the bias
	separateD      bool // the result goes to a D laid out as C; C is only read
	act            gpu.MatMulActivation
}

// outType is the case's output type, defaults filled.
func (c mmCase) outType() gpu.MatMulType {
	if c.out != 0 {
		return c.out
	}
	if c.in == gpu.MatMulInt8 {
		return gpu.MatMulInt32
	}
	return c.in
}

// String names the case in failures.
func (c mmCase) String() string {
	return fmt.Sprintf("%s: %d×%d×%d %s→%s transA %v transB %v batch %d shareB %v pads %d,%d,%d offsets %d,%d,%d alpha %v beta %v activation %v",
		c.name, c.m, c.n, c.k, c.in, c.outType(), c.transA, c.transB, c.batch, c.shareB, c.padA, c.padB, c.padC,
		c.offA, c.offB, c.offC, c.alpha, c.beta, c.act)
}

// mmOperand is one operand as stored: its values (decoded, as float64) in a
// buffer image of elements, rows×cols per matrix with leading dimension ld,
// stride elements apart, off elements from the start.
type mmOperand struct {
	t                 gpu.MatMulType
	rows, cols, ld    int
	off, stride, mats int
	vals              []float64 // every element of the image, padding included
}

func newOperand(t gpu.MatMulType, rows, cols, pad, off, mats int, shared, tight bool) *mmOperand {
	o := &mmOperand{t: t, rows: rows, cols: cols, ld: cols + pad, off: off, mats: mats}
	o.stride = rows*o.ld + 4 // matrices a little apart (4-byte aligned for int8), so the stride matters
	if tight {
		o.stride = rows * o.ld
	}
	if shared {
		o.stride, o.mats = 0, 1
	}
	n := off + (o.mats-1)*o.stride + rows*o.ld
	o.vals = make([]float64, max(n, 1))
	return o
}

// at is the index in the image of element (i, j) of matrix b.
func (o *mmOperand) at(b, i, j int) int {
	if o.stride == 0 {
		b = 0
	}
	return o.off + b*o.stride + i*o.ld + j
}

// fill gives every element of the image a value the type holds exactly:
// small integers (exact in every type, so products are exact too) when
// small, else uniform in [-1, 1] rounded to the type.
func (o *mmOperand) fill(rng *rand.Rand, small bool) {
	for i := range o.vals {
		var v float64
		switch {
		case o.t == gpu.MatMulInt8:
			v = float64(rng.IntN(255) - 127)
			if small {
				v = float64(rng.IntN(7) - 3)
			}
		case o.t == gpu.MatMulInt32:
			v = float64(rng.IntN(2001) - 1000)
		case small:
			v = float64(rng.IntN(7) - 3)
		default:
			v = rng.Float64()*2 - 1
		}
		o.vals[i] = roundTo(o.t, v)
	}
}

// bytes is the image encoded as the type.
func (o *mmOperand) bytes() []byte {
	size := int(o.t.Size())
	out := make([]byte, len(o.vals)*size)
	for i, v := range o.vals {
		encode(o.t, out[i*size:], v)
	}
	return out
}

// decode reads an image of the type back into values.
func (o *mmOperand) decode(b []byte) []float64 {
	size := int(o.t.Size())
	out := make([]float64, len(b)/size)
	for i := range out {
		out[i] = decode(o.t, b[i*size:])
	}
	return out
}

func encode(t gpu.MatMulType, b []byte, v float64) {
	switch t {
	case gpu.MatMulFloat32:
		binary.LittleEndian.PutUint32(b, math.Float32bits(float32(v)))
	case gpu.MatMulFloat16:
		binary.LittleEndian.PutUint16(b, uint16(klang.ToFloat16(float32(v))))
	case gpu.MatMulBFloat16:
		binary.LittleEndian.PutUint16(b, toBFloat16(float32(v)))
	case gpu.MatMulInt8:
		b[0] = byte(int8(v))
	case gpu.MatMulInt32:
		binary.LittleEndian.PutUint32(b, uint32(int32(v)))
	}
}

func decode(t gpu.MatMulType, b []byte) float64 {
	switch t {
	case gpu.MatMulFloat32:
		return float64(math.Float32frombits(binary.LittleEndian.Uint32(b)))
	case gpu.MatMulFloat16:
		return float64(klang.ToFloat32(klang.Float16(binary.LittleEndian.Uint16(b))))
	case gpu.MatMulBFloat16:
		return float64(math.Float32frombits(uint32(binary.LittleEndian.Uint16(b)) << 16))
	case gpu.MatMulInt8:
		return float64(int8(b[0]))
	case gpu.MatMulInt32:
		return float64(int32(binary.LittleEndian.Uint32(b)))
	}
	return math.NaN()
}

// roundTo is v as the type stores it.
func roundTo(t gpu.MatMulType, v float64) float64 {
	b := make([]byte, 4)
	encode(t, b, v)
	return decode(t, b)
}

// toBFloat16 rounds x to bfloat16, to nearest even (finite x).
func toBFloat16(x float32) uint16 {
	u := math.Float32bits(x)
	return uint16((u + 0x7fff + (u>>16)&1) >> 16)
}

// mmRun is a case with its operands and buffers on a device.
type mmRun struct {
	c       mmCase
	a, b, o *mmOperand // o is C
	bias    *mmOperand // nil without a bias
	d       *mmOperand // nil when the result overwrites C
	mm      gpu.MatMul
	bufs    []*gpu.Buffer
}

// prepare lays the case's operands out on dev and returns the MatMul.
func prepare(t testing.TB, dev *gpu.Device, c mmCase, small bool, seed uint64) *mmRun {
	t.Helper()
	batch := max(c.batch, 1)
	aRows, aCols := c.m, c.k
	if c.transA {
		aRows, aCols = c.k, c.m
	}
	bRows, bCols := c.k, c.n
	if c.transB {
		bRows, bCols = c.n, c.k
	}
	r := &mmRun{c: c,
		a: newOperand(c.in, aRows, aCols, c.padA, c.offA, batch, false, c.tight),
		b: newOperand(c.in, bRows, bCols, c.padB, c.offB, batch, c.shareB, c.tight),
		o: newOperand(c.outType(), c.m, c.n, c.padC, c.offC, batch, false, c.tight),
	}
	if c.bias {
		r.bias = newOperand(c.outType(), 1, c.n, 0, c.offBias, 1, true, false)
	}
	rng := rand.New(rand.NewPCG(seed, 7))
	r.a.fill(rng, small)
	r.b.fill(rng, small)
	r.o.fill(rng, small)
	if r.bias != nil {
		r.bias.fill(rng, small)
	}
	ctx := context.Background()
	upload := func(o *mmOperand) *gpu.Buffer {
		buf, err := gpu.FromSlice(ctx, dev, o.bytes())
		require.NoError(t, err)
		r.bufs = append(r.bufs, buf)
		return buf
	}
	r.mm = gpu.MatMul{M: c.m, N: c.n, K: c.k, A: upload(r.a), B: upload(r.b), C: upload(r.o),
		AOffset: int64(c.offA) * c.in.Size(), BOffset: int64(c.offB) * c.in.Size(), COffset: int64(c.offC) * c.outType().Size(),
		LDA: r.a.ld, LDB: r.b.ld, LDC: r.o.ld, TransA: c.transA, TransB: c.transB, In: c.in, Out: c.out,
		Alpha: c.alpha, Beta: c.beta, Batch: c.batch, StrideA: int64(r.a.stride), StrideB: int64(r.b.stride), StrideC: int64(r.o.stride),
		Activation: c.act}
	if batch == 1 {
		r.mm.StrideA, r.mm.StrideB, r.mm.StrideC = 0, 0, 0
	}
	if r.bias != nil {
		r.mm.Bias, r.mm.BiasOffset = upload(r.bias), int64(c.offBias)*c.outType().Size()
	}
	if c.separateD { // D starts as C's image with every element negated: what the product leaves alone must stay so
		d := *r.o
		d.vals = make([]float64, len(r.o.vals))
		for i, v := range r.o.vals {
			d.vals[i] = -v
		}
		r.d = &d
		r.mm.D, r.mm.DOffset = upload(r.d), r.mm.COffset
	}
	t.Cleanup(r.close)
	return r
}

func (r *mmRun) close() {
	for _, b := range r.bufs {
		_ = b.Close()
	}
	r.bufs = nil
}

// want is the reference image of C after the product: the product's
// elements computed in float64 from the stored inputs, everything else as
// it was. tol holds each element's tolerance (0 for the untouched ones).
func (r *mmRun) want() (want, tol []float64) {
	c := r.c
	alpha, beta := float64(c.alpha), float64(c.beta)
	if alpha == 0 && beta == 0 {
		alpha = 1
	}
	want = append([]float64(nil), r.o.vals...)
	tol = make([]float64, len(want))
	outEps, accEps := 0.0, 0.0
	switch c.outType() {
	case gpu.MatMulFloat16:
		outEps = 1.0 / 2048
	case gpu.MatMulBFloat16:
		outEps = 1.0 / 256
	}
	if c.in != gpu.MatMulInt8 {
		accEps = float64(max(c.k, 16)) / (1 << 23) // float32 accumulation, in any order
	}
	for b := range max(c.batch, 1) {
		for i := range c.m {
			for j := range c.n {
				var acc, mag float64
				for p := range c.k {
					var x, y float64
					if c.transA {
						x = r.a.vals[r.a.at(b, p, i)]
					} else {
						x = r.a.vals[r.a.at(b, i, p)]
					}
					if c.transB {
						y = r.b.vals[r.b.at(b, j, p)]
					} else {
						y = r.b.vals[r.b.at(b, p, j)]
					}
					acc += x * y
					mag += math.Abs(x * y)
				}
				at := r.o.at(b, i, j)
				old := r.o.vals[at]
				v := alpha * acc
				if beta != 0 {
					v += beta * old
				}
				extra := 0.0
				if r.bias != nil {
					// cuBLASLt rounds a 16-bit output's scaled product to the
					// output type before it adds the bias (as PyTorch's addmm
					// does): one more rounding, of the value before the bias.
					bv := r.bias.vals[r.bias.at(0, 0, j)]
					extra = outEps*math.Abs(v) + (math.Abs(v)+math.Abs(bv))/(1<<23)
					v += bv
				}
				pre := accEps*(math.Abs(alpha)*mag+math.Abs(beta*old)) + extra + 1e-7 // the sum's error before the output's rounding
				if c.act != gpu.MatMulNoActivation {
					var slope, actErr float64
					v, slope, actErr = activationRef(c.act, v)
					pre = slope*pre + actErr
				}
				want[at] = v
				tol[at] = outEps*math.Abs(v) + pre
			}
		}
	}
	return want, tol
}

// geluSlope bounds |GELU'(x)| (tanh form) over every x: its maximum, about
// 1.129, is near x = 2.4.
const geluSlope = 1.13

// geluRef is GELU in its tanh form, in float64.
func geluRef(x float64) float64 {
	return 0.5 * x * (1 + math.Tanh(math.Sqrt(2/math.Pi)*(x+0.044715*x*x*x)))
}

// activationRef is act at v in float64, the bound on its slope (how much an
// error of v grows) and its own error in the library: GELU's tanh may be
// evaluated approximately on the GPU (PTX's tanh.approx.f32 has a relative
// error of about 2⁻¹¹, which becomes |v|·2⁻¹² of GELU), ReLU is exact.
func activationRef(act gpu.MatMulActivation, v float64) (y, slope, err float64) {
	switch act {
	case gpu.MatMulGELU:
		return geluRef(v), geluSlope, math.Abs(v)/4096 + 1e-6
	case gpu.MatMulReLU:
		return max(v, 0), 1, 0
	}
	return v, 1, 0
}

// check reads C back and compares every element of its image with the
// reference, padding included (which must be left alone). It returns the
// largest error relative to the tolerance.
func (r *mmRun) check(t testing.TB, s *gpu.Stream) float64 {
	t.Helper()
	raw := make([]byte, len(r.o.vals)*int(r.o.t.Size()))
	require.NoError(t, s.Read(raw, r.mm.C, 0))
	require.NoError(t, s.Synchronize(context.Background()))
	got := r.o.decode(raw)
	want, tol := r.want()
	if r.d != nil { // C is only read: unchanged; D holds the product, and D's own values elsewhere
		require.Equal(t, r.o.vals, got, "%v: C was written", r.c)
		require.NoError(t, s.Read(raw, r.mm.D, 0))
		require.NoError(t, s.Synchronize(context.Background()))
		got = r.d.decode(raw)
		for i := range want {
			if tol[i] == 0 {
				want[i] = r.d.vals[i]
			}
		}
	}
	worst := 0.0
	var bad []string
	for i := range got {
		d := math.Abs(got[i] - want[i])
		if tol[i] > 0 {
			worst = max(worst, d/tol[i])
		}
		if d > tol[i] || math.IsNaN(got[i]) {
			if len(bad) < 8 {
				bad = append(bad, fmt.Sprintf("element %d: got %v, want %v (tolerance %.3g)", i, got[i], want[i], tol[i]))
			}
		}
	}
	require.Empty(t, bad, "%v: %s", r.c, strings.Join(bad, "; "))
	return worst
}
