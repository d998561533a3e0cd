//go:build (darwin || freebsd || linux || netbsd || windows) && (amd64 || arm64)

package vulkan

import (
	"fmt"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/backend/vulkan/internal/vk"
	"github.com/anygpu/gpu/errors"
)

// BorrowUsage is the VkBufferUsageFlags a VkBuffer needs for Borrow:
// STORAGE_BUFFER (kernels bind it, and device-to-device copies may run as a
// kernel), TRANSFER_SRC and TRANSFER_DST (reads, writes, fills and copies).
// Vulkan cannot report a buffer's usage, so Borrow cannot check it: a
// missing flag is undefined behaviour the validation layer reports. A kernel
// whose SPIR-V binds the buffer as a uniform block needs UNIFORM_BUFFER too.
const BorrowUsage = vk.BufferUsageStorageBufferBit | vk.BufferUsageTransferSrcBit | vk.BufferUsageTransferDstBit

var (
	_ backend.Borrower             = (*device)(nil)
	_ backend.NativeDeviceProvider = (*device)(nil)
)

// NativeDevice is the VkInstance, VkPhysicalDevice and VkDevice, the
// version they may be used at, and the queue families of the streams.
func (d *device) NativeDevice() backend.NativeDevice {
	return backend.NativeDevice{
		Instance:       d.in.vki.Handle,
		PhysicalDevice: d.pd.handle,
		Device:         d.vd.Handle,
		APIVersion:     d.pd.apiVersion,
		QueueFamily:    d.compute[0].family,
		QueueFamilies:  d.families,
	}
}

// Borrow wraps a VkBuffer another library created on this VkDevice, with
// its memory bound, as a device buffer of size bytes (from offset 0 of the
// VkBuffer). It checks what Vulkan can tell: that the driver reports memory
// requirements for the handle and that size is within them. Reads and
// writes always go through staging (the memory may not be host-visible),
// and Close destroys neither the VkBuffer nor its memory.
func (d *device) Borrow(handle uintptr, size int64) (backend.Buffer, error) {
	op := fmt.Sprintf("borrow VkBuffer %#x", handle)
	d.mu.RLock()
	defer d.mu.RUnlock()
	if err := d.usable(op); err != nil {
		return nil, err
	}
	var req vk.MemoryRequirements
	d.vd.BufferMemoryRequirements(uint64(handle), &req)
	if req.Size == 0 {
		return nil, &errors.Error{Backend: Name, Op: op, Category: errors.InvalidArgument,
			Msg:  "the driver reports no memory requirements for it",
			Hint: "pass a VkBuffer created on the device's VkDevice (Device.NativeDevice), with its memory bound"}
	}
	if uint64(size) > req.Size {
		return nil, &errors.Error{Backend: Name, Op: op, Category: errors.InvalidArgument,
			Msg:  fmt.Sprintf("size %d is larger than the VkBuffer (its memory requirement is %d bytes)", size, req.Size),
			Hint: "pass at most the size the VkBuffer was created with"}
	}
	b := &buffer{d: d, vb: &vkBuffer{h: uint64(handle), size: uint64(size), borrowed: true}, size: size}
	d.objMu.Lock()
	d.buffers[b] = struct{}{}
	d.objMu.Unlock()
	return b, nil
}
