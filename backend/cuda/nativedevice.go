package cuda

import "github.com/anygpu/gpu/backend"

var _ backend.NativeDeviceProvider = (*device)(nil)

// NativeDevice is the CUdevice and the primary CUcontext the device holds a
// reference to (the context RunNative makes current).
func (d *device) NativeDevice() backend.NativeDevice {
	return backend.NativeDevice{Device: uintptr(d.dev), Context: uintptr(d.ctx)}
}
