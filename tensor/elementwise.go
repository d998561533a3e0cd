package tensor

import (
	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/tensor/internal/ops"
)

// isFloat reports whether d is a dtype the ops compute with: Float32,
// Float16 or BFloat16 (16-bit storage, float32 arithmetic).
func isFloat(d DType) bool { return d == Float32 || d == Float16 || d == BFloat16 }

// needFloat is nil when t is usable and of a dtype the ops compute with
// (isFloat), and of dtype like's when like is not nil.
func needFloat(op string, t, like *Tensor) error {
	if err := t.usable(op); err != nil {
		return err
	}
	if !isFloat(t.dtype) {
		return notSupported(op, "Cast to Float32, Float16 or BFloat16 first", "%s tensors: the ops compute in float32, float16 and bfloat16", t.dtype)
	}
	if like != nil && t.dtype != like.dtype {
		return invalidHint(op, "Cast one of them first", "%s and %s tensors: the operands of an op share one dtype", like.dtype, t.dtype)
	}
	return nil
}

// words is the number of 32-bit words n elements of d take: the threads of
// a kernel that writes whole words.
func words(d DType, n int) int {
	per := 4 / d.Size()
	return (n + per - 1) / per
}

// unaryOp applies kernel op code code to x into a new contiguous tensor.
func unaryOp(op string, x *Tensor, code uint32, a float32) (*Tensor, error) {
	if err := needFloat(op, x, nil); err != nil {
		return nil, err
	}
	ds := x.st.ds
	out, err := empty(ds, op, x.dtype, x.shape)
	if err != nil {
		return nil, err
	}
	var args argList
	args.add(gpu.Buf(out.st.buf), gpu.Buf(x.st.buf))
	args.u32(x.Len(), int(x.dtype), int(code))
	l := coalesced(x.shape, x.strides)
	args.view(x.offset, l.shape[:l.rank], l.strides[0][:l.rank])
	args.add(gpu.F32(a))
	kernels := unaryKernels
	if code == ops.UnaryGELUTanh {
		kernels = geluKernels
	}
	if err := ds.launch(kernels.of(x.dtype), false, words(x.dtype, x.Len()), []*storage{out.st, x.st}, args.args()...); err != nil {
		_ = out.Close()
		return nil, wrap(err, op)
	}
	return out, nil
}

// Scale returns a·x.
func Scale(x *Tensor, a float32) (*Tensor, error) { return unaryOp("scale", x, ops.UnaryScale, a) }

// ReLU returns max(x, 0).
func ReLU(x *Tensor) (*Tensor, error) { return unaryOp("relu", x, ops.UnaryReLU, 0) }

// GELU returns the GELU of x in its tanh form,
// x/2·(1 + tanh(√(2/π)·(x + 0.044715·x³))) (GPT-2's "gelu_new").
func GELU(x *Tensor) (*Tensor, error) { return unaryOp("gelu", x, ops.UnaryGELUTanh, 0) }

// GELUErf returns the exact GELU of x, x/2·(1 + erf(x/√2)); erf is a
// polynomial approximation with an absolute error below 4e-7.
func GELUErf(x *Tensor) (*Tensor, error) { return unaryOp("gelu erf", x, ops.UnaryGELUErf, 0) }

// SiLU returns x·σ(x) = x/(1 + e^-x).
func SiLU(x *Tensor) (*Tensor, error) { return unaryOp("silu", x, ops.UnarySiLU, 0) }

// Exp returns e^x.
func Exp(x *Tensor) (*Tensor, error) { return unaryOp("exp", x, ops.UnaryExp, 0) }

// Tanh returns tanh x.
func Tanh(x *Tensor) (*Tensor, error) { return unaryOp("tanh", x, ops.UnaryTanh, 0) }

// binaryOp applies kernel op code code to x and y, broadcast, into a new
// contiguous tensor of the broadcast shape.
func binaryOp(op string, x, y *Tensor, code uint32) (*Tensor, error) {
	if err := needFloat(op, x, nil); err != nil {
		return nil, err
	}
	if err := needFloat(op, y, x); err != nil {
		return nil, err
	}
	if x.Device() != y.Device() {
		return nil, invalidHint(op, "CopyTo one device first", "tensors on %s and %s", x.Device().Name(), y.Device().Name())
	}
	r := max(len(x.shape), len(y.shape)) // at most MaxRank: both are tensors
	var sbuf, xbuf, ybuf [MaxRank]int
	shape, err := broadcastShapesInto(op, x.shape, y.shape, sbuf[:r])
	if err != nil {
		return nil, err
	}
	xs, err := x.expandStridesInto(op, shape, xbuf[:r])
	if err != nil {
		return nil, err
	}
	ys, err := y.expandStridesInto(op, shape, ybuf[:r])
	if err != nil {
		return nil, err
	}
	ds := x.st.ds
	out, err := empty(ds, op, x.dtype, shape)
	if err != nil {
		return nil, err
	}
	if err := launchBinary(out, x, xs, x.offset, y, ys, y.offset, code); err != nil {
		_ = out.Close()
		return nil, wrap(err, op)
	}
	return out, nil
}

// launchBinary enqueues the binary kernel (op code code) over out,
// contiguous, from the views (out's shape, xs, xoff) of x's buffer and
// (out's shape, ys, yoff) of y's.
func launchBinary(out, x *Tensor, xs []int, xoff int, y *Tensor, ys []int, yoff int, code uint32) error {
	n := out.Len()
	l := coalesced(out.shape, xs, ys)
	var args argList
	args.add(gpu.Buf(out.st.buf), gpu.Buf(x.st.buf), gpu.Buf(y.st.buf))
	args.u32(n, int(x.dtype), int(code))
	args.padded(l.shape[:l.rank], MaxRank, 1) // the output's sizes
	args.u32(xoff)
	args.padded(l.strides[0][:l.rank], MaxRank, 0)
	args.u32(yoff)
	args.padded(l.strides[1][:l.rank], MaxRank, 0)
	return out.st.ds.launch(binaryKernels.of(x.dtype), false, words(x.dtype, n), []*storage{out.st, x.st, y.st}, args.args()...)
}

// Add returns x + y, broadcast (NumPy's rule).
func Add(x, y *Tensor) (*Tensor, error) { return binaryOp("add", x, y, ops.BinaryAdd) }

// Sub returns x - y, broadcast.
func Sub(x, y *Tensor) (*Tensor, error) { return binaryOp("sub", x, y, ops.BinarySub) }

// Mul returns x·y, broadcast.
func Mul(x, y *Tensor) (*Tensor, error) { return binaryOp("mul", x, y, ops.BinaryMul) }

// Div returns x/y, broadcast.
func Div(x, y *Tensor) (*Tensor, error) { return binaryOp("div", x, y, ops.BinaryDiv) }
