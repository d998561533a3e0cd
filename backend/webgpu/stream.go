//go:build cgo

package webgpu

import (
	"context"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/errors"
	"github.com/oliverbestmann/webgpu/wgpu"
)

// stream is an ordered sequence of operations. WebGPU has one queue per
// device, so every stream of a device feeds that queue: operations of all
// streams run in the order they were enqueued, which satisfies any ordering
// streams and events could ask for (Wait has nothing left to do) at the
// price of no overlap between streams.
//
// The root package hands a stream only open buffers, events and kernels of
// its own device, ranges inside them and sizes above zero, and closes it
// once, after synchronizing it: the stream checks none of that again.
type stream struct {
	d *device
	// Guarded by d.mu.
	pending bool   // has work in the device's pending batch
	seq     uint64 // the last submission with work of this stream
	reads   int    // downloads not yet complete
	err     error  // first asynchronous error since the last Synchronize
}

var _ backend.Stream = (*stream)(nil)

// enqueue runs encode, which adds one operation of s to the device's pending
// batch, with the device locked and usable (not closed, not lost), then lets
// the batch go if it should.
func (s *stream) enqueue(encode func(d *device) error) error {
	d := s.d
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.usableLocked(); err != nil {
		return err
	}
	if err := encode(d); err != nil {
		return err
	}
	d.touchLocked(s)
	d.afterWorkLocked()
	return nil
}

// Write enqueues a copy of src to dst at off. The queue stages src at once,
// so src may be reused when Write returns. Whole 32-bit words go through the
// queue's buffer write; a partial word at either end is merged into the
// buffer by a one-thread kernel, in stream order.
func (s *stream) Write(dst backend.Buffer, off int64, src []byte) error {
	if len(src) >= stagedWriteMin {
		return s.writeStaged(dst.(*buffer), uint64(off), src)
	}
	return s.enqueue(func(d *device) error { return d.writeLocked(dst.(*buffer), uint64(off), src) })
}

// writeLocked is Write's work.
func (d *device) writeLocked(b *buffer, o uint64, src []byte) error {
	const op = "write"
	// Queue writes run before the command buffers of the next submission:
	// submit the work enqueued before this write first.
	if err := d.flushLocked(); err != nil {
		return err
	}
	n := uint64(len(src))
	lo, hi := (o+3)&^3, (o+n)&^3
	if lo < hi {
		err := d.call(op, errors.InvalidArgument, func() error {
			return d.queue.TryWriteBuffer(b.buf, lo, src[lo-o:hi-o])
		})
		if err != nil {
			return err
		}
		d.dirty = true
	}
	for _, w := range edgeWords(o, n) {
		var mask, value uint32
		for p := max(o, w*4); p < min(o+n, w*4+4); p++ {
			shift := 8 * (p - w*4)
			mask |= 0xff << shift
			value |= uint32(src[p-o]) << shift
		}
		if err := d.patchWordLocked(op, b, w, mask, value); err != nil {
			return err
		}
	}
	return nil
}

// edgeWords returns the indices of the words that bytes [o, o+n) cover only
// partly (n > 0).
func edgeWords(o, n uint64) []uint64 {
	var out []uint64
	first, last := o/4, (o+n-1)/4
	if o%4 != 0 || (first == last && (o+n)%4 != 0) {
		out = append(out, first)
	}
	if last != first && (o+n)%4 != 0 {
		out = append(out, last)
	}
	return out
}

// Read enqueues a download of len(dst) bytes at off: a copy of the covering
// words into a mappable staging buffer; when the stream is synchronized the
// staging buffer has been mapped and dst holds the data.
func (s *stream) Read(dst []byte, src backend.Buffer, off int64) error {
	if len(dst) > transferChunk {
		return s.enqueue(func(d *device) error { return d.readChunkedLocked(s, dst, src.(*buffer), uint64(off)) })
	}
	return s.enqueue(func(d *device) error {
		d.noteLongWorkLocked(uint64(len(dst)))
		return d.readLocked(s, dst, src.(*buffer), uint64(off))
	})
}

// readLocked is Read's work.
func (d *device) readLocked(s *stream, dst []byte, b *buffer, o uint64) error {
	const op = "read"
	n := uint64(len(dst))
	lo, hi := o&^3, (o+n+3)&^3
	staging, class, err := d.acquireStagingLocked(op, hi-lo)
	if err != nil {
		return err
	}
	err = d.encodeLocked(op, errors.InvalidArgument, func(enc *wgpu.CommandEncoder) error {
		return enc.TryCopyBufferToBuffer(b.buf, lo, staging, 0, hi-lo)
	})
	if err != nil {
		d.releaseStagingLocked(staging, class)
		return err
	}
	d.toMap = append(d.toMap, &pendingRead{s: s, dst: dst, staging: staging, class: class, skip: o - lo, size: hi - lo})
	s.reads++
	return nil
}

// Copy enqueues a device-to-device copy: on a GPU a vec4 copy kernel where
// offsets and size are multiples of 16 (unless EnvD2D asks for the copy
// command), else the queue's copy command for whole words between two
// buffers (always, on software adapters), and a byte-copy kernel for the
// rest (and for copies within one buffer, which WebGPU's copy command
// refuses).
func (s *stream) Copy(dst backend.Buffer, dstOff int64, src backend.Buffer, srcOff, n int64) error {
	return s.enqueue(func(d *device) error {
		return d.copyLocked(dst.(*buffer), uint64(dstOff), src.(*buffer), uint64(srcOff), uint64(n))
	})
}

// copyLocked is Copy's work.
func (d *device) copyLocked(db *buffer, dstOff uint64, sb *buffer, srcOff, n uint64) error {
	const op = "copy"
	d.noteLongWorkLocked(n)
	aligned := dstOff%4 == 0 && srcOff%4 == 0 && n%4 == 0
	vec4 := dstOff%16 == 0 && srcOff%16 == 0 && n%16 == 0 && d.storageAlign%16 == 0
	switch {
	case vec4 && d.d2dKernel:
		return d.copyVec4Locked(op, db, dstOff, sb, srcOff, n)
	case db != sb && aligned:
		// The queue's copy command (on a CPU a memcpy, faster than any
		// kernel).
		return d.encodeLocked(op, errors.InvalidArgument, func(enc *wgpu.CommandEncoder) error {
			return enc.TryCopyBufferToBuffer(sb.buf, srcOff, db.buf, dstOff, n)
		})
	case vec4:
		return d.copyVec4Locked(op, db, dstOff, sb, srcOff, n)
	default:
		return d.copyBytesLocked(op, db, dstOff, sb, srcOff, n)
	}
}

// Fill enqueues setting n bytes at off (both multiples of 4) to the repeated
// value v: the queue's clear command for 0, a fill kernel otherwise.
func (s *stream) Fill(dst backend.Buffer, off, n int64, v uint32) error {
	const op = "fill"
	b := dst.(*buffer)
	return s.enqueue(func(d *device) error {
		d.noteLongWorkLocked(uint64(n))
		if v == 0 {
			return d.encodeLocked(op, errors.InvalidArgument, func(enc *wgpu.CommandEncoder) error {
				return enc.TryClearBuffer(b.buf, uint64(off), uint64(n))
			})
		}
		return d.fillWordsLocked(op, b, uint64(off), uint64(n), v)
	})
}

// encodeLocked records one command buffer with fn and adds it to the
// pending batch, after the shared encoder's dispatches.
func (d *device) encodeLocked(op string, vcat errors.Category, fn func(*wgpu.CommandEncoder) error) error {
	_ = d.closeEncLocked()
	return d.call(op, vcat, func() error {
		enc, err := d.dev.TryCreateCommandEncoder(nil)
		if err != nil {
			return err
		}
		defer enc.Release()
		if err := fn(enc); err != nil {
			return err
		}
		return d.finishLocked(enc)
	})
}

// Record enqueues an event. With timestamp queries it is an empty compute
// pass that writes the GPU clock into a query slot; without, the queue's
// work-done callback stamps it with the host clock.
func (s *stream) Record() (backend.Event, error) {
	d := s.d
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.usableLocked(); err != nil {
		return nil, err
	}
	e := &event{d: d, slot: -1}
	// The event is part of the stream's work: Synchronize waits for it.
	d.touchLocked(s)
	if !d.timestamps {
		if err := d.flushLocked(); err != nil {
			return nil, err
		}
		e.host, e.seq = true, d.seq
		d.hostEvts.Add(1)
		err := protect("record", func() error {
			d.queue.OnSubmittedWorkDone(func(wgpu.QueueWorkDoneStatus) {
				// Runs inside Poll, which is called with d.mu held.
				e.hostAt.Store(int64(hostNow()))
				e.hostDone.Store(true)
				d.hostEvts.Add(-1)
			})
			return nil
		})
		if err != nil {
			d.hostEvts.Add(-1)
			return nil, err
		}
		d.startHostPollerLocked()
		return e, nil
	}
	fromTail, err := d.recordFromTailLocked(e)
	if err != nil {
		return nil, err
	}
	if !fromTail {
		if err := d.recordTimestampLocked(e); err != nil {
			return nil, err
		}
	}
	d.newEvts = append(d.newEvts, e)
	return e, nil
}

// Wait orders the stream after e. All streams of a device share one queue
// in enqueue order, so work enqueued after Wait already runs after e: Wait
// only reports a device that cannot take work.
func (s *stream) Wait(backend.Event) error {
	s.d.mu.Lock()
	defer s.d.mu.Unlock()
	return s.d.usableLocked()
}

// Synchronize submits the pending work and waits until the stream's work
// has run and its downloads have landed.
func (s *stream) Synchronize(ctx context.Context) error {
	d := s.d
	d.mu.Lock()
	if err := d.usableLocked(); err != nil {
		d.mu.Unlock()
		return err
	}
	_ = d.flushLocked()
	target := s.seq
	d.mu.Unlock()
	if err := d.wait(ctx, "synchronize", func() bool { return d.completed.Load() >= target && s.reads == 0 }); err != nil {
		return err
	}
	d.mu.Lock()
	err := s.err
	s.err = nil
	d.mu.Unlock()
	if err == nil {
		err = d.asyncErr()
	}
	return err
}

// Close releases the stream, which holds nothing native: its work is the
// device's, and the root package synchronizes the stream before closing it.
func (s *stream) Close() error { return nil }
