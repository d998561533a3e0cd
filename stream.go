package gpu

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/errors"
	"github.com/anygpu/gpu/profiling"
)

// Stream is an ordered queue of device work. Its methods enqueue and return
// at once where the backend can; work on different streams may overlap.
// Errors found while the work runs are returned by the next Synchronize.
// A Stream is safe for concurrent use, though work enqueued from several
// goroutines is ordered only by when each call happened.
//
// A stream works on its own device's objects. Across devices it takes two
// things only: Copy's source buffer and Wait's event may belong to another
// device (see Copy, Wait and OpenAll). Anything else of another device (the
// buffer of Write, Read or Fill, Copy's destination, WriteHost's and
// ReadHost's buffers, a Launch's kernel or buffer arguments) is refused with
// InvalidArgument before anything is enqueued.
type Stream struct {
	dev       *Device
	impl      backend.Stream
	id        int
	isDefault bool
	pooled    bool // from Device.Streams: Close hands the native stream back for reuse
	closed    atomic.Bool
	gate      gate // Close drains it: see gate

	// capture is the recording in progress (BeginCapture), nil when none;
	// captureMu serialises BeginCapture, EndCapture and discardCapture.
	capture   atomic.Pointer[capture]
	captureMu sync.Mutex

	// Launch's reused argument slice, for backends that copy the arguments
	// (backend.ArgsCopier, looked up once: copiesArgs); argBusy marks it
	// taken by a launch in progress. It holds maxScratchArgs: enough for
	// package tensor's kernels (a broadcast element-wise op takes 27).
	copiesArgs bool
	argBusy    atomic.Bool
	argScratch [maxScratchArgs]backend.Arg
}

// maxScratchArgs is the most arguments a launch takes without allocating.
const maxScratchArgs = 48

// ID numbers the streams of a device; the default stream is 0 (and so is a
// nil stream).
func (s *Stream) ID() int {
	if s == nil {
		return 0
	}
	return s.id
}

// Device is the device the stream belongs to (nil for a nil stream).
func (s *Stream) Device() *Device {
	if s == nil {
		return nil
	}
	return s.dev
}

// NativeHandle returns the backend's handle for the stream (a CUstream, ...)
// where the backend exposes one, for native libraries that enqueue work on it
// (NCCL). Work they enqueue is ordered with the stream's own.
func (s *Stream) NativeHandle() (uintptr, error) {
	const op = "native handle"
	if err := s.usable(op); err != nil {
		return 0, err
	}
	if h, ok := s.impl.(backend.NativeHandle); ok {
		return h.NativeHandle(), nil
	}
	return 0, s.dev.errorf(errors.NotSupported, op, "the %s backend exposes no stream handle", s.dev.backend)
}

// enter admits a call into the stream's backend object: nil when s is
// usable, and then the caller holds the stream's gate until leave.
func (s *Stream) enter(op string) error {
	if s == nil {
		return errorf(errors.InvalidArgument, op, "nil stream")
	}
	s.gate.enter()
	if err := s.usable(op); err != nil {
		s.gate.leave()
		return err
	}
	return nil
}

// leave ends a call that enter admitted.
func (s *Stream) leave() { s.gate.leave() }

// usable reports why s cannot be used: nil, closed, or its device unusable.
func (s *Stream) usable(op string) error {
	if s == nil {
		return errorf(errors.InvalidArgument, op, "nil stream")
	}
	return s.dev.usableObject(op, &s.closed, func() string { return fmt.Sprintf("stream %d", s.id) })
}

// own checks that b can be used on this stream's device.
func (s *Stream) own(op, role string, b *Buffer) error {
	if b == nil {
		return s.dev.errorf(errors.InvalidArgument, op, "nil %s buffer", role)
	}
	if b.closed.Load() {
		return s.dev.errorf(errors.Closed, op, "%s buffer is closed", role)
	}
	if b.dev != s.dev {
		return s.dev.errorf(errors.InvalidArgument, op, "%s buffer belongs to %s, the stream to %s", role, b.dev.name, s.dev.name)
	}
	return nil
}

// bufferArgs checks a call that uses one buffer of the stream, which the
// call has entered: b (role says which) is an open buffer of its device, and
// [off, off+n) lies within it.
func (s *Stream) bufferArgs(op, role string, b *Buffer, off, n int64) error {
	if err := s.own(op, role, b); err != nil {
		return err
	}
	return s.rangeErr(op, role, off, n, b)
}

func (s *Stream) rangeErr(op, role string, off, n int64, b *Buffer) error {
	if err := checkRange(off, n, b.size); err != nil {
		return s.dev.errorf(errors.InvalidArgument, op, "%s: %v", role, err)
	}
	return nil
}

// Write copies src to dst at off (host to device). When Write returns, src
// may be reused: backends that cannot copy at once stage src first. An empty
// src is a no-op. dst must belong to the stream's device.
func (s *Stream) Write(dst *Buffer, off int64, src []byte) error {
	const op = "write"
	n := int64(len(src))
	if err := s.enter(op); err != nil {
		return err
	}
	defer s.leave()
	if err := s.refuseCapturing(op, hostMoveWhy); err != nil {
		return err
	}
	if err := s.bufferArgs(op, "destination", dst, off, n); err != nil || n == 0 {
		return err
	}
	err := s.profiled(profiling.KindH2D, "", n, func() error { return s.impl.Write(dst.impl, off, src) })
	return s.account(err, op, kindH2D, n, dst)
}

// Read copies from src at off into dst (device to host). dst is filled when
// the stream reaches this point: do not read or modify it until a
// Synchronize of the stream (or of an event recorded after the Read). src
// must belong to the stream's device.
func (s *Stream) Read(dst []byte, src *Buffer, off int64) error {
	const op = "read"
	n := int64(len(dst))
	if err := s.enter(op); err != nil {
		return err
	}
	defer s.leave()
	if err := s.refuseCapturing(op, hostMoveWhy); err != nil {
		return err
	}
	if err := s.bufferArgs(op, "source", src, off, n); err != nil || n == 0 {
		return err
	}
	err := s.profiled(profiling.KindD2H, "", n, func() error { return s.impl.Read(dst, src.impl, off) })
	return s.account(err, op, kindD2H, n, src)
}

// WriteHost copies n bytes of a host buffer, from srcOff, to dst at dstOff
// without staging: src must stay unchanged until the stream passes this point.
func (s *Stream) WriteHost(dst *Buffer, dstOff int64, src *HostBuffer, srcOff, n int64) error {
	const op = "write host"
	if err := s.enter(op); err != nil {
		return err
	}
	defer s.leave()
	if err := s.refuseCapturing(op, hostMoveWhy); err != nil {
		return err
	}
	if err := s.hostArgs(op, dst, dstOff, src, srcOff, n); err != nil || n == 0 {
		return err
	}
	err := s.profiled(profiling.KindH2D, "", n, func() error {
		if hc, ok := s.impl.(backend.HostCopier); ok {
			return hc.WriteHost(dst.impl, dstOff, src.impl, srcOff, n)
		}
		return s.impl.Write(dst.impl, dstOff, src.Bytes()[srcOff:srcOff+n])
	})
	return s.account(err, op, kindH2D, n, dst)
}

// ReadHost copies n bytes of src, from srcOff, into a host buffer at dstOff.
// dst holds the data once the stream passes this point.
func (s *Stream) ReadHost(dst *HostBuffer, dstOff int64, src *Buffer, srcOff, n int64) error {
	const op = "read host"
	if err := s.enter(op); err != nil {
		return err
	}
	defer s.leave()
	if err := s.refuseCapturing(op, hostMoveWhy); err != nil {
		return err
	}
	if err := s.hostArgs(op, src, srcOff, dst, dstOff, n); err != nil || n == 0 {
		return err
	}
	err := s.profiled(profiling.KindD2H, "", n, func() error {
		if hc, ok := s.impl.(backend.HostCopier); ok {
			return hc.ReadHost(dst.impl, dstOff, src.impl, srcOff, n)
		}
		return s.impl.Read(dst.Bytes()[dstOff:dstOff+n], src.impl, srcOff)
	})
	return s.account(err, op, kindD2H, n, src)
}

// hostArgs checks a call between a device buffer and a host buffer, which
// the call has entered.
func (s *Stream) hostArgs(op string, b *Buffer, bOff int64, h *HostBuffer, hOff, n int64) error {
	if err := s.own(op, "device", b); err != nil {
		return err
	}
	if h == nil {
		return s.dev.errorf(errors.InvalidArgument, op, "nil host buffer")
	}
	if h.closed.Load() {
		return s.dev.errorf(errors.Closed, op, "host buffer is closed")
	}
	if h.dev != s.dev {
		return s.dev.errorf(errors.InvalidArgument, op, "host buffer belongs to %s, the stream to %s", h.dev.name, s.dev.name)
	}
	if err := s.rangeErr(op, "device buffer", bOff, n, b); err != nil {
		return err
	}
	if err := checkRange(hOff, n, h.size); err != nil {
		return s.dev.errorf(errors.InvalidArgument, op, "host buffer: %v", err)
	}
	return nil
}

// Copy copies n bytes from src at srcOff to dst at dstOff. Within one device
// the ranges may not overlap.
//
// Across devices, issue the copy on a stream of the destination's device:
// dst must belong to s's device, src may belong to another (a stream of src's
// device refuses dst with InvalidArgument). Between devices of one backend
// that has a peer copy (CUDA), the copy is enqueued on s and goes peer to
// peer: directly between peers (Device.IsPeer, DeviceInfo.Peers), through
// host memory staged by the driver otherwise. Else (devices of different
// backends, or a backend without a peer copy) Copy stages it through the host
// itself: it reads src on its device's default stream, waits for that, and
// enqueues the write on s, so it returns only once the data has left src
// (counted in Stats.Fallbacks and logged at debug level).
//
// A copy enqueued on s is ordered with s's work only: before it, make s Wait
// for an event of src's device recorded after the work that wrote src; after
// it, record an event on s and make src's device wait for it before it
// overwrites src. A staged copy follows the work on src's default stream
// only.
func (s *Stream) Copy(dst *Buffer, dstOff int64, src *Buffer, srcOff, n int64) error {
	const op = "copy"
	if err := s.enter(op); err != nil {
		return err
	}
	defer s.leave()
	if err := s.own(op, "destination", dst); err != nil {
		return err
	}
	if src == nil {
		return s.dev.errorf(errors.InvalidArgument, op, "nil source buffer")
	}
	if err := src.usable(op); err != nil {
		return s.dev.record(err)
	}
	if err := s.rangeErr(op, "destination", dstOff, n, dst); err != nil {
		return err
	}
	if err := s.rangeErr(op, "source", srcOff, n, src); err != nil {
		return err
	}
	if n == 0 {
		return nil
	}
	if src.dev != s.dev {
		if err := s.refuseCapturing(op, "a copy from another device is not recorded"); err != nil {
			return err
		}
		return s.copyPeer(dst, dstOff, src, srcOff, n)
	}
	if dst == src && srcOff < dstOff+n && dstOff < srcOff+n {
		return s.dev.errorf(errors.InvalidArgument, op, "source [%d, %d) and destination [%d, %d) overlap", srcOff, srcOff+n, dstOff, dstOff+n)
	}
	if c := s.capture.Load(); c != nil {
		return c.record(s, op, nil, []*Buffer{dst, src}, false, graphTransfer{kind: kindD2D, n: n, bufs: [2]*Buffer{dst, src}},
			func(impl backend.Stream) error { return impl.Copy(dst.impl, dstOff, src.impl, srcOff, n) })
	}
	err := s.profiled(profiling.KindD2D, "", n, func() error { return s.impl.Copy(dst.impl, dstOff, src.impl, srcOff, n) })
	if err == nil {
		src.transfers.add(kindD2D, n)
	}
	return s.account(err, op, kindD2D, n, dst)
}

// copyPeer copies from another device's buffer.
func (s *Stream) copyPeer(dst *Buffer, dstOff int64, src *Buffer, srcOff, n int64) error {
	const op = "copy peer"
	if pc, ok := s.impl.(backend.PeerCopier); ok && src.dev.backend == s.dev.backend {
		err := s.profiled(profiling.KindPeer, "", n, func() error { return pc.CopyPeer(dst.impl, dstOff, src.impl, srcOff, n) })
		return s.account(err, op, kindPeer, n, dst)
	}
	// Through the host: read on the source device, then write here.
	s.dev.logger.Debug("anygpu: fallback: peer copy staged through the host", "from", src.dev.name, "to", s.dev.name,
		"bytes", n, "reason", stagedWhy(s.dev, src.dev))
	staging := make([]byte, n)
	rs := src.dev.def
	if err := rs.Read(staging, src, srcOff); err != nil {
		return s.dev.record(err)
	}
	if err := rs.Synchronize(context.Background()); err != nil {
		return s.dev.record(err)
	}
	s.dev.stats.fallbacks.Add(1)
	err := s.profiled(profiling.KindPeer, "staged", n, func() error { return s.impl.Write(dst.impl, dstOff, staging) })
	return s.account(err, op, kindPeer, n, dst)
}

// stagedWhy says why a copy from src's memory to dst's is staged.
func stagedWhy(dst, src *Device) string {
	if src.backend != dst.backend {
		return "different backends (" + src.backend + ", " + dst.backend + ")"
	}
	return "the " + dst.backend + " backend has no peer copy"
}

// Fill sets n bytes of dst at off to the 32-bit value repeated; off and n
// must be multiples of 4. dst must belong to the stream's device.
func (s *Stream) Fill(dst *Buffer, off, n int64, value uint32) error {
	const op = "fill"
	if err := s.enter(op); err != nil {
		return err
	}
	defer s.leave()
	if err := s.bufferArgs(op, "destination", dst, off, n); err != nil {
		return err
	}
	if off%4 != 0 || n%4 != 0 {
		return s.dev.errorf(errors.InvalidArgument, op, "offset %d and size %d must be multiples of 4", off, n)
	}
	if n == 0 {
		return nil
	}
	if c := s.capture.Load(); c != nil {
		return c.record(s, op, nil, []*Buffer{dst}, false, graphTransfer{kind: kindFill, n: n, bufs: [2]*Buffer{dst}},
			func(impl backend.Stream) error { return impl.Fill(dst.impl, off, n, value) })
	}
	err := s.profiled(profiling.KindFill, "", n, func() error { return s.impl.Fill(dst.impl, off, n, value) })
	return s.account(err, op, kindFill, n, dst)
}

// hostMoveWhy is why a capture refuses the transfers of host memory.
const hostMoveWhy = "host memory transfers are not recorded into graphs"

// account updates the ledgers after a successful operation, or records the error.
func (s *Stream) account(err error, op string, kind transferKind, n int64, b *Buffer) error {
	if err != nil {
		return s.dev.wrap(err, op)
	}
	s.dev.stats.transfers.add(kind, n)
	b.transfers.add(kind, n)
	return nil
}

// Record enqueues an event that completes when all work enqueued before it has.
func (s *Stream) Record() (*Event, error) {
	if err := s.enter("record"); err != nil {
		return nil, err
	}
	defer s.leave()
	if err := s.refuseCapturing("record", "events are not recorded into graphs"); err != nil {
		return nil, err
	}
	e, err := s.impl.Record()
	if err != nil {
		return nil, s.dev.wrap(err, "record")
	}
	return &Event{dev: s.dev, impl: e, stream: s.id}, nil
}

// Wait makes work enqueued on s after this call wait until e completes. e may
// come from another stream of the same device, or from another device, of
// this backend or another: then the wait happens on the device where the
// backend can (between CUDA devices), else Wait blocks the caller until e has
// completed, which orders s's later work just the same (a host wait, counted
// in Stats.Fallbacks and logged at debug level; see Several devices in the
// package documentation).
func (s *Stream) Wait(e *Event) error {
	const op = "wait"
	if err := s.enter(op); err != nil {
		return err
	}
	defer s.leave()
	if err := s.refuseCapturing(op, "waits are not recorded into graphs"); err != nil {
		return err
	}
	if err := e.usable(op); err != nil {
		return s.dev.record(err)
	}
	if e.dev != s.dev {
		return s.waitOther(e)
	}
	return s.dev.wrap(s.impl.Wait(e.impl), op)
}

// waitOther makes s wait for e, an event of another device: on the device
// where the backend can (backend.PeerWaiter), else on the host: it returns
// once e has completed, which orders everything s is given afterwards.
func (s *Stream) waitOther(e *Event) error {
	const op = "wait"
	if e.dev.backend == s.dev.backend && e.dev.simulated == s.dev.simulated {
		if pw, ok := s.impl.(backend.PeerWaiter); ok {
			return s.dev.wrap(pw.WaitPeer(e.impl), op)
		}
	}
	s.dev.stats.fallbacks.Add(1)
	s.dev.logger.Debug("anygpu: fallback: waiting on the host for another device's event", "event_device", e.dev.name,
		"stream_device", s.dev.name, "stream", s.id)
	if err := e.impl.Synchronize(context.Background()); err != nil {
		return e.dev.wrap(err, fmt.Sprintf("wait (on the host, for %s's event)", e.dev.name))
	}
	return nil
}

// Synchronize waits for the stream's work or for ctx, and returns the first
// asynchronous error the work met since the last Synchronize.
func (s *Stream) Synchronize(ctx context.Context) error {
	const op = "synchronize"
	if err := s.enter(op); err != nil {
		return err
	}
	if ctx == nil {
		s.leave()
		return s.dev.errorf(errors.InvalidArgument, op, "nil context")
	}
	if err := s.refuseCapturing(op, "its recorded work does not run, so there is nothing to wait for"); err != nil {
		s.leave()
		return err
	}
	err := s.impl.Synchronize(ctx)
	s.leave()
	s.dev.prof.collect()
	if err != nil {
		return s.dev.wrap(err, fmt.Sprintf("stream %d", s.id))
	}
	return nil
}

// Close waits for the stream's work and releases it. Closing the default
// stream does nothing: it lives as long as its device. Closing twice is not
// an error.
func (s *Stream) Close() error {
	if s == nil || s.dev == nil || s.isDefault || !s.closed.CompareAndSwap(false, true) {
		return nil
	}
	s.gate.drain() // no call of another goroutine is inside the backend stream now
	d := s.dev
	err := d.closeChild(func() error {
		if err := s.discardCapture(); err != nil {
			d.logger.Debug("anygpu: closing a capturing stream: discarding the capture", "stream", s.id, "error", err.Error())
		}
		d.mu.Lock()
		delete(d.streams, s)
		d.mu.Unlock()
		if err := s.impl.Synchronize(context.Background()); err != nil {
			d.prof.collect()
			return errors.Join(err, s.impl.Close())
		}
		d.prof.collect()
		if s.pooled && d.keepIdleStream(s.impl) {
			return nil
		}
		return s.impl.Close()
	})
	return d.wrap(err, fmt.Sprintf("close stream %d", s.id))
}
