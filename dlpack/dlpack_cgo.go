//go:build cgo

package dlpack

/*
#include "dlpack.h"

extern void anygpuDLPackDelete(DLManagedTensor *);
static void anygpu_dlpack_deleter(DLManagedTensor *t) { anygpuDLPackDelete(t); }
// anygpu_dlpack_set stores what Go holds as integers: the device address
// and the cgo.Handle of the export's state; and the deleter.
static void anygpu_dlpack_set(DLManagedTensor *t, uintptr_t data, uintptr_t ctx) {
	t->dl_tensor.data = (void *)data;
	t->manager_ctx = (void *)ctx;
	t->deleter = anygpu_dlpack_deleter;
}
static void anygpu_dlpack_call_deleter(DLManagedTensor *t) { if (t->deleter) t->deleter(t); }
*/
import "C"

import (
	"fmt"
	"runtime/cgo"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/errors"
)

// The layout this package relies on (doc.go); checked at compile time.
var (
	_ [48]byte = [unsafe.Sizeof(C.DLTensor{})]byte{}
	_ [64]byte = [unsafe.Sizeof(C.DLManagedTensor{})]byte{}
)

// exportState is what an exported tensor keeps alive: its Buffer.
type exportState struct {
	buf     *gpu.Buffer
	owned   bool // the deleter closes buf
	deleted atomic.Bool
}

// Exported is a Buffer handed out as a DLManagedTensor.
type Exported struct {
	p  *C.DLManagedTensor
	st *exportState
}

// Pointer is the DLManagedTensor*, for C code or a PyCapsule named
// "dltensor". The consumer owns it: it calls the tensor's deleter once when
// done, which frees it; after that the pointer is invalid.
func (e *Exported) Pointer() unsafe.Pointer {
	if e == nil {
		return nil
	}
	return unsafe.Pointer(e.p)
}

// Deleted reports whether the consumer has called the tensor's deleter:
// until then the Buffer must stay open, and no kernel may write it while
// the consumer reads it.
func (e *Exported) Deleted() bool { return e != nil && e.st != nil && e.st.deleted.Load() }

// Export describes b as a compact row-major tensor of dtype and shape, for
// another library to use in place. Only CUDA buffers can be exported (their
// handle is a device pointer: kDLCUDA, device_id the GPU's ordinal). The
// tensor must fit in b. The Buffer must stay open until the consumer calls
// the deleter (Exported.Deleted).
func Export(b *gpu.Buffer, dtype DataType, shape []int64) (*Exported, error) {
	return export(b, dtype, shape, false)
}

// ExportOwned is Export handing b over: the consumer's deleter closes it
// (a result buffer returned to PyTorch, say). The caller must not close b.
func ExportOwned(b *gpu.Buffer, dtype DataType, shape []int64) (*Exported, error) {
	return export(b, dtype, shape, true)
}

func export(b *gpu.Buffer, dtype DataType, shape []int64, owned bool) (*Exported, error) {
	const op = "export"
	handle, err := b.NativeHandle()
	if err != nil {
		return nil, errors.Wrap(err, "dlpack", op)
	}
	dev := b.Device()
	if dev.Backend() != "cuda" {
		return nil, notSupported(op, dev.Backend())
	}
	n, err := elements(shape)
	if err != nil {
		return nil, invalid(op, "%v", err)
	}
	size := dtype.Bytes()
	if size == 0 {
		return nil, invalid(op, "element type %s is not a whole number of bytes", dtype)
	}
	if n*size > b.Size() {
		return nil, invalid(op, "shape %v of %s is %d bytes, the buffer %d", shape, dtype, n*size, b.Size())
	}
	t := (*C.DLManagedTensor)(C.calloc(1, C.size_t(unsafe.Sizeof(C.DLManagedTensor{}))))
	if t == nil {
		return nil, &errors.Error{Backend: "dlpack", Op: op, Category: errors.OutOfMemory, Msg: "calloc failed", Hint: "free host memory"}
	}
	if len(shape) > 0 {
		t.dl_tensor.shape = (*C.int64_t)(C.calloc(C.size_t(len(shape)), 8))
		if t.dl_tensor.shape == nil {
			C.free(unsafe.Pointer(t))
			return nil, &errors.Error{Backend: "dlpack", Op: op, Category: errors.OutOfMemory, Msg: "calloc failed", Hint: "free host memory"}
		}
		copy(unsafe.Slice((*int64)(unsafe.Pointer(t.dl_tensor.shape)), len(shape)), shape)
	}
	t.dl_tensor.device = C.DLDevice{device_type: C.int32_t(CUDA), device_id: C.int32_t(dev.Info().Ordinal)}
	t.dl_tensor.ndim = C.int32_t(len(shape))
	t.dl_tensor.dtype = C.DLDataType{code: C.uint8_t(dtype.Code), bits: C.uint8_t(dtype.Bits), lanes: C.uint16_t(dtype.Lanes)}
	st := &exportState{buf: b, owned: owned}
	C.anygpu_dlpack_set(t, C.uintptr_t(handle), C.uintptr_t(cgo.NewHandle(st)))
	return &Exported{p: t, st: st}, nil
}

// Imported is a DLManagedTensor another library produced, as a borrowed
// Buffer of a device.
type Imported struct {
	Buffer *gpu.Buffer // the tensor's memory, from data + byte_offset (borrowed)
	Shape  []int64
	DType  DataType

	p    *C.DLManagedTensor
	once sync.Once
}

// Import wraps the DLManagedTensor at p, which dev's GPU holds (kDLCUDA or
// kDLCUDAManaged, device_id dev's ordinal, compact strides), as a borrowed
// Buffer, without copying. Close releases it: it closes the Buffer and calls
// the producer's deleter. On error the tensor is left to the caller (its
// deleter is not called).
func Import(dev *gpu.Device, p unsafe.Pointer) (*Imported, error) {
	const op = "import"
	if p == nil {
		return nil, invalid(op, "nil DLManagedTensor")
	}
	if dev.Backend() != "cuda" {
		return nil, notSupported(op, dev.Backend())
	}
	t := (*C.DLManagedTensor)(p)
	dt := &t.dl_tensor
	kind := DeviceType(dt.device.device_type)
	if kind != CUDA && kind != CUDAManaged {
		return nil, invalid(op, "the tensor is on device type %d, not CUDA memory (%d or %d)", kind, CUDA, CUDAManaged)
	}
	if id := int(dt.device.device_id); id != dev.Info().Ordinal {
		return nil, invalid(op, "the tensor is on GPU %d, the device is GPU %d", id, dev.Info().Ordinal)
	}
	ndim := int(dt.ndim)
	if ndim < 0 || (ndim > 0 && dt.shape == nil) {
		return nil, invalid(op, "ndim %d with shape %p", ndim, dt.shape)
	}
	shape := make([]int64, ndim)
	if ndim > 0 {
		copy(shape, unsafe.Slice((*int64)(unsafe.Pointer(dt.shape)), ndim))
	}
	var strides []int64
	if dt.strides != nil && ndim > 0 {
		strides = append(strides, unsafe.Slice((*int64)(unsafe.Pointer(dt.strides)), ndim)...)
	}
	if !compact(shape, strides) {
		return nil, invalid(op, "strides %v of shape %v are not compact row-major", strides, shape)
	}
	dtype := DataType{Code: TypeCode(dt.dtype.code), Bits: uint8(dt.dtype.bits), Lanes: uint16(dt.dtype.lanes)}
	n, err := elements(shape)
	if err != nil {
		return nil, invalid(op, "%v", err)
	}
	size := n * dtype.Bytes()
	if size <= 0 {
		return nil, invalid(op, "an empty tensor, or element type %s of no whole bytes", dtype)
	}
	addr := uintptr(dt.data) + uintptr(dt.byte_offset)
	b, err := dev.Borrow(addr, size)
	if err != nil {
		return nil, errors.Wrap(err, "dlpack", op)
	}
	return &Imported{Buffer: b, Shape: shape, DType: dtype, p: t}, nil
}

// Close closes the borrowed Buffer and calls the producer's deleter, once.
// Work that uses the Buffer must be done (synchronize first).
func (in *Imported) Close() error {
	if in == nil || in.p == nil {
		return nil // nothing imported
	}
	var err error
	in.once.Do(func() {
		err = in.Buffer.Close()
		C.anygpu_dlpack_call_deleter(in.p)
	})
	return err
}

func invalid(op, format string, a ...any) error {
	e := errors.E(errors.InvalidArgument, "dlpack", op, format, a...)
	e.Hint = "pass a compact CUDA tensor of this device (torch: .contiguous(), on the same GPU)"
	return e
}

func notSupported(op, backend string) error {
	return &errors.Error{Backend: "dlpack", Op: op, Category: errors.NotSupported,
		Msg:  fmt.Sprintf("the %s backend's buffers cannot be exchanged through DLPack (only CUDA device memory can)", backend),
		Hint: "use the CUDA backend, or copy through the host"}
}
