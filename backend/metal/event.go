//go:build darwin

package metal

import (
	"context"
	"time"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/backend/metal/internal/objc"
	"github.com/anygpu/gpu/errors"
)

// event is a point in a stream: the command buffer of seq, which signals the
// stream's timeline.
//
// Owns: cb (the Record's command buffer, +1, for its GPU timestamps) and
// timeline (the stream's MTLSharedEvent, +1, for other streams' waits, so it
// outlives the stream if need be), released by destroy.
type event struct {
	stream   *stream
	seq      uint64
	cb       objc.ID
	timeline objc.ID
}

var _ backend.Event = (*event)(nil)

// Record commits a command buffer that signals the stream's timeline with
// its seq; the event completes when the stream's work up to it has, and
// carries that command buffer's GPU timestamp. The command buffer also fills
// the stream's 4-byte marker buffer: real GPU work, so that Metal has
// timestamps to report for it (an otherwise empty command buffer might not
// run on the GPU at all), and a buffer of its own per stream, so markers of
// different streams share no resource Metal could order them by.
func (s *stream) Record() (backend.Event, error) {
	var e *event
	err := s.enqueue(func() error {
		var cb objc.ID
		err := s.submit(opRecord, "", 0, func(c objc.ID) error {
			cb = c
			if enc := objc.ID(c.Send(objc.SelBlitCommandEncoder)); enc != 0 {
				objc.FillBuffer(enc, s.marker, 0, 4, 0)
				enc.Send(objc.SelEndEncoding)
			}
			c.Send2(objc.SelEncodeSignalEvent, uintptr(s.timeline), uintptr(s.lastSeq+1))
			return nil
		})
		if err != nil {
			return err
		}
		e = &event{stream: s, seq: s.lastSeq, cb: cb.Retain(), timeline: s.timeline.Retain()}
		s.dev.adopt(e)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return e, nil
}

// Wait makes the stream's later work wait on the GPU for e's stream to reach
// e (encodeWaitForEvent:value:). An event of this stream, or one already
// complete, needs no wait.
func (s *stream) Wait(ev backend.Event) error {
	e, ok := ev.(*event)
	if !ok {
		return errorf(errors.InvalidArgument, "wait", "wait for events of this backend", "event %T does not belong to the Metal backend", ev)
	}
	if e.stream == s || e.stream.completedThrough(e.seq) {
		return nil
	}
	return s.enqueue(func() error {
		return s.submit(opWait, "", e.timeline.Retain(), func(cb objc.ID) error {
			cb.Send2(objc.SelEncodeWaitForEvent, uintptr(e.timeline), uintptr(e.seq))
			return nil
		})
	})
}

// Synchronize waits until the stream's work up to the event has completed,
// or ctx ends.
func (e *event) Synchronize(ctx context.Context) error {
	if err := e.stream.dev.enter(); err != nil {
		return err
	}
	defer e.stream.dev.leave()
	return e.stream.waitThrough(ctx, e.seq, "event synchronize")
}

// Done reports, without waiting, whether the stream's work up to the event
// has completed.
func (e *event) Done() (bool, error) {
	if err := e.stream.dev.enter(); err != nil {
		return false, err
	}
	defer e.stream.dev.leave()
	return e.stream.completedThrough(e.seq), nil
}

// Elapsed is the GPU time from start to e: the difference of the GPU end
// times of their command buffers (host mach time, common to all streams).
func (e *event) Elapsed(start backend.Event) (time.Duration, error) {
	const op = "elapsed"
	st, ok := start.(*event)
	if !ok {
		return 0, errorf(errors.InvalidArgument, op, "time events of this backend", "event %T does not belong to the Metal backend", start)
	}
	if err := e.stream.dev.enter(); err != nil {
		return 0, err
	}
	defer e.stream.dev.leave()
	var t [2]float64
	for i, x := range []*event{st, e} {
		if !x.stream.completedThrough(x.seq) {
			return 0, errorf(errors.InvalidArgument, op, "synchronize both events first", "event has not completed yet")
		}
		v, err := x.gpuTime()
		if err != nil {
			return 0, err
		}
		t[i] = v
	}
	return time.Duration((t[1] - t[0]) * 1e9), nil
}

// gpuTime is when the GPU finished the event's command buffer, in seconds of
// host mach time: GPUEndTime, or GPUStartTime should the end be unset.
func (e *event) gpuTime() (float64, error) {
	if t := e.cb.SendF64(objc.SelGPUEndTime); t > 0 {
		return t, nil
	}
	if t := e.cb.SendF64(objc.SelGPUStartTime); t > 0 {
		return t, nil
	}
	return 0, errorf(errors.NotSupported, "elapsed", "time the work on the host instead",
		"Metal reported no GPU timestamps for the event's command buffer")
}

func (e *event) destroy() {
	e.cb.Release()
	e.timeline.Release()
	e.cb, e.timeline = 0, 0
}

// Close releases the event's command buffer and timeline reference.
func (e *event) Close() error { return e.stream.dev.closeChild(e) }
