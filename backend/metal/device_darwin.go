//go:build darwin

package metal

import (
	"context"
	"fmt"
	"github.com/anygpu/gpu/internal/units"
	"os"
	"sync"

	"github.com/ebitengine/purego"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/errors"
)

// MTLResourceOptions: the storage mode sits in bits 4..7; CPU cache mode
// (default) and hazard tracking (default: tracked, which orders the work of
// one queue that touches the same buffer) stay 0.
const (
	resourceStorageShared  = 0 << 4
	resourceStoragePrivate = 2 << 4
)

// queueDepth is the most uncompleted command buffers a stream's queue holds
// before commandBuffer blocks (back-pressure, as any GPU queue has); Metal's
// default is 64.
const queueDepth = 256

// found is one device of an enumeration: an owned (+1) MTLDevice and what was
// read from it.
type found struct {
	obj id
	raw rawDevice
}

// enumerate lists the devices in ordinal order. The caller owns every obj
// and releases those it does not keep. Call inside a pool.
func enumerate() []found {
	def, _, _ := purego.SyscallN(rt.createSystemDefaultDevice) // +1, or 0 (no GPU, or no window server)
	var list []found
	if def != 0 {
		list = append(list, found{obj: id(def), raw: readDevice(id(def), true)})
	}
	if rt.copyAllDevices != 0 {
		arr, _, _ := purego.SyscallN(rt.copyAllDevices) // NSArray, +1
		n := int(send(id(arr), selCount))
		for i := 0; i < n; i++ {
			obj := id(send1(id(arr), selObjectAtIndex, uintptr(i))) // +0, owned by the array
			if obj == 0 || obj == id(def) {
				continue
			}
			list = append(list, found{obj: retain(obj), raw: readDevice(obj, false)})
		}
		release(id(arr))
	}
	raws := make([]rawDevice, len(list))
	for i, f := range list {
		raws[i] = f.raw
	}
	order := deviceOrder(raws)
	out := make([]found, 0, len(order))
	kept := make([]bool, len(list))
	for _, i := range order {
		out = append(out, list[i])
		kept[i] = true
	}
	for i, f := range list { // duplicates deviceOrder dropped (the default, listed twice)
		if !kept[i] {
			release(f.obj)
		}
	}
	return out
}

// readDevice reads a device's properties. Call inside a pool.
func readDevice(obj id, isDefault bool) rawDevice {
	r := rawDevice{
		Name:                 goString(id(send(obj, selName))),
		RegistryID:           uint64(send(obj, selRegistryID)),
		IsDefault:            isDefault,
		WorkingSet:           uint64(send(obj, selRecommendedMaxWorkingSetSize)),
		CurrentAllocated:     uint64(send(obj, selCurrentAllocatedSize)),
		UnifiedMemory:        boolOf(send(obj, selHasUnifiedMemory)),
		MaxThreadgroupMemory: uint64(send(obj, selMaxThreadgroupMemoryLength)),
		MaxBufferLength:      uint64(send(obj, selMaxBufferLength)),
		LowPower:             boolOf(send(obj, selIsLowPower)),
		Headless:             boolOf(send(obj, selIsHeadless)),
		Removable:            boolOf(send(obj, selIsRemovable)),
		Location:             uint64(send(obj, selLocation)),
		MaxTransferRate:      uint64(send(obj, selMaxTransferRate)),
	}
	tg := rt.sendSize(obj, selMaxThreadsPerTG)
	r.MaxThreadsPerThreadgroup = [3]uint64{tg.Width, tg.Height, tg.Depth}
	if responds(obj, selArchitecture) { // macOS 14+
		r.Architecture = goString(id(send(id(send(obj, selArchitecture)), selName)))
	}
	for _, f := range knownFamilies {
		if boolOf(send1(obj, selSupportsFamily, uintptr(f))) {
			r.Families = append(r.Families, f)
		}
	}
	r.CoreCount = gpuCoreCount(r.RegistryID)
	return r
}

func probe(ctx context.Context) ([]backend.DeviceInfo, error) {
	if err := loadRuntime(); err != nil {
		return nil, errors.Wrap(err, Name, "probe")
	}
	p := enterPool()
	defer p.exit()
	devs := enumerate()
	infos := make([]backend.DeviceInfo, 0, len(devs))
	for i, f := range devs {
		storage, err := resolveStorage(StorageAuto, os.Getenv(EnvStorage), f.raw.UnifiedMemory)
		if err != nil {
			storage, _ = resolveStorage(StorageAuto, "", f.raw.UnifiedMemory)
		}
		infos = append(infos, deviceInfo(f.raw, i, storage))
		release(f.obj)
	}
	return infos, nil
}

func open(_ context.Context, ordinal int, field Storage, env string) (backend.Device, error) {
	op := fmt.Sprintf("open device %d", ordinal)
	if err := loadRuntime(); err != nil {
		return nil, errors.Wrap(err, Name, op)
	}
	p := enterPool()
	defer p.exit()
	devs := enumerate()
	var keep found
	for i, f := range devs {
		if i == ordinal {
			keep = f
		} else {
			release(f.obj)
		}
	}
	if keep.obj == 0 {
		return nil, errorf(errors.InvalidArgument, op, "pick a device from `gpu info` (ANYGPU_DEVICE)",
			"device %d does not exist: Metal has %d device%s", ordinal, len(devs), plural(len(devs)))
	}
	storage, err := resolveStorage(field, env, keep.raw.UnifiedMemory)
	if err != nil {
		release(keep.obj)
		return nil, err
	}
	d := &device{
		obj:      keep.obj,
		info:     deviceInfo(keep.raw, ordinal, storage),
		storage:  storage,
		children: map[child]struct{}{},
	}
	d.options = resourceStorageShared
	if storage == StoragePrivate {
		d.options = resourceStoragePrivate
	}
	return d, nil
}

// child is an object of a device that holds native objects (rule 4 of
// objc_darwin.go): destroy releases them, once, and is idempotent.
type child interface{ destroy() }

// device is one opened MTLDevice.
//
// Owns: obj (the MTLDevice, +1), released by Close after every child.
//
// Locks, always taken in this order: life (read-held by every operation
// that uses native objects, write-held by Close, so nothing is released
// under a running operation), then a buffer's mu, then a module's mu, then
// a stream's mu; mu guards the registry only and is never held while
// taking another lock.
type device struct {
	obj     id
	info    backend.DeviceInfo
	storage Storage
	options uintptr // MTLResourceOptions of device buffers

	life   sync.RWMutex
	closed bool // guarded by life

	mu       sync.Mutex
	children map[child]struct{}
	internal *module // the internal kernels (internalMSL), compiled on first use
	util     *stream // a stream for reads the device does for another (CopyPeer)
}

var (
	_ backend.Device       = (*device)(nil)
	_ backend.MemInfoer    = (*device)(nil)
	_ backend.NativeHandle = (*device)(nil)
)

var errDeviceClosed = errorf(errors.Closed, "device", "do not use a device after Close", "device is closed")

// Info is what Probe reported for the device, with its storage mode.
func (d *device) Info() backend.DeviceInfo { return d.info }

// NativeHandle is the id<MTLDevice>.
func (d *device) NativeHandle() uintptr { return uintptr(d.obj) }

// enter read-locks the device for an operation, or reports it closed; the
// caller defers leave.
func (d *device) enter() error {
	d.life.RLock()
	if d.closed {
		d.life.RUnlock()
		return errDeviceClosed
	}
	return nil
}

func (d *device) leave() { d.life.RUnlock() }

// adopt registers c with the device. The caller holds enter, so the device
// is open.
func (d *device) adopt(c child) {
	d.mu.Lock()
	d.children[c] = struct{}{}
	d.mu.Unlock()
}

// forget unregisters c after its own Close destroyed it.
func (d *device) forget(c child) {
	d.mu.Lock()
	delete(d.children, c)
	d.mu.Unlock()
}

// MemInfo reports the working set Metal recommends for the process and how
// much of it is not yet allocated.
func (d *device) MemInfo() (free, total int64, err error) {
	if err := d.enter(); err != nil {
		return 0, 0, err
	}
	defer d.leave()
	return d.memInfo()
}

// memInfo is MemInfo for a caller that holds enter.
func (d *device) memInfo() (free, total int64, err error) {
	ws := uint64(send(d.obj, selRecommendedMaxWorkingSetSize))
	alloc := uint64(send(d.obj, selCurrentAllocatedSize))
	free, total = memInfo(ws, alloc)
	return free, total, nil
}

// checkSize refuses what Metal cannot allocate before asking it.
func (d *device) checkSize(op string, size int64) error {
	if size <= 0 {
		return errorf(errors.InvalidArgument, op, "allocate at least one byte", "size must be positive, got %d", size)
	}
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
func (d *device) newBuffer(op string, size int64, options uintptr) (id, error) {
	p := enterPool()
	defer p.exit()
	obj := id(send2(d.obj, selNewBufferWithLength, uintptr(size), options))
	if obj == 0 {
		free, total, _ := d.memInfo()
		return 0, &errors.Error{Backend: Name, Op: op, Category: errors.OutOfMemory, Retryable: true,
			Msg:  fmt.Sprintf("newBufferWithLength:options: returned nil (%s of the %s working set free)", units.ByteSize(free), units.ByteSize(total)),
			Hint: "free buffers, trim the pools, or process the data in smaller batches"}
	}
	return obj, nil
}

// Alloc creates an MTLBuffer of the device's storage mode.
func (d *device) Alloc(size int64) (backend.Buffer, error) {
	op := "alloc " + units.ByteSize(size)
	if err := d.enter(); err != nil {
		return nil, err
	}
	defer d.leave()
	if err := d.checkSize(op, size); err != nil {
		return nil, err
	}
	obj, err := d.newBuffer(op, size, d.options)
	if err != nil {
		return nil, err
	}
	b := &buffer{dev: d, obj: obj, size: size, private: d.storage == StoragePrivate}
	if !b.private {
		b.mem = bytesAt(send(obj, selContents), size)
	}
	d.adopt(b)
	return b, nil
}

// AllocHost allocates a shared MTLBuffer: host memory the GPU reads and
// writes directly, so copies between it and device buffers are blits.
func (d *device) AllocHost(size int64) (backend.HostBuffer, error) {
	op := "alloc host " + units.ByteSize(size)
	if err := d.enter(); err != nil {
		return nil, err
	}
	defer d.leave()
	if err := d.checkSize(op, size); err != nil {
		return nil, err
	}
	obj, err := d.newBuffer(op, size, resourceStorageShared)
	if err != nil {
		return nil, err
	}
	h := &hostBuffer{buffer{dev: d, obj: obj, size: size}}
	h.mem = bytesAt(send(obj, selContents), size)
	d.adopt(h)
	return h, nil
}

// NewStream creates a stream: a command queue of its own.
func (d *device) NewStream() (backend.Stream, error) {
	if err := d.enter(); err != nil {
		return nil, err
	}
	defer d.leave()
	s, err := newStream(d)
	if err != nil {
		return nil, err
	}
	d.adopt(s)
	return s, nil
}

// utilStream returns the device's own stream, for reads done on another
// device's behalf (CopyPeer); it lives until the device closes. The caller
// holds enter.
func (d *device) utilStream() (*stream, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.util == nil {
		s, err := newStream(d)
		if err != nil {
			return nil, err
		}
		d.util = s
	}
	return d.util, nil
}

// streams returns the device's open streams (the utility stream included).
func (d *device) streams() []*stream {
	d.mu.Lock()
	defer d.mu.Unlock()
	var out []*stream
	for c := range d.children {
		if s, ok := c.(*stream); ok {
			out = append(out, s)
		}
	}
	if d.util != nil {
		out = append(out, d.util)
	}
	return out
}

// Close releases everything the device still holds: the streams first (each
// waits for its queued work), then the other children, the internal kernels,
// and the MTLDevice itself. It waits for operations in progress (life).
func (d *device) Close() error {
	d.life.Lock()
	defer d.life.Unlock()
	if d.closed {
		return nil
	}
	d.closed = true
	d.mu.Lock()
	var streams, others []child
	for c := range d.children {
		if _, ok := c.(*stream); ok {
			streams = append(streams, c)
		} else {
			others = append(others, c)
		}
	}
	d.children = map[child]struct{}{}
	util, internal := d.util, d.internal
	d.util, d.internal = nil, nil
	d.mu.Unlock()

	for _, c := range streams {
		c.destroy()
	}
	if util != nil {
		util.destroy()
	}
	for _, c := range others {
		c.destroy()
	}
	if internal != nil {
		internal.destroy()
	}
	release(d.obj) // d.obj keeps its value: it is read without locks, and nothing uses it once closed is set
	return nil
}

// buffer is an MTLBuffer of a device.
//
// Owns: obj (+1), released by destroy. mem views the contents of a shared
// buffer; it dies with obj.
//
// mu guards the release against use: every operation that encodes the
// buffer into a command buffer holds mu.RLock until the command buffer holds
// its own reference (rule 5), and destroy takes mu.Lock.
type buffer struct {
	dev     *device
	size    int64
	private bool

	mu       sync.RWMutex
	obj      id
	mem      []byte
	released bool
}

var (
	_ backend.Buffer       = (*buffer)(nil)
	_ backend.NativeHandle = (*buffer)(nil)
)

// Size is the size asked for.
func (b *buffer) Size() int64 { return b.size }

// NativeHandle is the id<MTLBuffer> (0 after Close).
func (b *buffer) NativeHandle() uintptr {
	b.mu.RLock()
	defer b.mu.RUnlock()
	return uintptr(b.obj)
}

func (b *buffer) destroy() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.released {
		return
	}
	b.released = true
	release(b.obj)
	b.obj, b.mem = 0, nil
}

// Close releases the MTLBuffer. Work already committed that uses it keeps it
// alive until that work completes.
func (b *buffer) Close() error {
	b.destroy()
	b.dev.forget(b)
	return nil
}

var errBufferClosed = errorf(errors.Closed, "buffer", "do not use a buffer after Close", "buffer is closed")

// use read-locks b for an operation; the caller calls b.mu.RUnlock when the
// command buffer holds its own reference (or the CPU copy is done).
func (b *buffer) use() error {
	b.mu.RLock()
	if b.released {
		b.mu.RUnlock()
		return errBufferClosed
	}
	return nil
}

// hostBuffer is a shared MTLBuffer handed out as host memory.
type hostBuffer struct{ buffer }

var _ backend.HostBuffer = (*hostBuffer)(nil)

// Bytes is the buffer's memory, nil after Close.
func (h *hostBuffer) Bytes() []byte {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return h.mem
}

// Close releases the MTLBuffer; Bytes is nil afterwards.
func (h *hostBuffer) Close() error {
	h.destroy()
	h.dev.forget(h)
	return nil
}
