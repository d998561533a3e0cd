package gpu

import (
	"context"
	"fmt"
	"io"
	"sync/atomic"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/errors"
)

// Buffer is device memory. It implements io.ReaderAt and io.WriterAt
// (synchronous, on the device's default stream) and io.ReaderFrom (a reader
// streamed to the device through pinned chunks).
type Buffer struct {
	dev       *Device
	impl      backend.Buffer
	size      int64
	class     int64 // pool size class; 0 when allocated directly
	closed    atomic.Bool
	transfers transferCounters
}

var (
	_ io.ReaderAt   = (*Buffer)(nil)
	_ io.WriterAt   = (*Buffer)(nil)
	_ io.ReaderFrom = (*Buffer)(nil)
)

// Size is the buffer's size in bytes, as requested.
func (b *Buffer) Size() int64 { return b.size }

// Device is the device the buffer belongs to.
func (b *Buffer) Device() *Device { return b.dev }

// Transfers is the buffer's own transfer ledger.
func (b *Buffer) Transfers() TransferCounts { return b.transfers.snapshot() }

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
	if err := b.dev.usable(op); err != nil {
		return err
	}
	if b.closed.Load() {
		return b.dev.errorf(errors.Closed, op, "buffer is closed")
	}
	return nil
}

// Close returns the buffer's memory to the device pool (or frees it). Work
// still queued on a stream must not use the buffer: synchronize first, as
// with cuMemFree. Closing twice is not an error.
func (b *Buffer) Close() error {
	if b == nil || !b.closed.CompareAndSwap(false, true) {
		return nil
	}
	b.dev.stats.free(b.size)
	if b.dev.closed.Load() {
		return nil // the device released all its memory
	}
	return b.dev.wrap(b.dev.pool.put(b.impl, b.class), "free")
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
	if b == nil {
		return nil
	}
	return b.dev.def
}

// ReadFromChunk is the size of the pinned chunks ReadFrom stages data through.
const ReadFromChunk = 4 << 20

// ReadFrom fills the buffer from r, starting at offset 0, until r returns
// io.EOF. Data moves through two pinned host chunks: while one is copied to
// the device the next is read. A reader with more data than the buffer holds
// is an InvalidArgument error (after the buffer is full).
func (b *Buffer) ReadFrom(r io.Reader) (int64, error) {
	return b.ReadFromContext(context.Background(), r, nil)
}

// Progress receives the bytes copied so far and the total expected (the
// buffer's size); it is called after each chunk.
type Progress func(done, total int64)

// ReadFromContext is ReadFrom with cancellation and an optional progress callback.
func (b *Buffer) ReadFromContext(ctx context.Context, r io.Reader, progress Progress) (int64, error) {
	const op = "read from"
	if err := b.usable(op); err != nil {
		return 0, err
	}
	if r == nil {
		return 0, b.dev.errorf(errors.InvalidArgument, op, "nil reader")
	}
	s := b.dev.def
	chunk := int64(ReadFromChunk)
	if chunk > b.size {
		chunk = b.size
	}
	var slots [2]*HostBuffer
	var inflight [2]*Event
	defer func() {
		for i := range slots {
			if inflight[i] != nil {
				_ = inflight[i].Synchronize(context.Background())
				_ = inflight[i].Close()
			}
			_ = slots[i].Close()
		}
	}()
	var total int64
	for i := 0; ; i ^= 1 {
		if err := ctx.Err(); err != nil {
			return total, b.dev.wrap(err, op)
		}
		if slots[i] == nil {
			hb, err := b.dev.AllocHost(chunk)
			if err != nil {
				return total, err
			}
			slots[i] = hb
		}
		if inflight[i] != nil { // the chunk's previous copy must be done before refilling it
			if err := inflight[i].Synchronize(ctx); err != nil {
				return total, err
			}
			_ = inflight[i].Close()
			inflight[i] = nil
		}
		want := chunk
		if rest := b.size - total; rest < want {
			want = rest
		}
		if want == 0 {
			var probe [1]byte
			n, err := io.ReadFull(r, probe[:])
			if n > 0 {
				return total, b.dev.errorf(errors.InvalidArgument, op, "the reader holds more than the buffer's %d bytes", b.size)
			}
			if err == io.EOF || err == io.ErrUnexpectedEOF {
				break
			}
			return total, b.dev.wrap(err, op)
		}
		n, rerr := io.ReadFull(r, slots[i].Bytes()[:want])
		if n > 0 {
			if err := s.WriteHost(b, total, slots[i], 0, int64(n)); err != nil {
				return total, err
			}
			ev, err := s.Record()
			if err != nil {
				return total, err
			}
			inflight[i] = ev
			total += int64(n)
			if progress != nil {
				progress(total, b.size)
			}
		}
		if rerr == io.EOF || rerr == io.ErrUnexpectedEOF {
			break
		}
		if rerr != nil {
			return total, b.dev.wrap(fmt.Errorf("reading: %w", rerr), op)
		}
	}
	return total, s.Synchronize(ctx)
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

// Bytes is the buffer's memory (nil after Close).
func (h *HostBuffer) Bytes() []byte {
	if h == nil || h.closed.Load() {
		return nil
	}
	return h.impl.Bytes()[:h.size:h.size]
}

// Size is the buffer's size in bytes.
func (h *HostBuffer) Size() int64 { return h.size }

// Device is the device the buffer was allocated for.
func (h *HostBuffer) Device() *Device { return h.dev }

func (h *HostBuffer) usable(op string) error {
	if h == nil {
		return errorf(errors.InvalidArgument, op, "nil host buffer")
	}
	if err := h.dev.usable(op); err != nil {
		return err
	}
	if h.closed.Load() {
		return h.dev.errorf(errors.Closed, op, "host buffer is closed")
	}
	return nil
}

// Close returns the memory to the host pool (or frees it). Closing twice is
// not an error.
func (h *HostBuffer) Close() error {
	if h == nil || !h.closed.CompareAndSwap(false, true) {
		return nil
	}
	if h.dev.closed.Load() {
		return nil
	}
	return h.dev.wrap(h.dev.hostPool.put(h.impl, h.class), "free host")
}
