package tensor

import (
	"fmt"
	"math"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/errors"
)

// MaxRank is the most dimensions a tensor has.
const MaxRank = 6

// maxElements bounds a buffer's elements: the kernels index in 32 bits.
const maxElements = math.MaxUint32

// storage is a device buffer shared by a tensor and its views, freed when the
// last of them is closed.
type storage struct {
	buf   *gpu.Buffer
	ds    *deviceState
	size  int64 // bytes, a multiple of 4
	refs  atomic.Int64
	mu    sync.Mutex
	epoch uint64 // ds's op sequence when work last used the buffer
}

func (s *storage) retain() { s.refs.Add(1) }

// release drops a reference and frees the buffer with the last one: at once
// when no enqueued op uses it, else at the device's next synchronization.
func (s *storage) release() error {
	if s.refs.Add(-1) != 0 {
		return nil
	}
	s.mu.Lock()
	epoch := s.epoch
	s.mu.Unlock()
	return s.ds.free(s.buf, epoch)
}

// touch records that an op enqueued now (sequence epoch) uses the buffer.
func (s *storage) touch(epoch uint64) {
	s.mu.Lock()
	s.epoch = max(s.epoch, epoch)
	s.mu.Unlock()
}

// Tensor is an n-dimensional array of one dtype on one device: a device
// buffer with a shape, strides and an offset (both in elements). Views
// (Slice, Reshape, Transpose, Permute, Expand) share the buffer without
// copying; ops return new, contiguous tensors on the same device.
//
// Ownership: every tensor, view or not, holds a reference to its buffer and
// must be closed; the buffer is freed when the last tensor using it is
// closed (or, if queued device work still reads it, at the device's next
// synchronization: ToHost, Synchronize). Closing a tensor never invalidates
// its views. Close is idempotent; any other use of a closed tensor is an
// error of category Closed.
//
// A tensor is safe for concurrent use, but ops are enqueued on its device's
// default stream in call order.
//
// Every method of a nil *Tensor returns an error (or the zero value, for
// accessors) instead of panicking.
type Tensor struct {
	st      *storage
	dtype   DType
	shape   []int
	strides []int
	offset  int
	closed  atomic.Bool
	dims    [2 * MaxRank]int // shape and strides live here (rank ≤ MaxRank)

	mu        sync.Mutex
	transfers gpu.TransferCounts
}

// newTensor is a tensor over st with a reference of its own, and copies of
// shape and strides (the caller's slices are not kept).
func newTensor(st *storage, dtype DType, shape, strides []int, offset int) *Tensor {
	t := &Tensor{}
	initTensor(t, st, dtype, shape, strides, offset)
	return t
}

// initTensor makes the zero tensor t newTensor's.
func initTensor(t *Tensor, st *storage, dtype DType, shape, strides []int, offset int) {
	st.retain()
	t.st, t.dtype, t.offset = st, dtype, offset
	if r := len(shape); r <= MaxRank && len(strides) == r {
		t.shape = t.dims[:r:r]
		t.strides = t.dims[MaxRank : MaxRank+r : MaxRank+r]
		copy(t.shape, shape)
		copy(t.strides, strides)
	} else {
		t.shape, t.strides = slices.Clone(shape), slices.Clone(strides)
	}
}

// usable is nil, or the error for a nil or closed tensor.
func (t *Tensor) usable(op string) error {
	if t == nil {
		return invalid(op, "nil tensor")
	}
	if t.closed.Load() {
		return errors.E(errors.Closed, "tensor", op, "tensor %s %s is closed", t.dtype, shapeString(t.shape))
	}
	return nil
}

// Close releases the tensor's reference to its buffer. Closing twice is not
// an error.
func (t *Tensor) Close() error {
	if t == nil || !t.closed.CompareAndSwap(false, true) {
		return nil
	}
	return t.st.release()
}

// DType is the element type (Float32 for a nil tensor).
func (t *Tensor) DType() DType {
	if t == nil {
		return Float32
	}
	return t.dtype
}

// Shape is a copy of the sizes of the dimensions (nil for a nil tensor; empty
// for a scalar, a tensor of rank 0 with one element).
func (t *Tensor) Shape() []int {
	if t == nil {
		return nil
	}
	return append([]int{}, t.shape...)
}

// Strides is a copy of the strides, in elements (0 along a broadcast
// dimension).
func (t *Tensor) Strides() []int {
	if t == nil {
		return nil
	}
	return append([]int{}, t.strides...)
}

// Offset is the position of the first element in the buffer, in elements.
func (t *Tensor) Offset() int {
	if t == nil {
		return 0
	}
	return t.offset
}

// Rank is the number of dimensions.
func (t *Tensor) Rank() int {
	if t == nil {
		return 0
	}
	return len(t.shape)
}

// Len is the number of elements (the product of the shape; 0 for a nil
// tensor).
func (t *Tensor) Len() int {
	if t == nil {
		return 0
	}
	return numel(t.shape)
}

// Dim is the size of dimension d (negative d counts from the end); an error
// for a dimension out of range.
func (t *Tensor) Dim(d int) (int, error) {
	if err := t.usable("dim"); err != nil {
		return 0, err
	}
	a, err := normAxis("dim", d, len(t.shape), t.shape)
	if err != nil {
		return 0, err
	}
	return t.shape[a], nil
}

// Device is the device holding the tensor (nil for a nil tensor).
func (t *Tensor) Device() *gpu.Device {
	if t == nil {
		return nil
	}
	return t.st.ds.dev
}

// Buffer is the device buffer under the tensor, shared with its views: for
// handing to kernels of one's own (with Offset and Strides). It stays the
// tensor's: do not close it.
func (t *Tensor) Buffer() *gpu.Buffer {
	if t == nil {
		return nil
	}
	return t.st.buf
}

// IsContiguous reports whether the elements lie row-major, without gaps,
// from Offset (dimensions of size 1 may have any stride).
func (t *Tensor) IsContiguous() bool {
	if t == nil {
		return false
	}
	return isContiguous(t.shape, t.strides)
}

// String describes the tensor: "tensor(float32 [2 3] on cpu:0)", with the
// strides and offset of a view that is not contiguous from 0.
func (t *Tensor) String() string {
	if t == nil {
		return "tensor(<nil>)"
	}
	s := fmt.Sprintf("tensor(%s %s on %s", t.dtype, shapeString(t.shape), t.st.ds.dev.Name())
	if !isContiguous(t.shape, t.strides) || t.offset != 0 {
		s += fmt.Sprintf(", strides %s, offset %d", shapeString(t.strides), t.offset)
	}
	if t.closed.Load() {
		s += ", closed"
	}
	return s + ")"
}

// numel is the product of shape (1 for rank 0).
func numel(shape []int) int {
	n := 1
	for _, s := range shape {
		n *= s
	}
	return n
}

// rowMajor is the contiguous strides of shape.
func rowMajor(shape []int) []int {
	st := make([]int, len(shape))
	rowMajorInto(st, shape)
	return st
}

// rowMajorInto writes the contiguous strides of shape to st (of shape's
// length).
func rowMajorInto(st, shape []int) {
	n := 1
	for i := len(shape) - 1; i >= 0; i-- {
		st[i] = n
		n *= max(shape[i], 1)
	}
}

func isContiguous(shape, strides []int) bool {
	want := 1
	for i := len(shape) - 1; i >= 0; i-- {
		if shape[i] == 1 {
			continue
		}
		if shape[i] == 0 {
			return true
		}
		if strides[i] != want {
			return false
		}
		want *= shape[i]
	}
	return true
}

// checkShape validates a shape for op: rank at most MaxRank, sizes not
// negative, and at most maxElements elements.
func checkShape(op string, shape []int) error {
	if len(shape) > MaxRank {
		return invalid(op, "shape %s has rank %d; at most %d dimensions are supported", shapeString(shape), len(shape), MaxRank)
	}
	n := uint64(1)
	for _, s := range shape {
		if s < 0 {
			return invalid(op, "shape %s has a negative size", shapeString(shape))
		}
		n *= uint64(s)
		if n > maxElements {
			return invalid(op, "shape %s has more than %d elements", shapeString(shape), uint64(maxElements))
		}
	}
	return nil
}

// normAxis normalises dimension d (negative counts from the end) of a tensor of
// rank r and shape shape, for op's errors.
func normAxis(op string, d, r int, shape []int) (int, error) {
	if d < -r || d >= r {
		return 0, invalid(op, "dimension %d out of range for shape %s (rank %d)", d, shapeString(shape), r)
	}
	if d < 0 {
		d += r
	}
	return d, nil
}
