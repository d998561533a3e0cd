package cuda

import (
	"runtime"
	"sync"
	"unsafe"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/backend/cuda/internal/cu"
	"github.com/anygpu/gpu/errors"
)

// buffer is device memory from cuMemAlloc.
type buffer struct {
	dev  *device
	ptr  cu.DevicePtr
	size int64
}

var (
	_ backend.Buffer       = (*buffer)(nil)
	_ backend.NativeHandle = (*buffer)(nil)
)

// Size is the size in bytes.
func (b *buffer) Size() int64 { return b.size }

// NativeHandle is the CUdeviceptr.
func (b *buffer) NativeHandle() uintptr { return uintptr(b.ptr) }

// Close frees the memory (cuMemFree). Closing twice, or after the device
// closed (which freed it), does nothing.
func (b *buffer) Close() error {
	d := b.dev
	d.mu.Lock()
	_, live := d.buffers[b]
	delete(d.buffers, b)
	d.mu.Unlock()
	if !live || d.broken() {
		return nil
	}
	return d.do("free", func(*cu.Frame) cu.Result { return d.lib.MemFree(b.ptr) })
}

// hostBuffer is pinned host memory from cuMemHostAlloc.
type hostBuffer struct {
	dev  *device
	ptr  unsafe.Pointer
	size int64
	mu   sync.Mutex
	gone bool
}

var (
	_ backend.HostBuffer   = (*hostBuffer)(nil)
	_ backend.NativeHandle = (*hostBuffer)(nil)
)

// Bytes is the pinned memory; nil once closed.
func (h *hostBuffer) Bytes() []byte {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.gone {
		return nil
	}
	return unsafe.Slice((*byte)(h.ptr), h.size)
}

// NativeHandle is the host address.
func (h *hostBuffer) NativeHandle() uintptr { return uintptr(h.ptr) }

// Close frees the memory (cuMemFreeHost).
func (h *hostBuffer) Close() error {
	h.mu.Lock()
	if h.gone {
		h.mu.Unlock()
		return nil
	}
	h.gone = true
	h.mu.Unlock()
	d := h.dev
	d.mu.Lock()
	_, live := d.hosts[h]
	delete(d.hosts, h)
	d.mu.Unlock()
	if !live || d.broken() {
		return nil
	}
	return d.do("free host", func(*cu.Frame) cu.Result { return d.lib.MemFreeHost(h.ptr) })
}

// Pageable transfers: a Go slice is not page-locked, so the DMA engines
// cannot read or write it. Small transfers go through the driver, which
// stages them itself; large ones through two pinned chunks of our own, so
// that copying one chunk on the host overlaps the DMA of the other.
const (
	directMax  = 1 << 20 // up to this, pageable copies go straight to the driver
	stageChunk = 8 << 20 // size of each of the two staging chunks
)

// stagePair is two pinned chunks with an event each, recorded after the
// copy that uses the chunk: the chunk may be refilled once it completes.
type stagePair struct {
	mem     [2]unsafe.Pointer
	ev      [2]cu.Event
	pending [2]bool
}

// newStagePair allocates a pair.
func newStagePair(d *device) (*stagePair, error) {
	sp := &stagePair{}
	fr := framePool.Get().(*cu.Frame)
	defer framePool.Put(fr)
	if err := d.enter(fr, "allocate staging memory"); err != nil {
		return nil, err
	}
	defer d.leave()
	for i := range sp.mem {
		p, r := d.lib.MemHostAlloc(stageChunk, cu.MemHostAllocPortable)
		if r != cu.Success {
			sp.free(d, fr)
			return nil, d.check(r, "allocate staging memory")
		}
		sp.mem[i] = p
		e, r := d.lib.EventCreate(cu.EventDisableTiming)
		if r != cu.Success {
			sp.free(d, fr)
			return nil, d.check(r, "allocate staging memory")
		}
		sp.ev[i] = e
	}
	return sp, nil
}

// free releases the pair; the context is current.
func (sp *stagePair) free(d *device, fr *cu.Frame) {
	for i := range sp.mem {
		if sp.pending[i] {
			_ = d.lib.EventSynchronize(fr, sp.ev[i])
		}
		if sp.ev[i] != 0 {
			_ = d.lib.EventDestroy(sp.ev[i])
		}
		if sp.mem[i] != nil {
			_ = d.lib.MemFreeHost(sp.mem[i])
		}
	}
}

// chunk is slot i's memory as a byte slice of n bytes.
func (sp *stagePair) chunk(i int, n int) []byte {
	return unsafe.Slice((*byte)(sp.mem[i]), n)
}

// ready waits until slot i's last copy has completed; the context is current.
func (sp *stagePair) ready(d *device, fr *cu.Frame, i int) error {
	if !sp.pending[i] {
		return nil
	}
	sp.pending[i] = false
	return d.check(d.lib.EventSynchronize(fr, sp.ev[i]), "wait for staging memory")
}

// parallelCopy copies src to dst using several cores for large copies: one
// core cannot reach the memory bandwidth a pinned DMA transfer runs at.
func parallelCopy(dst, src []byte) {
	n := len(src)
	const grain = 1 << 20
	parts := min(runtime.GOMAXPROCS(0), n/grain, 8)
	if parts <= 1 {
		copy(dst, src)
		return
	}
	step := (n + parts - 1) / parts
	step = (step + 63) &^ 63
	var wg sync.WaitGroup
	for lo := step; lo < n; lo += step {
		hi := min(lo+step, n)
		wg.Add(1)
		go func() {
			defer wg.Done()
			copy(dst[lo:hi], src[lo:hi])
		}()
	}
	copy(dst[:min(step, n)], src[:min(step, n)])
	wg.Wait()
}

// foreign is the error for a buffer of another backend.
func foreign(op string, v any) error {
	return errors.E(errors.InvalidArgument, Name, op, "%T does not belong to the CUDA backend", v)
}
