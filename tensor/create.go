package tensor

import (
	"context"
	"encoding/binary"
	"math"
	"slices"

	"github.com/anygpu/gpu"
)

// Element is a Go type a tensor's elements can be read and written as:
// float32 (Float32), int32 (Int32), int8 (Int8), uint8 (Uint8). Other
// dtypes go through FromFloat32 / ToFloat32 or, bit for bit, FromBytes /
// Bytes.
type Element interface {
	~float32 | ~int32 | ~int8 | ~uint8
}

// dtypeOf is the DType of Element T, named types included (type Logit
// float32), told apart by arithmetic: only a float keeps ½·2 = 1, only an
// unsigned type has -1 > 0, and int8 wraps at 127+1.
func dtypeOf[T Element]() DType {
	one, two, minusOne, top := T(1), T(2), T(0), T(127)
	minusOne--
	switch {
	case one/two*two == one:
		return Float32
	case minusOne > 0:
		return Uint8
	case top+one < 0:
		return Int8
	}
	return Int32
}

// alloc is new storage on ds's device for n elements of d (at least 4 bytes,
// a multiple of 4: the kernels address 32-bit words).
func alloc(ds *deviceState, op string, d DType, n int) (*storage, error) {
	buf, size, err := allocBuffer(ds, op, d, n)
	if err != nil {
		return nil, err
	}
	return &storage{buf: buf, ds: ds, size: size}, nil
}

// allocBuffer is alloc's buffer and its size.
func allocBuffer(ds *deviceState, op string, d DType, n int) (*gpu.Buffer, int64, error) {
	size := (int64(n)*int64(d.Size()) + 3) &^ 3
	size = max(size, 4)
	buf, err := ds.dev.Alloc(size)
	if err != nil {
		return nil, 0, wrap(err, op)
	}
	return buf, size, nil
}

// tensorAndStorage is a new tensor and its storage in one allocation (an
// op's result: most are never viewed).
type tensorAndStorage struct {
	t  Tensor
	st storage
}

// empty is a new contiguous tensor of shape on ds's device, contents
// undefined.
func empty(ds *deviceState, op string, d DType, shape []int) (*Tensor, error) {
	if len(shape) > MaxRank {
		st, err := alloc(ds, op, d, numel(shape))
		if err != nil {
			return nil, err
		}
		return newTensor(st, d, shape, rowMajor(shape), 0), nil
	}
	buf, size, err := allocBuffer(ds, op, d, numel(shape))
	if err != nil {
		return nil, err
	}
	both := &tensorAndStorage{}
	both.st.buf, both.st.ds, both.st.size = buf, ds, size
	var strides [MaxRank]int
	rowMajorInto(strides[:len(shape)], shape)
	initTensor(&both.t, &both.st, d, shape, strides[:len(shape)], 0)
	return &both.t, nil
}

// checkCtx is nil, or the error for a nil or ended context.
func checkCtx(op string, ctx context.Context) error {
	if ctx == nil {
		return invalid(op, "nil context")
	}
	return wrap(ctx.Err(), op)
}

// checkNew validates a constructor's context, device, dtype and shape.
func checkNew(op string, ctx context.Context, dev *gpu.Device, d DType, shape []int) error {
	if err := checkCtx(op, ctx); err != nil {
		return err
	}
	if dev == nil {
		return invalid(op, "nil device")
	}
	if !d.Valid() {
		return invalid(op, "unknown dtype %d", int(d))
	}
	return checkShape(op, shape)
}

// Empty returns a contiguous tensor of dtype d and shape on dev whose
// contents are undefined. No shape (Empty(dev, Float32)) is a scalar.
func Empty(dev *gpu.Device, d DType, shape ...int) (*Tensor, error) {
	if err := checkNew("empty", context.Background(), dev, d, shape); err != nil {
		return nil, err
	}
	return empty(stateOf(dev), "empty", d, shape)
}

// Zeros returns a contiguous tensor of zeros (a device fill, not a
// transfer).
//
// The constructors look at ctx before they start; the upload or fill they
// enqueue is not waited for (the readers wait for it).
func Zeros(ctx context.Context, dev *gpu.Device, d DType, shape ...int) (*Tensor, error) {
	const op = "zeros"
	if err := checkNew(op, ctx, dev, d, shape); err != nil {
		return nil, err
	}
	t, err := empty(stateOf(dev), op, d, shape)
	if err != nil {
		return nil, err
	}
	t.st.touch(t.st.ds.nextEpoch())
	if err := dev.DefaultStream().Fill(t.st.buf, 0, t.st.size, 0); err != nil {
		_ = t.Close()
		return nil, wrap(err, op)
	}
	return t, nil
}

// FromBytes returns a contiguous tensor of dtype d and shape holding raw,
// the elements' little-endian bytes (len(raw) must be the shape's elements
// times d.Size()). It is one H2D transfer.
func FromBytes(ctx context.Context, dev *gpu.Device, d DType, raw []byte, shape ...int) (*Tensor, error) {
	const op = "from bytes"
	if err := checkNew(op, ctx, dev, d, shape); err != nil {
		return nil, err
	}
	if n := numel(shape) * d.Size(); len(raw) != n {
		return nil, invalid(op, "%d bytes for %s %s, which takes %d", len(raw), d, shapeString(shape), n)
	}
	return upload(stateOf(dev), op, d, shape, raw)
}

// upload is a new tensor holding raw (a copy: raw may be reused).
func upload(ds *deviceState, op string, d DType, shape []int, raw []byte) (*Tensor, error) {
	t, err := empty(ds, op, d, shape)
	if err != nil {
		return nil, err
	}
	if len(raw) == 0 {
		return t, nil
	}
	if len(raw)%4 != 0 {
		raw = append(slices.Clip(raw), make([]byte, 4-len(raw)%4)...)
	}
	t.st.touch(ds.nextEpoch())
	if err := ds.dev.DefaultStream().Write(t.st.buf, 0, raw); err != nil {
		_ = t.Close()
		return nil, wrap(err, op)
	}
	t.count(h2d, int64(numel(shape)*d.Size()))
	return t, nil
}

// shapeFor is shape, or [len] when none is given; an error when its
// elements are not n.
func shapeFor(op string, n int, shape []int) ([]int, error) {
	if len(shape) == 0 {
		return []int{n}, nil
	}
	if err := checkShape(op, shape); err != nil {
		return nil, err
	}
	if m := numel(shape); m != n {
		return nil, invalid(op, "%d values for shape %s, which holds %d", n, shapeString(shape), m)
	}
	return shape, nil
}

// FromSlice returns a contiguous tensor holding a copy of data, of the
// dtype of T and the given shape (default: one dimension of len(data)):
// one H2D transfer.
func FromSlice[T Element](ctx context.Context, dev *gpu.Device, data []T, shape ...int) (*Tensor, error) {
	const op = "from slice"
	d := dtypeOf[T]()
	if err := checkNew(op, ctx, dev, d, nil); err != nil {
		return nil, err
	}
	shape, err := shapeFor(op, len(data), shape)
	if err != nil {
		return nil, err
	}
	raw := make([]byte, len(data)*d.Size())
	for i, v := range data {
		switch d {
		case Float32:
			binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(float32(v)))
		case Int32:
			binary.LittleEndian.PutUint32(raw[4*i:], uint32(int32(v)))
		default:
			raw[i] = byte(v)
		}
	}
	return upload(stateOf(dev), op, d, shape, raw)
}

// FromFloat32 returns a contiguous tensor of dtype d holding data converted
// on the host (floats round to nearest even, as Float16FromFloat32 and its
// siblings; integers truncate toward zero and saturate, NaN giving 0), of
// the given shape (default: one dimension): one H2D transfer of the
// converted bytes.
func FromFloat32(ctx context.Context, dev *gpu.Device, d DType, data []float32, shape ...int) (*Tensor, error) {
	const op = "from float32"
	if err := checkNew(op, ctx, dev, d, nil); err != nil {
		return nil, err
	}
	shape, err := shapeFor(op, len(data), shape)
	if err != nil {
		return nil, err
	}
	raw := make([]byte, len(data)*d.Size())
	encodeFloat32s(raw, d, data)
	return upload(stateOf(dev), op, d, shape, raw)
}
