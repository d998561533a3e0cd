package cuda

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/backend/cuda/internal/cu"
	"github.com/anygpu/gpu/errors"
	"github.com/anygpu/gpu/internal/units"
)

// device is one opened CUDA device: a reference to its GPU's primary context.
type device struct {
	st   *driverState
	ord  *ordinalState
	lib  *cu.Lib
	dev  cu.Device
	ctx  cu.Context
	info backend.DeviceInfo
	arch string // "sm_90"

	closed atomic.Bool

	mu      sync.Mutex // guards the sets below
	buffers map[*buffer]struct{}
	hosts   map[*hostBuffer]struct{}
	streams map[*stream]struct{}
	modules map[*module]struct{}
	events  []cu.Event   // recorded-and-closed events, for reuse
	staging []*stagePair // free staging buffers for pageable transfers
	peers   map[cu.Context]bool

	// anchor is a small allocation held for the device's lifetime (0 if it
	// failed). The driver serves allocations under 2 MiB from 2 MiB pages
	// it maps on demand and unmaps when the last allocation in one is freed,
	// so in a context with nothing else allocated every cuMemAlloc+cuMemFree
	// of 1 MiB mapped and unmapped a page: 62 µs, against 3.9 µs with any
	// small allocation live (H200, driver 580.159).
	anchor cu.DevicePtr
}

// anchorBytes is the size of device.anchor.
const anchorBytes = 256

var (
	_ backend.Device    = (*device)(nil)
	_ backend.MemInfoer = (*device)(nil)
)

func openDevice(st *driverState, ordinal int) (*device, error) {
	info, err := st.info(ordinal)
	if err != nil {
		return nil, err
	}
	o := st.ordinals[ordinal]
	lib := st.lib
	o.openMu.Lock()
	defer o.openMu.Unlock()
	if o.sticky.Load() != 0 {
		return nil, lostErr(o, fmt.Sprintf("open device %d", ordinal))
	}
	ctx, r := lib.DevicePrimaryCtxRetain(o.dev)
	if r != cu.Success {
		return nil, r.Err(fmt.Sprintf("open device %d: retain its primary context", ordinal))
	}
	d := &device{
		st: st, ord: o, lib: lib, dev: o.dev, ctx: ctx, info: info,
		arch:    fmt.Sprintf("sm_%d%d", info.ComputeMajor, info.ComputeMinor),
		buffers: map[*buffer]struct{}{}, hosts: map[*hostBuffer]struct{}{},
		streams: map[*stream]struct{}{}, modules: map[*module]struct{}{},
		peers: map[cu.Context]bool{},
	}
	fr := framePool.Get().(*cu.Frame)
	if d.enter(fr, "open") == nil {
		if p, r := lib.MemAlloc(anchorBytes); r == cu.Success {
			d.anchor = p
		}
		d.leave()
	}
	framePool.Put(fr)
	return d, nil
}

// Info describes the device.
func (d *device) Info() backend.DeviceInfo { return d.info }

// broken reports whether a sticky error made the GPU's context unusable.
func (d *device) broken() bool { return d.ord.sticky.Load() != 0 }

// enter makes d's context current on the calling OS thread, which stays
// locked to the goroutine until leave. Every driver call that needs a
// context happens between enter and leave: a CUDA context is current per OS
// thread, and a goroutine may move between threads at any moment otherwise.
// (Binding on every call was measured against a locked worker goroutine per
// device and is the cheaper of the two; see doc.go.)
//
// fr holds the arguments of the call that binds the context (see cu.Frame).
func (d *device) enter(fr *cu.Frame, op string) error {
	if d.broken() {
		return lostErr(d.ord, op)
	}
	runtime.LockOSThread()
	if checkCurrent {
		if c, r := d.lib.CtxGetCurrent(); r == cu.Success && c == d.ctx {
			return nil
		}
	}
	if r := d.lib.CtxSetCurrent(fr, d.ctx); r != cu.Success {
		runtime.UnlockOSThread()
		return d.check(r, op)
	}
	return nil
}

func (d *device) leave() { runtime.UnlockOSThread() }

// checkCurrent makes enter ask the driver for the thread's current context
// first and set it only when it differs (the thread usually has it already):
// measured cheaper than setting it on every call (see doc.go).
var checkCurrent = true

// check converts a driver result of operation op. A sticky error is
// remembered for the GPU: the driver keeps returning it for the rest of the
// process, so later calls fail fast without reaching the driver.
func (d *device) check(r cu.Result, op string) error {
	if r == cu.Success {
		return nil
	}
	if r.Fatal() {
		d.ord.sticky.CompareAndSwap(0, int32(r))
	}
	return r.Err(op)
}

// lostErr is the error of every call on a GPU whose context a sticky error
// broke.
func lostErr(o *ordinalState, op string) error {
	r := cu.Result(o.sticky.Load())
	return &errors.Error{Backend: Name, Op: op, Category: errors.DeviceLost, Fatal: true, Code: int64(r), Name: r.String(),
		Msg: "an earlier fatal error on this GPU made CUDA unusable in this process",
		Hint: "CUDA cannot recover from a sticky error inside a process: close every Device, restart the program, " +
			"and fix the kernel that failed (compute-sanitizer finds bad memory accesses)"}
}

// framePool holds the argument frames of calls made outside a stream's
// lock (a stream has its own).
var framePool = sync.Pool{New: func() any { return cu.NewFrame() }}

// do runs f with the context current and converts its result.
func (d *device) do(op string, f func(fr *cu.Frame) cu.Result) error {
	fr := framePool.Get().(*cu.Frame)
	defer framePool.Put(fr)
	if err := d.enter(fr, op); err != nil {
		return err
	}
	r := f(fr)
	d.leave()
	return d.check(r, op)
}

func (d *device) closedErr(op string) error {
	return &errors.Error{Backend: Name, Op: op, Category: errors.Closed, Msg: "device is closed", Hint: "open a new Device"}
}

// MemInfo is cuMemGetInfo: the device's free and total memory.
func (d *device) MemInfo() (free, total int64, err error) {
	err = d.do("mem info", func(*cu.Frame) cu.Result {
		var r cu.Result
		free, total, r = d.lib.MemGetInfo()
		return r
	})
	return free, total, err
}

// Alloc is cuMemAlloc; the root package pools what it returns.
func (d *device) Alloc(size int64) (backend.Buffer, error) {
	if d.closed.Load() {
		return nil, d.closedErr("alloc")
	}
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
	b := &buffer{dev: d, ptr: p, size: size}
	d.mu.Lock()
	d.buffers[b] = struct{}{}
	d.mu.Unlock()
	return b, nil
}

// AllocHost is cuMemHostAlloc (portable pinned memory).
func (d *device) AllocHost(size int64) (backend.HostBuffer, error) {
	if d.closed.Load() {
		return nil, d.closedErr("alloc host")
	}
	var p unsafe.Pointer
	err := d.do("alloc host", func(*cu.Frame) cu.Result {
		var r cu.Result
		p, r = d.lib.MemHostAlloc(size, cu.MemHostAllocPortable)
		return r
	})
	if err != nil {
		return nil, errors.Wrap(err, Name, "alloc host "+byteSize(size))
	}
	h := &hostBuffer{dev: d, ptr: p, size: size}
	d.mu.Lock()
	d.hosts[h] = struct{}{}
	d.mu.Unlock()
	return h, nil
}

// NewStream creates a non-blocking stream.
func (d *device) NewStream() (backend.Stream, error) {
	if d.closed.Load() {
		return nil, d.closedErr("new stream")
	}
	var h cu.Stream
	err := d.do("new stream", func(*cu.Frame) cu.Result {
		var r cu.Result
		h, r = d.lib.StreamCreate(cu.StreamNonBlocking)
		return r
	})
	if err != nil {
		return nil, err
	}
	s := newStream(d, h)
	d.mu.Lock()
	d.streams[s] = struct{}{}
	d.mu.Unlock()
	return s, nil
}

// Close releases everything the Device still holds, then its reference to
// the primary context. After a sticky error only the reference is released:
// the driver resets the context when its last reference goes.
func (d *device) Close() error {
	if !d.closed.CompareAndSwap(false, true) {
		return nil
	}
	d.mu.Lock()
	streams := keys(d.streams)
	modules := keys(d.modules)
	buffers := keys(d.buffers)
	hosts := keys(d.hosts)
	events := d.events
	staging := d.staging
	d.streams, d.modules, d.buffers, d.hosts = map[*stream]struct{}{}, map[*module]struct{}{}, map[*buffer]struct{}{}, map[*hostBuffer]struct{}{}
	d.events, d.staging = nil, nil
	d.mu.Unlock()

	fr := framePool.Get().(*cu.Frame)
	defer framePool.Put(fr)
	if !d.broken() && d.enter(fr, "close") == nil {
		for _, s := range streams {
			s.destroy()
		}
		for _, m := range modules {
			m.unload()
		}
		for _, b := range buffers {
			_ = d.lib.MemFree(b.ptr)
		}
		if d.anchor != 0 {
			_ = d.lib.MemFree(d.anchor)
		}
		for _, sp := range staging {
			sp.free(d, fr)
		}
		for _, h := range hosts {
			_ = d.lib.MemFreeHost(h.ptr)
		}
		for _, e := range events {
			_ = d.lib.EventDestroy(e)
		}
		d.leave()
	}
	if r := d.lib.DevicePrimaryCtxRelease(d.dev); r != cu.Success && !d.broken() {
		return r.Err("close: release the primary context")
	}
	return nil
}

func keys[K comparable](m map[K]struct{}) []K {
	out := make([]K, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// Compile compiles src.CUDA with NVRTC for the device (or opts.Arch) through
// the kernel cache, and loads it.
func (d *device) Compile(ctx context.Context, src backend.Source, opts backend.CompileOptions) (backend.Module, error) {
	op := fmt.Sprintf("compile %q", src.Name)
	if d.closed.Load() {
		return nil, d.closedErr(op)
	}
	if strings.TrimSpace(src.CUDA) == "" {
		return nil, &errors.Error{Backend: Name, Op: op, Category: errors.NotSupported,
			Msg:  "the source has no CUDA dialect (Source.CUDA is empty)",
			Hint: "write the kernel in CUDA C++ (extern \"C\" __global__) in Source.CUDA, or use a backend whose dialect the source has"}
	}
	res, err := compileCUDA(ctx, src, opts, d.arch, d.lib.Version)
	if err != nil {
		return nil, errors.Wrap(err, Name, op)
	}
	var h cu.Module
	err = d.do(op+": load module", func(*cu.Frame) cu.Result {
		var r cu.Result
		h, r = d.lib.ModuleLoadData(res.Image())
		return r
	})
	if err != nil {
		return nil, err
	}
	m := &module{dev: d, h: h, name: src.Name, lowered: res.LoweredNames, kernels: map[string]*kernel{}}
	d.mu.Lock()
	d.modules[m] = struct{}{}
	d.mu.Unlock()
	return m, nil
}

// takeStaging returns a free staging pair, allocating one when none is free.
func (d *device) takeStaging() (*stagePair, error) {
	d.mu.Lock()
	if n := len(d.staging); n > 0 {
		sp := d.staging[n-1]
		d.staging = d.staging[:n-1]
		d.mu.Unlock()
		return sp, nil
	}
	d.mu.Unlock()
	return newStagePair(d)
}

// giveStaging puts sp back for reuse; the events in it order later reuse.
func (d *device) giveStaging(sp *stagePair) {
	d.mu.Lock()
	if !d.closed.Load() && len(d.staging) < maxFreeStaging {
		d.staging = append(d.staging, sp)
		d.mu.Unlock()
		return
	}
	d.mu.Unlock()
	fr := framePool.Get().(*cu.Frame)
	defer framePool.Put(fr)
	if err := d.enter(fr, "free staging"); err == nil {
		sp.free(d, fr)
		d.leave()
	}
}

// maxFreeStaging bounds the staging pairs a device keeps for reuse.
const maxFreeStaging = 4

// takeEvent returns a timing event, reused when one is free.
func (d *device) takeEvent() (cu.Event, cu.Result) {
	d.mu.Lock()
	if n := len(d.events); n > 0 {
		e := d.events[n-1]
		d.events = d.events[:n-1]
		d.mu.Unlock()
		return e, cu.Success
	}
	d.mu.Unlock()
	return d.lib.EventCreate(cu.EventDefault)
}

// maxFreeEvents bounds the events a device keeps for reuse.
const maxFreeEvents = 1024

// giveEvent keeps e for reuse; the caller has the context current.
func (d *device) giveEvent(e cu.Event) {
	d.mu.Lock()
	if !d.closed.Load() && len(d.events) < maxFreeEvents {
		d.events = append(d.events, e)
		d.mu.Unlock()
		return
	}
	d.mu.Unlock()
	_ = d.lib.EventDestroy(e)
}

// enablePeer enables access from d's context to peer's memory once, where
// the GPUs allow it; copies work without it (staged by the driver).
func (d *device) enablePeer(peer *device) {
	d.mu.Lock()
	done := d.peers[peer.ctx]
	d.peers[peer.ctx] = true
	d.mu.Unlock()
	if done || peer.dev == d.dev {
		return
	}
	if ok, r := d.lib.DeviceCanAccessPeer(d.dev, peer.dev); r == cu.Success && ok {
		_ = d.lib.CtxEnablePeerAccess(peer.ctx) // 704: already enabled, by another Device of this GPU
	}
}

// byteSize formats a byte count the way error messages show it ("1.0 GiB").
var byteSize = units.ByteSize
