//go:build darwin

package metal

import (
	"fmt"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/backend/metal/internal/objc"
	"github.com/anygpu/gpu/errors"
)

// storageModeShared is MTLStorageModeShared: the CPU and the GPU address the
// same memory. Every other mode (managed, private) is used through blits.
const storageModeShared = 0

var (
	_ backend.Borrower             = (*device)(nil)
	_ backend.NativeDeviceProvider = (*device)(nil)
)

// NativeDevice is the id<MTLDevice>.
func (d *device) NativeDevice() backend.NativeDevice {
	return backend.NativeDevice{Device: uintptr(d.obj)}
}

// Borrow wraps an id<MTLBuffer> another library made on this MTLDevice as a
// device buffer of its first size bytes. It checks that the object is a
// buffer (responds to contents and length), of this device, at least size
// bytes long, and retains it while borrowed: Close releases that reference
// and frees nothing. A shared buffer is read and written in place; any
// other storage mode through blits (a managed buffer's CPU copy is the
// owner's to synchronize).
func (d *device) Borrow(handle uintptr, size int64) (backend.Buffer, error) {
	op := fmt.Sprintf("borrow MTLBuffer %#x", handle)
	if err := d.enter(); err != nil {
		return nil, err
	}
	defer d.leave()
	p := objc.EnterPool()
	defer p.Exit()
	obj := objc.ID(handle)
	if !obj.Responds(objc.SelContents) || !obj.Responds(objc.SelLength) || !obj.Responds(objc.SelDevice) {
		return nil, errorf(errors.InvalidArgument, op, "pass an id<MTLBuffer> (Buffer.NativeHandle of another library's buffer)",
			"the object is not an MTLBuffer")
	}
	if owner := objc.ID(obj.Send(objc.SelDevice)); owner != d.obj {
		return nil, errorf(errors.InvalidArgument, op, "create the buffer on the device's MTLDevice (Device.NativeDevice)",
			"the buffer belongs to another MTLDevice (%#x, not %#x)", uintptr(owner), uintptr(d.obj))
	}
	if length := uint64(obj.Send(objc.SelLength)); uint64(size) > length {
		return nil, errorf(errors.InvalidArgument, op, "pass at most the buffer's length",
			"size %d is larger than the buffer (%d bytes)", size, length)
	}
	b := &buffer{dev: d, obj: obj.Retain(), size: size, private: obj.Send(objc.SelStorageMode) != storageModeShared}
	if !b.private {
		b.mem = objc.Bytes(obj.Send(objc.SelContents), size)
	}
	d.adopt(b)
	return b, nil
}
