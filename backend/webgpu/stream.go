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
type stream struct {
	d *device
	// Guarded by d.mu.
	closed  bool
	pending bool   // has work in the device's pending batch
	seq     uint64 // the last submission with work of this stream
	reads   int    // downloads not yet complete
	err     error  // first asynchronous error since the last Synchronize
}

var _ backend.Stream = (*stream)(nil)

var errStreamClosed = &errors.Error{Backend: Name, Op: "stream", Category: errors.Closed, Msg: "stream is closed", Hint: "create a new stream with Device.NewStream"}

func (s *stream) usableLocked() error {
	if s.closed {
		return errStreamClosed
	}
	return s.d.usableLocked()
}

// own returns b as a buffer of this stream's device.
func (s *stream) own(op string, b backend.Buffer) (*buffer, error) {
	bb, ok := b.(*buffer)
	if !ok || bb == nil {
		return nil, errors.E(errors.InvalidArgument, Name, op, "buffer %T does not belong to the WebGPU backend", b)
	}
	if bb.d != s.d {
		return nil, errors.E(errors.InvalidArgument, Name, op, "the buffer belongs to another WebGPU device")
	}
	return bb, nil
}

// Write enqueues a copy of src to dst at off. The queue stages src at once,
// so src may be reused when Write returns. Whole 32-bit words go through the
// queue's buffer write; a partial word at either end is merged into the
// buffer by a one-thread kernel, in stream order.
func (s *stream) Write(dst backend.Buffer, off int64, src []byte) error {
	const op = "write"
	b, err := s.own(op, dst)
	if err != nil || len(src) == 0 {
		return err
	}
	d := s.d
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := s.usableLocked(); err != nil {
		return err
	}
	// Queue writes run before the command buffers of the next submission:
	// submit the work enqueued before this write first.
	if err := d.flushLocked(); err != nil {
		return err
	}
	o, n := uint64(off), uint64(len(src))
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
	d.touchLocked(s)
	d.afterWorkLocked()
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
	const op = "read"
	b, err := s.own(op, src)
	if err != nil || len(dst) == 0 {
		return err
	}
	d := s.d
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := s.usableLocked(); err != nil {
		return err
	}
	o, n := uint64(off), uint64(len(dst))
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
	d.touchLocked(s)
	d.afterWorkLocked()
	return nil
}

// Copy enqueues a device-to-device copy: on a GPU a vec4 copy kernel where
// offsets and size are multiples of 16 (on NVIDIA the queue's copy command
// runs at a third of that speed), else the queue's copy command for whole
// words between two buffers (always, on software adapters), and a byte-copy
// kernel for the rest (and for copies within one buffer, which WebGPU's copy
// command refuses).
func (s *stream) Copy(dst backend.Buffer, dstOff int64, src backend.Buffer, srcOff, n int64) error {
	const op = "copy"
	db, err := s.own(op, dst)
	if err != nil {
		return err
	}
	sb, err := s.own(op, src)
	if err != nil || n == 0 {
		return err
	}
	d := s.d
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := s.usableLocked(); err != nil {
		return err
	}
	aligned := dstOff%4 == 0 && srcOff%4 == 0 && n%4 == 0
	switch {
	case db != sb && aligned && d.info.Type == backend.TypeSoftware:
		// On a CPU the queue's copy is a memcpy, faster than any kernel.
		err = d.encodeLocked(op, errors.InvalidArgument, func(enc *wgpu.CommandEncoder) error {
			return enc.TryCopyBufferToBuffer(sb.buf, uint64(srcOff), db.buf, uint64(dstOff), uint64(n))
		})
	case dstOff%16 == 0 && srcOff%16 == 0 && n%16 == 0 && d.storageAlign%16 == 0:
		err = d.copyVec4Locked(op, db, uint64(dstOff), sb, uint64(srcOff), uint64(n))
	case db != sb && aligned:
		err = d.encodeLocked(op, errors.InvalidArgument, func(enc *wgpu.CommandEncoder) error {
			return enc.TryCopyBufferToBuffer(sb.buf, uint64(srcOff), db.buf, uint64(dstOff), uint64(n))
		})
	default:
		err = d.copyBytesLocked(op, db, uint64(dstOff), sb, uint64(srcOff), uint64(n))
	}
	if err != nil {
		return err
	}
	d.touchLocked(s)
	d.afterWorkLocked()
	return nil
}

// Fill enqueues setting n bytes at off (both multiples of 4) to the repeated
// value v: the queue's clear command for 0, a fill kernel otherwise.
func (s *stream) Fill(dst backend.Buffer, off, n int64, v uint32) error {
	const op = "fill"
	b, err := s.own(op, dst)
	if err != nil || n == 0 {
		return err
	}
	d := s.d
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := s.usableLocked(); err != nil {
		return err
	}
	if v == 0 {
		err = d.encodeLocked(op, errors.InvalidArgument, func(enc *wgpu.CommandEncoder) error {
			return enc.TryClearBuffer(b.buf, uint64(off), uint64(n))
		})
	} else {
		err = d.fillWordsLocked(op, b, uint64(off), uint64(n), v)
	}
	if err != nil {
		return err
	}
	d.touchLocked(s)
	d.afterWorkLocked()
	return nil
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
	if err := s.usableLocked(); err != nil {
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
	if err := d.recordTimestampLocked(e); err != nil {
		return nil, err
	}
	d.newEvts = append(d.newEvts, e)
	return e, nil
}

// Wait orders the stream after e. All streams of a device share one queue
// in enqueue order, so work enqueued after Wait already runs after e.
func (s *stream) Wait(ev backend.Event) error {
	e, ok := ev.(*event)
	if !ok || e == nil {
		return errors.E(errors.InvalidArgument, Name, "wait", "event %T does not belong to the WebGPU backend", ev)
	}
	if e.d != s.d {
		return errors.E(errors.InvalidArgument, Name, "wait", "the event belongs to another WebGPU device")
	}
	s.d.mu.Lock()
	defer s.d.mu.Unlock()
	return s.usableLocked()
}

// Synchronize submits the pending work and waits until the stream's work
// has run and its downloads have landed.
func (s *stream) Synchronize(ctx context.Context) error {
	d := s.d
	d.mu.Lock()
	if err := s.usableLocked(); err != nil {
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

// Close waits (up to 30 s) for the stream's work, then closes it.
func (s *stream) Close() error {
	d := s.d
	d.mu.Lock()
	if s.closed {
		d.mu.Unlock()
		return nil
	}
	if d.closed {
		s.closed = true
		d.mu.Unlock()
		return nil
	}
	_ = d.flushLocked()
	target := s.seq
	d.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), closeWait)
	defer cancel()
	_ = d.wait(ctx, "close stream", func() bool { return d.completed.Load() >= target && s.reads == 0 })
	d.mu.Lock()
	s.closed = true
	d.mu.Unlock()
	return nil
}
