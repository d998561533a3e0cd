package cuda

import (
	"fmt"
	"unsafe"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/backend/cuda/internal/cu"
	"github.com/anygpu/gpu/errors"
	"github.com/anygpu/gpu/internal/units"
)

// byteSize formats a byte count the way error messages show it ("1.0 GiB").
var byteSize = units.ByteSize

// MemInfo is cuMemGetInfo: the device's free and total memory.
func (d *device) MemInfo() (free, total int64, err error) {
	err = d.do("mem info", func(*cu.Frame) cu.Result {
		var r cu.Result
		free, total, r = d.lib.MemGetInfo()
		return r
	})
	return free, total, err
}

// Alloc is cuMemAlloc; the root package pools what it returns. A request
// larger than the whole device fails without asking the driver.
func (d *device) Alloc(size int64) (backend.Buffer, error) {
	if size > d.info.MemoryBytes {
		return nil, &errors.Error{Backend: Name, Op: "alloc " + byteSize(size), Category: errors.OutOfMemory,
			Code: int64(cu.ErrorOutOfMemory), Name: cu.ErrorOutOfMemory.String(),
			Msg:  fmt.Sprintf("out of memory: more than the device's %s", byteSize(d.info.MemoryBytes)),
			Hint: "split the data over smaller buffers or process it in batches"}
	}
	var p cu.DevicePtr
	err := d.do("alloc", func(*cu.Frame) cu.Result {
		var r cu.Result
		p, r = d.lib.MemAlloc(size)
		return r
	})
	if err != nil {
		return nil, errors.Wrap(err, Name, "alloc "+byteSize(size))
	}
	return track(d, d.buffers, &buffer{dev: d, ptr: p, size: size}), nil
}

// AllocHost is cuMemHostAlloc (portable pinned memory).
func (d *device) AllocHost(size int64) (backend.HostBuffer, error) {
	var p unsafe.Pointer
	err := d.do("alloc host", func(*cu.Frame) cu.Result {
		var r cu.Result
		p, r = d.lib.MemHostAlloc(size, cu.MemHostAllocPortable)
		return r
	})
	if err != nil {
		return nil, errors.Wrap(err, Name, "alloc host "+byteSize(size))
	}
	return track(d, d.hosts, &hostBuffer{dev: d, ptr: p, size: size}), nil
}

// buffer is device memory from cuMemAlloc, or borrowed (Borrow).
type buffer struct {
	dev      *device
	ptr      cu.DevicePtr
	size     int64
	borrowed bool // another library's: never freed here
}

var (
	_ backend.Buffer       = (*buffer)(nil)
	_ backend.NativeHandle = (*buffer)(nil)
)

// Size is the size in bytes.
func (b *buffer) Size() int64 { return b.size }

// NativeHandle is the CUdeviceptr.
func (b *buffer) NativeHandle() uintptr { return uintptr(b.ptr) }

// Close frees the memory (cuMemFree); a borrowed buffer's is left alone.
func (b *buffer) Close() error {
	if b.borrowed {
		return nil
	}
	d := b.dev
	return release(d, d.buffers, b, "free", func() cu.Result { return d.lib.MemFree(b.ptr) })
}

// hostBuffer is pinned host memory from cuMemHostAlloc.
type hostBuffer struct {
	dev  *device
	ptr  unsafe.Pointer
	size int64
}

var (
	_ backend.HostBuffer   = (*hostBuffer)(nil)
	_ backend.NativeHandle = (*hostBuffer)(nil)
)

// Bytes is the pinned memory.
func (h *hostBuffer) Bytes() []byte { return cu.HostBytes(h.ptr, h.size) }

// NativeHandle is the host address.
func (h *hostBuffer) NativeHandle() uintptr { return uintptr(h.ptr) }

// Close frees the memory (cuMemFreeHost).
func (h *hostBuffer) Close() error {
	d := h.dev
	return release(d, d.hosts, h, "free host", func() cu.Result { return d.lib.MemFreeHost(h.ptr) })
}

var _ backend.Borrower = (*device)(nil)

// Borrow wraps a CUdeviceptr another library allocated. It checks, where
// the driver has cuPointerGetAttribute, that the address is device (or
// managed) memory of this GPU and that size bytes from it lie within its
// allocation. The buffer is not tracked: neither its Close nor the
// device's frees the memory.
func (d *device) Borrow(handle uintptr, size int64) (backend.Buffer, error) {
	p := cu.DevicePtr(handle)
	op := fmt.Sprintf("borrow %#x", handle)
	var kind, ordinal int32
	var start, length uint64
	var r cu.Result
	if err := d.bound(op, func(*cu.Frame) {
		if kind, r = d.lib.PointerGetAttribute32(cu.PointerMemoryType, p); r != cu.Success {
			return
		}
		if ordinal, r = d.lib.PointerGetAttribute32(cu.PointerDeviceOrdinal, p); r != cu.Success {
			return
		}
		if start, r = d.lib.PointerGetAttribute64(cu.PointerRangeStart, p); r != cu.Success {
			return
		}
		length, r = d.lib.PointerGetAttribute64(cu.PointerRangeSize, p)
	}); err != nil {
		return nil, err
	}
	bad := func(format string, a ...any) error {
		e := errors.E(errors.InvalidArgument, Name, op, format, a...)
		e.Code, e.Name = int64(r), r.String()
		e.Hint = "pass a device pointer of this GPU (cuMemAlloc, torch.Tensor.data_ptr(), cupy.ndarray.data.ptr) and a size within its allocation"
		return e
	}
	switch {
	case r == cu.ErrorNotSupported && !d.lib.Has(cu.SymPointerGetAttribute):
		// An old driver: nothing to check with.
	case r != cu.Success:
		return nil, bad("the driver does not know the address as CUDA memory (%s)", r)
	case kind != cu.MemoryTypeDevice && kind != cu.MemoryTypeUnified:
		return nil, bad("the address is not device memory (CUmemorytype %d)", kind)
	case int(ordinal) != int(d.dev):
		return nil, bad("the address is memory of GPU %d, this device is GPU %d", ordinal, int(d.dev))
	case uint64(handle)+uint64(size) > start+length:
		return nil, bad("%s from the address run past its allocation (%s from %#x)", byteSize(size), byteSize(int64(length)), start)
	}
	return &buffer{dev: d, ptr: p, size: size, borrowed: true}, nil
}
