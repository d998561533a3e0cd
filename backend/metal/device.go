//go:build darwin

package metal

import (
	"context"
	"fmt"
	"os"
	"sync"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/backend/metal/internal/objc"
	"github.com/anygpu/gpu/errors"
)

// queueDepth is the most uncompleted command buffers a stream's queue holds
// before commandBuffer blocks (back-pressure, as any GPU queue has); Metal's
// default is 64.
const queueDepth = 256

// loadRuntime opens the Objective-C runtime and the frameworks on first use
// (objc.Load remembers the outcome); a failure is Unavailable, with a hint.
func loadRuntime(op string) error {
	if err := objc.Load(); err != nil {
		return &errors.Error{Backend: Name, Op: op, Category: errors.Unavailable, Msg: err.Error(),
			Hint: "Metal needs macOS 12 or later on a Mac with a Metal GPU; check System Information > Graphics, and that the process may use the GPU"}
	}
	return nil
}

// found is one device of an enumeration: an owned (+1) MTLDevice and what was
// read from it.
type found struct {
	obj objc.ID
	raw rawDevice
}

// enumerate lists the devices in ordinal order. The caller owns every obj
// and releases those it does not keep. Call inside a pool.
func enumerate() []found {
	def := objc.CreateSystemDefaultDevice() // +1, or 0 (no GPU, or no window server)
	var list []found
	if def != 0 {
		list = append(list, found{obj: def, raw: readDevice(def, true)})
	}
	if arr := objc.CopyAllDevices(); arr != 0 { // NSArray, +1
		for _, obj := range objc.Objects(arr) { // +0, owned by the array
			if obj == 0 || obj == def {
				continue
			}
			list = append(list, found{obj: obj.Retain(), raw: readDevice(obj, false)})
		}
		arr.Release()
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
			f.obj.Release()
		}
	}
	return out
}

// listDevices loads the runtime and enumerates the devices: what was read
// from each, in ordinal order, and the MTLDevice of ordinal keep (+1, the
// caller's), or 0 when keep is -1 or no such device exists. Every other
// MTLDevice is released.
func listDevices(op string, keep int) ([]rawDevice, objc.ID, error) {
	if err := loadRuntime(op); err != nil {
		return nil, 0, err
	}
	p := objc.EnterPool()
	defer p.Exit()
	var kept objc.ID
	devs := enumerate()
	raws := make([]rawDevice, len(devs))
	for i, f := range devs {
		raws[i] = f.raw
		if i == keep {
			kept = f.obj
		} else {
			f.obj.Release()
		}
	}
	return raws, kept, nil
}

// readDevice reads a device's properties. Call inside a pool.
func readDevice(obj objc.ID, isDefault bool) rawDevice {
	r := rawDevice{
		Name:                 objc.GoString(objc.ID(obj.Send(objc.SelName))),
		RegistryID:           uint64(obj.Send(objc.SelRegistryID)),
		IsDefault:            isDefault,
		WorkingSet:           uint64(obj.Send(objc.SelRecommendedMaxWorkingSetSize)),
		CurrentAllocated:     uint64(obj.Send(objc.SelCurrentAllocatedSize)),
		UnifiedMemory:        objc.Bool(obj.Send(objc.SelHasUnifiedMemory)),
		MaxThreadgroupMemory: uint64(obj.Send(objc.SelMaxThreadgroupMemoryLength)),
		MaxBufferLength:      uint64(obj.Send(objc.SelMaxBufferLength)),
		LowPower:             objc.Bool(obj.Send(objc.SelIsLowPower)),
		Headless:             objc.Bool(obj.Send(objc.SelIsHeadless)),
		Removable:            objc.Bool(obj.Send(objc.SelIsRemovable)),
		Location:             uint64(obj.Send(objc.SelLocation)),
		MaxTransferRate:      uint64(obj.Send(objc.SelMaxTransferRate)),
	}
	tg := obj.SendSize(objc.SelMaxThreadsPerTG)
	r.MaxThreadsPerThreadgroup = [3]uint64{tg.Width, tg.Height, tg.Depth}
	if obj.Responds(objc.SelArchitecture) { // macOS 14+
		r.Architecture = objc.GoString(objc.ID(objc.ID(obj.Send(objc.SelArchitecture)).Send(objc.SelName)))
	}
	for _, f := range knownFamilies {
		if objc.Bool(obj.Send1(objc.SelSupportsFamily, uintptr(f))) {
			r.Families = append(r.Families, f)
		}
	}
	r.CoreCount = coreCount(r.RegistryID)
	return r
}

// coreCount is the GPU's core count: "gpu-core-count" of the IORegistry
// entry of the GPU's accelerator or a parent (Apple GPUs publish it), 0
// when IOKit, the entry or the property is missing. Call inside a pool.
func coreCount(registryID uint64) int {
	n, ok := objc.RegistryNumber(registryID, "gpu-core-count")
	if !ok || n <= 0 || n > 1<<20 {
		return 0
	}
	return int(n)
}

func probe(context.Context) ([]backend.DeviceInfo, error) {
	raws, _, err := listDevices("probe", -1)
	if err != nil {
		return nil, err
	}
	infos := make([]backend.DeviceInfo, 0, len(raws))
	for i, raw := range raws {
		storage, err := resolveStorage(StorageAuto, os.Getenv(EnvStorage), raw.UnifiedMemory)
		if err != nil {
			storage, _ = resolveStorage(StorageAuto, "", raw.UnifiedMemory)
		}
		infos = append(infos, deviceInfo(raw, i, storage))
	}
	return infos, nil
}

func open(_ context.Context, ordinal int, field Storage, env string) (backend.Device, error) {
	op := fmt.Sprintf("open device %d", ordinal)
	raws, obj, err := listDevices(op, ordinal)
	if err != nil {
		return nil, err
	}
	if obj == 0 {
		return nil, errorf(errors.InvalidArgument, op, "pick a device from `gpu info` (ANYGPU_DEVICE)",
			"device %d does not exist: Metal has %d device%s", ordinal, len(raws), plural(len(raws)))
	}
	raw := raws[ordinal]
	storage, err := resolveStorage(field, env, raw.UnifiedMemory)
	if err != nil {
		obj.Release()
		return nil, err
	}
	d := &device{
		obj:      obj,
		info:     deviceInfo(raw, ordinal, storage),
		storage:  storage,
		children: map[child]struct{}{},
	}
	d.options = resourceStorageShared
	if storage == StoragePrivate {
		d.options = resourceStoragePrivate
	}
	return d, nil
}

// child is an object of a device that holds native objects (ownership rule
// 4 in doc.go): destroy releases them.
type child interface{ destroy() }

// device is one opened MTLDevice.
//
// Owns: obj (the MTLDevice, +1), released by Close after every child.
//
// Locks, always taken in this order: life (read-held by every operation
// that uses native objects and by a child's Close, write-held by the
// device's Close, so nothing is released under a running operation and
// no child is released twice), then a stream's mu, then a module's mu (an
// operation looks up the internal kernels while it encodes); mu guards the
// registry only and is never held while taking another lock.
type device struct {
	obj     objc.ID
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

// enter read-locks the device for an operation, or reports it closed (a
// call that raced with the device's Close); the caller defers leave.
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

// closeChild is the Close of a child: it unregisters and destroys c, or
// does nothing once the device is closed (its Close destroyed c).
func (d *device) closeChild(c child) error {
	if d.enter() != nil {
		return nil
	}
	defer d.leave()
	d.mu.Lock()
	delete(d.children, c)
	d.mu.Unlock()
	c.destroy()
	return nil
}

// MemInfo reports the working set Metal recommends for the process and how
// much of it is not yet allocated.
func (d *device) MemInfo() (free, total int64, err error) {
	if err := d.enter(); err != nil {
		return 0, 0, err
	}
	defer d.leave()
	free, total = d.memInfo()
	return free, total, nil
}

// memInfo is MemInfo for a caller that holds enter.
func (d *device) memInfo() (free, total int64) {
	ws := uint64(d.obj.Send(objc.SelRecommendedMaxWorkingSetSize))
	alloc := uint64(d.obj.Send(objc.SelCurrentAllocatedSize))
	return memInfo(ws, alloc)
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
	if d.util != nil {
		streams = append(streams, d.util)
	}
	if d.internal != nil {
		others = append(others, d.internal)
	}
	d.children, d.util, d.internal = nil, nil, nil
	d.mu.Unlock()
	for _, c := range append(streams, others...) {
		c.destroy()
	}
	d.obj.Release() // d.obj keeps its value: it is read without locks, and nothing uses it once closed is set
	return nil
}
