package gpu

import (
	"context"
	"io"
	"sync/atomic"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/errors"
)

// Buffer is device memory. It implements io.ReaderAt and io.WriterAt
// (synchronous, on the device's default stream), io.ReaderFrom (a reader
// streamed to the device through pinned chunks) and io.WriterTo (the
// buffer's contents streamed to a writer the same way).
//
// A Buffer belongs to the device that allocated it. Streams of another device
// refuse it with InvalidArgument, except as the source of Stream.Copy, which
// moves data between devices.
type Buffer struct {
	dev       *Device
	impl      backend.Buffer
	size      int64
	class     int64 // pool size class; 0 when allocated directly
	borrowed  bool  // another library's memory (Device.Borrow): not counted, not freed
	closed    atomic.Bool
	transfers transferCounters

	// holds counts the graphs and captures that use the buffer, plus
	// releasePending once Close has run while some did: the last unhold
	// then returns the memory (see Graph).
	holds atomic.Int64
}

// releasePending marks, in Buffer.holds, a Close deferred until the last
// graph that uses the buffer closes.
const releasePending = int64(1) << 62

// hold adds a graph's (or capture's) hold on b; false when b is closed.
func (b *Buffer) hold() bool {
	for {
		v := b.holds.Load()
		if v&releasePending != 0 || b.closed.Load() {
			return false
		}
		if b.holds.CompareAndSwap(v, v+1) {
			return true
		}
	}
}

// unhold drops a hold; the last one of a closed buffer returns its memory.
func (b *Buffer) unhold() error {
	if b.holds.Add(-1) != releasePending {
		return nil
	}
	return b.release()
}

// release returns b's memory to the pool (or frees it).
func (b *Buffer) release() error {
	return b.dev.wrap(b.dev.closeChild(func() error { return b.dev.pool.put(b.impl, b.class) }), "free")
}

var (
	_ io.ReaderAt   = (*Buffer)(nil)
	_ io.WriterAt   = (*Buffer)(nil)
	_ io.ReaderFrom = (*Buffer)(nil)
	_ io.WriterTo   = (*Buffer)(nil)
)

// Size is the buffer's size in bytes, as requested (0 for a nil buffer).
func (b *Buffer) Size() int64 {
	if b == nil {
		return 0
	}
	return b.size
}

// Device is the device the buffer belongs to (nil for a nil buffer).
func (b *Buffer) Device() *Device {
	if b == nil {
		return nil
	}
	return b.dev
}

// Transfers is the buffer's own transfer ledger (empty for a nil buffer).
func (b *Buffer) Transfers() TransferCounts {
	if b == nil {
		return TransferCounts{}
	}
	return b.transfers.snapshot()
}

// NativeHandle returns the backend's handle for the buffer (a CUdeviceptr, a
// VkBuffer, ...) where the backend exposes one.
func (b *Buffer) NativeHandle() (uintptr, error) {
	if err := b.usable("native handle"); err != nil {
		return 0, err
	}
	if h, ok := b.impl.(backend.NativeHandle); ok {
		return h.NativeHandle(), nil
	}
	return 0, b.dev.errorf(errors.NotSupported, "native handle", "the %s backend exposes no buffer handle", b.dev.backend)
}

// usable reports why b cannot be used: nil, closed, or its device unusable.
func (b *Buffer) usable(op string) error {
	if b == nil {
		return errorf(errors.InvalidArgument, op, "nil buffer")
	}
	return b.dev.usableObject(op, &b.closed, func() string { return "buffer" })
}

// Close returns the buffer's memory to the device pool (or frees it; a
// borrowed buffer's memory is left to its owner). Work still queued on a
// stream must not use the buffer: synchronize first, as with cuMemFree.
// Closing twice is not an error.
//
// A buffer that an open Graph (or a capture in progress) uses is closed for
// its user at once (counted in Stats.Frees), but its memory goes back to the
// pool only when the last such graph closes, so that a replay never writes
// memory handed out again.
func (b *Buffer) Close() error {
	if b == nil || b.dev == nil || !b.closed.CompareAndSwap(false, true) {
		return nil
	}
	if !b.borrowed {
		b.dev.stats.free(b.size)
	}
	if b.holds.Add(releasePending) != releasePending {
		return nil // a graph uses it: the last one's Close releases it
	}
	return b.release()
}

// ReadAt copies len(p) bytes at off into p, synchronously. Like any
// io.ReaderAt it returns io.EOF when fewer bytes remain than p holds.
func (b *Buffer) ReadAt(p []byte, off int64) (int, error) {
	if err := b.usable("read at"); err != nil {
		return 0, err
	}
	if off < 0 {
		return 0, b.dev.errorf(errors.InvalidArgument, "read at", "negative offset %d", off)
	}
	if off >= b.size {
		if len(p) == 0 && off == b.size {
			return 0, nil
		}
		return 0, io.EOF
	}
	n := int64(len(p))
	var eof error
	if n > b.size-off {
		n, eof = b.size-off, io.EOF
	}
	s := b.dev.def
	if err := s.Read(p[:n], b, off); err != nil {
		return 0, err
	}
	if err := s.Synchronize(context.Background()); err != nil {
		return 0, err
	}
	return int(n), eof
}

// WriteAt copies p to the buffer at off, synchronously. A write that does not
// fit is refused whole.
func (b *Buffer) WriteAt(p []byte, off int64) (int, error) {
	s := b.defaultStream()
	if s == nil {
		return 0, b.usable("write at")
	}
	if err := s.Write(b, off, p); err != nil {
		return 0, err
	}
	if err := s.Synchronize(context.Background()); err != nil {
		return 0, err
	}
	return len(p), nil
}

func (b *Buffer) defaultStream() *Stream {
	if b == nil || b.dev == nil {
		return nil
	}
	return b.dev.def
}

// HostBuffer is host memory allocated for fast transfers (pinned where the
// backend has it). Its bytes are valid until Close.
type HostBuffer struct {
	dev    *Device
	impl   backend.HostBuffer
	size   int64
	class  int64
	closed atomic.Bool
}

// Bytes is the buffer's memory (nil after Close, or after its device's Close,
// which frees it).
func (h *HostBuffer) Bytes() []byte {
	if h == nil || h.dev == nil || h.closed.Load() || h.dev.closed.Load() {
		return nil
	}
	return h.impl.Bytes()[:h.size:h.size]
}

// Size is the buffer's size in bytes (0 for a nil buffer).
func (h *HostBuffer) Size() int64 {
	if h == nil {
		return 0
	}
	return h.size
}

// Device is the device the buffer was allocated for (nil for a nil buffer).
func (h *HostBuffer) Device() *Device {
	if h == nil {
		return nil
	}
	return h.dev
}

// Close returns the memory to the host pool (or frees it). Closing twice is
// not an error.
func (h *HostBuffer) Close() error {
	if h == nil || h.dev == nil || !h.closed.CompareAndSwap(false, true) {
		return nil
	}
	return h.dev.wrap(h.dev.closeChild(func() error { return h.dev.hostPool.put(h.impl, h.class) }), "free host")
}
