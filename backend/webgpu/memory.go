//go:build cgo

package webgpu

import (
	"fmt"
	"math/bits"
	"sync"
	"sync/atomic"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/backend/webgpu/internal/wgpuc"
	"github.com/anygpu/gpu/errors"
	"github.com/anygpu/gpu/internal/memview"
	"github.com/anygpu/gpu/internal/units"
	"github.com/oliverbestmann/webgpu/wgpu"
)

// buffer is device memory: a storage buffer, padded to 16 bytes (copies and
// bindings work in 32-bit words, and kernels may view it as vec4s). The
// root package closes it once, before its device.
type buffer struct {
	d     *device
	buf   *wgpu.Buffer
	size  int64  // as allocated by the caller
	alloc uint64 // padded size
}

var (
	_ backend.Buffer       = (*buffer)(nil)
	_ backend.NativeHandle = (*buffer)(nil)
)

func (b *buffer) Size() int64 { return b.size }

// NativeHandle returns the WGPUBuffer.
func (b *buffer) NativeHandle() uintptr { return wgpuc.Handle(b.buf) }

// Close releases the buffer. Work already enqueued that uses it keeps it
// alive until it has run (wgpu counts references), so Close never waits.
func (b *buffer) Close() error {
	b.d.mu.Lock()
	// The shared encoder's dispatches may have to be recorded again, with
	// this buffer: finish it first.
	_ = b.d.closeEncLocked()
	b.d.forgetBufferLocked(b.buf)
	b.d.mu.Unlock()
	_ = protect("free", func() error {
		b.buf.Release()
		return nil
	})
	return nil
}

// usage of every device buffer.
const bufferUsage = wgpu.BufferUsageStorage | wgpu.BufferUsageCopySrc | wgpu.BufferUsageCopyDst

func (d *device) Alloc(size int64) (backend.Buffer, error) {
	op := "alloc " + units.ByteSize(size)
	// The root checked size against DeviceInfo.MaxBufferBytes; the padding
	// may still take it past the limit.
	alloc := (uint64(size) + 15) &^ 15
	if alloc > or64(d.limits.MaxBufferSize, defaultMaxBufferSize) {
		return nil, &errors.Error{
			Backend: Name, Op: op, Category: errors.OutOfMemory,
			Msg:  fmt.Sprintf("larger than the adapter's largest buffer, %s", units.ByteSize(int64(min(d.info.MaxBufferBytes, 1<<62)))),
			Hint: "split the data over several buffers",
		}
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.usableLocked(); err != nil {
		return nil, err
	}
	var buf *wgpu.Buffer
	err := d.call(op, errors.InvalidArgument, func() error {
		var err error
		buf, err = d.dev.TryCreateBuffer(&wgpu.BufferDescriptor{Size: alloc, Usage: bufferUsage})
		return err
	})
	if err != nil {
		if buf != nil {
			buf.Release()
		}
		if e, ok := err.(*errors.Error); ok && e.Category == errors.InvalidArgument {
			// The size is the only argument: wgpu refusing it means the
			// buffer is too large for the device.
			e.Category, e.Hint = errors.OutOfMemory, "use a smaller buffer: the error says the device's limit"
		}
		return nil, err
	}
	return &buffer{d: d, buf: buf, size: size, alloc: alloc}, nil
}

// hostBuffer is host memory: WebGPU has no pinned memory, so transfers from
// it go through the queue like any other.
type hostBuffer struct {
	mem []byte
}

var _ backend.HostBuffer = (*hostBuffer)(nil)

func (h *hostBuffer) Bytes() []byte { return h.mem }

// Close drops the memory, for the garbage collector.
func (h *hostBuffer) Close() error {
	h.mem = nil
	return nil
}

func (d *device) AllocHost(size int64) (backend.HostBuffer, error) {
	if size > 1<<40 {
		return nil, &errors.Error{Backend: Name, Op: "alloc host " + units.ByteSize(size), Category: errors.OutOfMemory,
			Msg: "larger than host memory", Hint: "process the data in smaller batches"}
	}
	return &hostBuffer{mem: memview.Aligned(int(size), 64)}, nil
}

// stagingPool keeps mappable buffers for downloads, by power-of-two size.
type stagingPool struct {
	free  map[uint64][]*wgpu.Buffer
	bytes uint64
}

const (
	stagingMin      = 64 << 10  // smallest pooled staging buffer
	stagingMaxClass = 64 << 20  // larger ones are not pooled
	stagingPoolCap  = 256 << 20 // bytes kept (a 256 MiB read's chunks)
)

func stagingClass(size uint64) uint64 {
	if size <= stagingMin {
		return stagingMin
	}
	if size > stagingMaxClass {
		return (size + 3) &^ 3
	}
	return 1 << bits.Len64(size-1)
}

// acquireStagingLocked returns an unmapped buffer of at least size bytes
// that can be copied into and mapped for reading.
func (d *device) acquireStagingLocked(op string, size uint64) (*wgpu.Buffer, uint64, error) {
	class := stagingClass(size)
	if l := d.staging.free[class]; len(l) > 0 {
		b := l[len(l)-1]
		d.staging.free[class] = l[:len(l)-1]
		d.staging.bytes -= class
		return b, class, nil
	}
	var b *wgpu.Buffer
	err := d.call(op, errors.Execution, func() error {
		var err error
		b, err = d.dev.TryCreateBuffer(&wgpu.BufferDescriptor{
			Label: "anygpu staging", Size: class, Usage: wgpu.BufferUsageMapRead | wgpu.BufferUsageCopyDst,
		})
		return err
	})
	if err != nil {
		if b != nil {
			b.Release()
		}
		return nil, 0, err
	}
	return b, class, nil
}

// releaseStagingLocked returns an unmapped staging buffer to the pool.
func (d *device) releaseStagingLocked(b *wgpu.Buffer, class uint64) {
	if class > stagingMaxClass || d.staging.bytes+class > stagingPoolCap || d.closed {
		b.Release()
		return
	}
	if d.staging.free == nil {
		d.staging.free = map[uint64][]*wgpu.Buffer{}
	}
	d.staging.free[class] = append(d.staging.free[class], b)
	d.staging.bytes += class
}

func (p *stagingPool) release() {
	for _, l := range p.free {
		for _, b := range l {
			b.Release()
		}
	}
	p.free, p.bytes = nil, 0
}

// pendingRead is a download: a copy into a staging buffer, submitted, then
// mapped; when the mapping completes, the data is copied to dst.
type pendingRead struct {
	s       *stream // nil for the backend's own reads
	dst     []byte
	staging *wgpu.Buffer
	class   uint64
	skip    uint64 // offset of dst's first byte in the staging buffer
	size    uint64 // bytes mapped: skip + len(dst), rounded up to 4
	status  atomic.Uint32
	done    bool
	err     error
}

// mapLocked asks for the staging buffer's mapping once its copy has been
// submitted.
func (r *pendingRead) mapLocked(d *device) {
	err := d.call("read", errors.Execution, func() error {
		return r.staging.TryMapAsync(wgpu.MapModeRead, 0, r.size, func(st wgpu.MapAsyncStatus) {
			r.status.Store(uint32(st))
		})
	})
	if err != nil {
		r.finishLocked(d, err)
		return
	}
	d.reads = append(d.reads, r)
}

// finishReadsLocked completes the downloads whose mapping has completed.
func (d *device) finishReadsLocked() {
	kept := d.reads[:0]
	var mapped []*pendingRead
	for _, r := range d.reads {
		st := r.status.Load()
		switch {
		case st == 0:
			kept = append(kept, r)
		case st == uint32(wgpu.MapAsyncStatusSuccess):
			mapped = append(mapped, r)
		default:
			r.finishLocked(d, nativeErr(mapAsyncStatuses, st, "read", "", errors.None))
		}
	}
	for i := len(kept); i < len(d.reads); i++ {
		d.reads[i] = nil
	}
	d.reads = kept
	if len(mapped) > 0 {
		d.copyOutLocked(mapped)
	}
}

// copyOutLocked copies mapped downloads into their destinations, all of
// them at once (when the host's copies lag behind the device's, several
// chunks of a transfer are mapped together), then unmaps and finishes them.
func (d *device) copyOutLocked(rs []*pendingRead) {
	srcs := make([][]byte, len(rs))
	errs := make([]error, len(rs))
	for i, r := range rs {
		errs[i] = d.call("read", errors.Execution, func() error {
			srcs[i] = r.staging.GetMappedRange(0, uint(r.size))[r.skip : r.skip+uint64(len(r.dst))]
			return nil
		})
	}
	var wg sync.WaitGroup
	for i, r := range rs {
		if errs[i] == nil {
			wg.Go(func() { parallelCopy(r.dst, srcs[i], downloadPiece) })
		}
	}
	wg.Wait()
	for i, r := range rs {
		err := errs[i]
		if err == nil {
			err = d.call("read", errors.Execution, func() error { return r.staging.TryUnmap() })
		}
		r.finishLocked(d, err)
	}
}

// finishLocked ends a download, successful or not, and recycles its staging
// buffer.
func (r *pendingRead) finishLocked(d *device, err error) {
	if r.done {
		return
	}
	r.done, r.err = true, err
	d.readsDone++
	if r.staging != nil {
		if err == nil {
			d.releaseStagingLocked(r.staging, r.class)
		} else {
			_ = protect("read", func() error { r.staging.Release(); return nil })
		}
		r.staging = nil
	}
	if s := r.s; s != nil {
		s.reads--
		if err != nil && s.err == nil {
			s.err = err
		}
	}
}
