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
