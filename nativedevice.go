package gpu

import (
	"slices"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/errors"
)

// NativeDevice is a device's native handles (VkInstance, VkPhysicalDevice,
// VkDevice and queue families on Vulkan; CUdevice and CUcontext on CUDA;
// id<MTLDevice> on Metal), from Device.NativeDevice.
type NativeDevice = backend.NativeDevice

// NativeDevice returns the device's native handles, for native libraries
// that create objects on the same device or share its context: on Vulkan,
// a VkBuffer another library creates on the VkDevice it returns can be
// wrapped with Borrow. The handles stay the device's: use them only while
// the device is open, and never destroy them. Backends without such handles
// (OpenGL, WebGPU, CPU) return an error of category NotSupported.
func (d *Device) NativeDevice() (NativeDevice, error) {
	const op = "native device"
	if err := d.usable(op); err != nil {
		return NativeDevice{}, err
	}
	p, ok := d.impl.(backend.NativeDeviceProvider)
	if !ok {
		e := errors.E(errors.NotSupported, d.backend, op, "the %s backend exposes no native device handles", d.backend)
		e.Hint = "native device handles exist on the CUDA, Vulkan and Metal backends"
		return NativeDevice{}, d.record(e)
	}
	nd := p.NativeDevice()
	nd.QueueFamilies = slices.Clone(nd.QueueFamilies)
	return nd, nil
}
