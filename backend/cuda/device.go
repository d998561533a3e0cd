package cuda

import (
	"fmt"
	"runtime"
	"sync"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/backend/cuda/internal/cu"
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

	// The objects the device frees when it closes: the root package closes
	// its streams first, but leaves buffers and modules still open to it.
	mu      sync.Mutex // guards the sets below
	buffers map[*buffer]struct{}
	hosts   map[*hostBuffer]struct{}
	streams map[*stream]struct{}
	loaded  map[*loadedModule]struct{} // every loaded CUmodule (module.go)
	mcache  map[string]*loadedModule   // the module cache, by moduleKey
	events  []cu.Event                 // recorded-and-closed events, for reuse (event.go)
	staging []*stagePair               // free staging buffers for pageable transfers (staging.go)
	peers   map[cu.Context]bool

	// anchor is a small allocation held for the device's lifetime (0 if it
	// failed). The driver serves allocations under 2 MiB from 2 MiB pages
	// it maps on demand and unmaps when the last allocation in one is freed,
	// so in a context with nothing else allocated every cuMemAlloc+cuMemFree
	// of 1 MiB mapped and unmapped a page: 62 µs, against 3.9 µs with any
	// small allocation live (H200, driver 580.159).
	anchor cu.DevicePtr

	mm matMulState // cuBLASLt's handle and plans (matmul.go)
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
		streams: map[*stream]struct{}{}, loaded: map[*loadedModule]struct{}{}, mcache: map[string]*loadedModule{},
		peers: map[cu.Context]bool{},
	}
	_ = d.bound("open", func(*cu.Frame) {
		if p, r := lib.MemAlloc(anchorBytes); r == cu.Success {
			d.anchor = p
		}
	})
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
		if c, r := d.lib.CtxGetCurrent(fr); r == cu.Success && c == d.ctx {
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

// framePool holds the argument frames of calls made outside a stream's
// lock (a stream has its own).
var framePool = sync.Pool{New: func() any { return cu.NewFrame() }}

// bound runs f between enter and leave, with an argument frame from the
// pool; it fails, without running f, when the context cannot be made current.
func (d *device) bound(op string, f func(fr *cu.Frame)) error {
	fr := framePool.Get().(*cu.Frame)
	defer framePool.Put(fr)
	if err := d.enter(fr, op); err != nil {
		return err
	}
	defer d.leave()
	f(fr)
	return nil
}

// do runs f with the context current and converts its result.
func (d *device) do(op string, f func(fr *cu.Frame) cu.Result) error {
	var r cu.Result
	if err := d.bound(op, func(fr *cu.Frame) { r = f(fr) }); err != nil {
		return err
	}
	return d.check(r, op)
}

// track adds x to set, one of the device's sets of live objects, and
// returns it.
func track[T comparable](d *device, set map[T]struct{}, x T) T {
	d.mu.Lock()
	set[x] = struct{}{}
	d.mu.Unlock()
	return x
}

// release forgets x, one of the device's live objects in set, and frees it
// with free. After a sticky error nothing is freed: the driver resets the
// context, and everything in it, when its last reference goes.
func release[T comparable](d *device, set map[T]struct{}, x T, op string, free func() cu.Result) error {
	d.mu.Lock()
	delete(set, x)
	d.mu.Unlock()
	if d.broken() {
		return nil
	}
	return d.do(op, func(*cu.Frame) cu.Result { return free() })
}

// Close releases everything the Device still holds, then its reference to
// the primary context. After a sticky error only the reference is released:
// the driver resets the context when its last reference goes.
func (d *device) Close() error {
	d.mu.Lock()
	streams, modules, buffers, hosts := keys(d.streams), keys(d.loaded), keys(d.buffers), keys(d.hosts)
	clear(d.streams)
	clear(d.loaded)
	clear(d.mcache)
	clear(d.buffers)
	clear(d.hosts)
	events, staging := d.events, d.staging
	d.events, d.staging = nil, nil
	d.mu.Unlock()

	_ = d.bound("close", func(fr *cu.Frame) { // fails at once after a sticky error
		d.closeMatMul()
		for _, s := range streams {
			_ = d.lib.StreamDestroy(s.h)
		}
		for _, m := range modules {
			_ = d.lib.ModuleUnload(m.h)
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
	})
	if r := d.lib.DevicePrimaryCtxRelease(d.dev); r != cu.Success && !d.broken() {
		return r.Err("close: release the primary context")
	}
	return nil
}

// takeFree pops an object from list, one of the device's free lists.
func takeFree[T any](d *device, list *[]T) (x T, ok bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if n := len(*list); n > 0 {
		x, *list = (*list)[n-1], (*list)[:n-1]
		return x, true
	}
	return x, false
}

// keepFree appends x to list, one of the device's free lists, unless it
// holds max already: then the caller frees x.
func keepFree[T any](d *device, list *[]T, x T, max int) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(*list) >= max {
		return false
	}
	*list = append(*list, x)
	return true
}

func keys[K comparable](m map[K]struct{}) []K {
	out := make([]K, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
