package gpu

import (
	"fmt"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/errors"
)

// Borrow wraps device memory that another library allocated as a Buffer,
// without copying: kernels, copies and transfers use it like any Buffer of
// the device. handle is, by backend:
//   - CUDA: a CUdeviceptr (from PyTorch, CuPy, cuBLAS or C code);
//   - Vulkan: a VkBuffer created on the device's VkDevice (NativeDevice),
//     with its memory bound, the usage STORAGE_BUFFER | TRANSFER_SRC |
//     TRANSFER_DST (vulkan.BorrowUsage) and, where NativeDevice lists more
//     than one queue family, VK_SHARING_MODE_CONCURRENT over them; the
//     Buffer is its first size bytes;
//   - Metal: an id<MTLBuffer> of the device's MTLDevice, retained while
//     borrowed.
//
// The memory stays the other library's: Close forgets it (Metal: releases
// the reference Borrow took) and frees nothing, and it is not counted in
// Stats or the pools. The caller keeps the memory allocated until the
// Buffer is closed and the work that uses it is done. The backend checks
// what its API can tell (CUDA: that the address is device memory of this
// GPU with at least size bytes from it; Vulkan: that the VkBuffer's memory
// requirement covers size; Metal: the buffer's device and length); a
// handle of another kind is undefined behaviour. A backend that cannot
// borrow memory (OpenGL, WebGPU, CPU) returns NotSupported.
func (d *Device) Borrow(handle uintptr, size int64) (*Buffer, error) {
	op := fmt.Sprintf("borrow %#x", handle)
	if err := d.usable(op); err != nil {
		return nil, err
	}
	if handle == 0 || size <= 0 {
		return nil, d.errorf(errors.InvalidArgument, op, "handle %#x, size %d: want a non-zero handle and a positive size", handle, size)
	}
	b, ok := d.impl.(backend.Borrower)
	if !ok {
		e := errors.E(errors.NotSupported, d.backend, op, "the %s backend cannot borrow memory it did not allocate", d.backend)
		e.Hint = "copy the data into a Buffer from Alloc, or use the CUDA, Vulkan or Metal backend"
		return nil, d.record(e)
	}
	impl, err := b.Borrow(handle, size)
	if err != nil {
		return nil, d.wrap(err, op)
	}
	return &Buffer{dev: d, impl: impl, size: size, borrowed: true}, nil
}

// Borrowed reports whether the buffer wraps memory another library owns
// (Device.Borrow): its Close frees nothing.
func (b *Buffer) Borrowed() bool { return b != nil && b.borrowed }
