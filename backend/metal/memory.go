//go:build darwin

package metal

import (
	"fmt"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/backend/metal/internal/objc"
	"github.com/anygpu/gpu/errors"
	"github.com/anygpu/gpu/internal/units"
)

// MTLResourceOptions: the storage mode sits in bits 4..7; CPU cache mode
// (default) and hazard tracking (default: tracked, which orders the work of
// one queue that touches the same buffer) stay 0.
const (
	resourceStorageShared  = 0 << 4
	resourceStoragePrivate = 2 << 4
)

// checkSize refuses what Metal cannot allocate before asking it.
func (d *device) checkSize(op string, size int64) error {
	if max := d.info.MaxBufferBytes; max > 0 && size > max {
		return &errors.Error{Backend: Name, Op: op, Category: errors.OutOfMemory,
			Msg:  fmt.Sprintf("larger than the device's largest buffer (maxBufferLength), %s", units.ByteSize(max)),
			Hint: "split the data over several buffers"}
	}
	if total := d.info.MemoryBytes; total > 0 && size > total {
		return &errors.Error{Backend: Name, Op: op, Category: errors.OutOfMemory,
			Msg:  fmt.Sprintf("larger than the device's recommended working set, %s", units.ByteSize(total)),
			Hint: "process the data in smaller batches"}
	}
	return nil
}

// newBuffer creates an MTLBuffer (+1) of size bytes with options, or returns
// an OutOfMemory error when Metal returns nil. The caller holds enter.
func (d *device) newBuffer(op string, size int64, options uintptr) (objc.ID, error) {
	p := objc.EnterPool()
	defer p.Exit()
	obj := objc.ID(d.obj.Send2(objc.SelNewBufferWithLength, uintptr(size), options))
	if obj == 0 {
		free, total := d.memInfo()
		return 0, &errors.Error{Backend: Name, Op: op, Category: errors.OutOfMemory, Retryable: true,
			Msg:  fmt.Sprintf("newBufferWithLength:options: returned nil (%s of the %s working set free)", units.ByteSize(free), units.ByteSize(total)),
			Hint: "free buffers, trim the pools, or process the data in smaller batches"}
	}
	return obj, nil
}

// alloc creates and registers a buffer of size bytes: private (GPU-only)
// or shared, whose contents mem views.
func (d *device) alloc(op string, size int64, private bool) (*buffer, error) {
	if err := d.enter(); err != nil {
		return nil, err
	}
	defer d.leave()
	if err := d.checkSize(op, size); err != nil {
		return nil, err
	}
	options := uintptr(resourceStorageShared)
	if private {
		options = resourceStoragePrivate
	}
	obj, err := d.newBuffer(op, size, options)
	if err != nil {
		return nil, err
	}
	b := &buffer{dev: d, obj: obj, size: size, private: private}
	if !private {
		b.mem = objc.Bytes(obj.Send(objc.SelContents), size)
	}
	d.adopt(b)
	return b, nil
}

// Alloc creates an MTLBuffer of the device's storage mode.
func (d *device) Alloc(size int64) (backend.Buffer, error) {
	return d.alloc("alloc "+units.ByteSize(size), size, d.storage == StoragePrivate)
}

// AllocHost allocates a shared MTLBuffer: host memory the GPU reads and
// writes directly, so copies between it and device buffers are blits.
func (d *device) AllocHost(size int64) (backend.HostBuffer, error) {
	b, err := d.alloc("alloc host "+units.ByteSize(size), size, false)
	if err != nil {
		return nil, err
	}
	return &hostBuffer{b}, nil
}

// buffer is an MTLBuffer of a device.
//
// Owns: obj (+1), released by destroy. mem views the contents of a shared
// buffer; it dies with obj. Work already committed that uses the buffer
// holds its own reference (ownership rule 5 in doc.go).
type buffer struct {
	dev     *device
	size    int64
	private bool
	obj     objc.ID
	mem     []byte
}

var (
	_ backend.Buffer       = (*buffer)(nil)
	_ backend.NativeHandle = (*buffer)(nil)
)

// Size is the size asked for.
func (b *buffer) Size() int64 { return b.size }

// NativeHandle is the id<MTLBuffer>.
func (b *buffer) NativeHandle() uintptr { return uintptr(b.obj) }

func (b *buffer) destroy() {
	b.obj.Release()
	b.obj, b.mem = 0, nil
}

// Close releases the MTLBuffer. Work already committed that uses it keeps it
// alive until that work completes.
func (b *buffer) Close() error { return b.dev.closeChild(b) }

// hostBuffer is a shared MTLBuffer handed out as host memory.
type hostBuffer struct{ *buffer }

var _ backend.HostBuffer = (*hostBuffer)(nil)

// Bytes is the buffer's memory, nil after Close.
func (h *hostBuffer) Bytes() []byte { return h.mem }

// asBuffer returns the Metal buffer behind a device buffer or a host
// buffer, or nil for another backend's.
func asBuffer(b any) *buffer {
	switch v := b.(type) {
	case *buffer:
		return v
	case *hostBuffer:
		return v.buffer
	}
	return nil
}
