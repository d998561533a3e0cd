//go:build (darwin || freebsd || linux || netbsd || windows) && (amd64 || arm64)

package vulkan

import (
	"context"
	"time"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/backend/vulkan/internal/vk"
	"github.com/anygpu/gpu/errors"
)

// event is a point in a stream: the stream's timeline value of the batch it
// was recorded in, and a timestamp query written when the work before it is
// done.
type event struct {
	s      *stream
	value  uint64
	ts     bool // has a timestamp
	slot   querySlot
	tsMask uint64 // timestampValidBits of the queue, as a mask
}

var _ backend.Event = (*event)(nil)

// Record enqueues a timestamp and returns the event of this point.
func (s *stream) Record() (backend.Event, error) {
	if err := s.enter("record"); err != nil {
		return nil, err
	}
	defer s.leave()
	lane := laneCompute
	if s.cur != nil {
		lane = s.cur.lane
	} else if s.lastLane >= 0 {
		lane = s.lastLane
	}
	if q := s.q[lane]; q == nil || q.tsBits == 0 || (!s.d.hostReset && !q.compute) {
		// No timestamps there, or queries would need a reset command,
		// which a transfer-only queue cannot record.
		lane = laneCompute
	}
	b, err := s.recordLocked(lane)
	if err != nil {
		return nil, err
	}
	e := &event{s: s, value: b.value}
	if bits := s.q[b.lane].tsBits; bits > 0 {
		slot, err := s.d.queries.get()
		if err != nil {
			return nil, err
		}
		if !s.d.hostReset {
			s.d.vd.CmdResetQueryPool(&s.args, b.cb, slot.pool, slot.idx, 1)
		}
		s.d.vd.CmdWriteTimestamp(&s.args, b.cb, vk.PipelineStageBottomOfPipeBit, slot.pool, slot.idx)
		e.ts, e.slot = true, slot
		e.tsMask = ^uint64(0)
		if bits < 64 {
			e.tsMask = 1<<bits - 1
		}
	}
	return e, s.doneLocked(b, 0)
}

// Wait makes the work enqueued after it wait for e. Across streams it is a
// wait on e's timeline semaphore at the next submission; in fence mode the
// host waits for e.
func (s *stream) Wait(ev backend.Event) error {
	e := ev.(*event) // the root passes only open events of this device
	if e.s == s {
		return nil // the stream's own order already puts e first
	}
	d := s.d
	d.mu.RLock()
	defer d.mu.RUnlock()
	if err := d.usable("wait"); err != nil {
		return err
	}
	if !d.timeline {
		return e.synchronize(context.Background(), true)
	}
	p := e.s
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil // a closed stream finished its work
	}
	if err := p.flushUpToLocked(e.value); err != nil {
		p.mu.Unlock()
		return err
	}
	if p.completedLocked() >= e.value {
		p.mu.Unlock()
		return nil
	}
	sem := p.sem
	p.mu.Unlock()

	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return &errors.Error{Backend: Name, Op: "wait", Category: errors.Closed, Msg: "stream is closed", Hint: "create a new stream"}
	}
	lane := laneCompute
	if s.cur != nil {
		lane = s.cur.lane
	}
	b, err := s.openLocked(lane)
	if err != nil {
		return err
	}
	b.waits = append(b.waits, semWait{sem, e.value})
	return nil
}

// flushUpToLocked submits the open batch if it holds value v.
func (s *stream) flushUpToLocked(v uint64) error {
	if s.cur != nil && s.cur.value <= v {
		return s.flushLocked()
	}
	return nil
}

// Synchronize waits until the event completes, then finishes the stream's
// work up to it (staged reads before it reach their slices).
func (e *event) Synchronize(ctx context.Context) error {
	d := e.s.d
	d.mu.RLock()
	defer d.mu.RUnlock()
	if err := d.usable("event synchronize"); err != nil {
		return err
	}
	return e.synchronize(ctx, false)
}

// synchronize: d.mu is held.
func (e *event) synchronize(ctx context.Context, background bool) error {
	s := e.s
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	err := s.flushUpToLocked(e.value)
	s.mu.Unlock()
	if err != nil {
		return err
	}
	if background {
		ctx = context.Background()
	}
	if err := s.waitValue(ctx, e.value); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed {
		s.retireLocked(e.value)
	}
	return nil
}

// Done reports whether the event completed, submitting its batch if it was
// still being recorded.
func (e *event) Done() (bool, error) {
	s := e.s
	if s.known.Load() >= e.value {
		return true, nil
	}
	d := s.d
	d.mu.RLock()
	defer d.mu.RUnlock()
	if err := d.usable("event query"); err != nil {
		return false, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return true, nil
	}
	if err := s.flushUpToLocked(e.value); err != nil {
		return false, err
	}
	if s.completedLocked() >= e.value {
		return true, nil
	}
	if s.err != nil && errors.IsFatal(s.err) {
		return false, s.err
	}
	return false, nil
}

// Elapsed is the device time between start and e, from their timestamps.
func (e *event) Elapsed(start backend.Event) (time.Duration, error) {
	st := start.(*event) // the root passes only open events of this device
	if !e.ts || !st.ts {
		return 0, &errors.Error{Backend: Name, Op: "elapsed", Category: errors.NotSupported,
			Msg:  "the queue family has no timestamps (timestampValidBits is 0)",
			Hint: "time on the host around a Synchronize instead"}
	}
	for _, x := range []*event{st, e} {
		done, err := x.Done()
		if err != nil {
			return 0, err
		}
		if !done {
			return 0, &errors.Error{Backend: Name, Op: "elapsed", Category: errors.InvalidArgument,
				Msg: "the event has not completed", Hint: "synchronize both events before asking for the time between them"}
		}
	}
	d := e.s.d
	d.mu.RLock()
	defer d.mu.RUnlock()
	if err := d.usable("elapsed"); err != nil {
		return 0, err
	}
	var t0, t1 uint64
	if r := d.vd.QueryResult64(st.slot.pool, st.slot.idx, &t0); r != vk.Success {
		return 0, d.check(r, "elapsed: read timestamp")
	}
	if r := d.vd.QueryResult64(e.slot.pool, e.slot.idx, &t1); r != vk.Success {
		return 0, d.check(r, "elapsed: read timestamp")
	}
	ticks := int64((t1 - t0) & e.tsMask)
	if e.tsMask != ^uint64(0) && ticks > int64(e.tsMask/2) {
		ticks -= int64(e.tsMask) + 1 // start after end, modulo the counter width
	}
	return time.Duration(float64(ticks) * d.tsPeriod), nil
}

// Close frees the event's query once the GPU is done with it.
func (e *event) Close() error {
	if e.ts {
		e.s.d.whileOpen(e.releaseQuery)
	}
	return nil
}

// releaseQuery frees the event's timestamp query, or hands it to the batch
// that writes it. d.mu is held.
func (e *event) releaseQuery() {
	s, d := e.s, e.s.d
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || s.known.Load() >= e.value {
		d.queries.put(e.slot)
		return
	}
	// Still queued: the batch that writes it frees it when it retires.
	if s.cur != nil && s.cur.value == e.value {
		s.cur.queries = append(s.cur.queries, e.slot)
		return
	}
	for _, b := range s.inflight {
		if b.value == e.value {
			b.queries = append(b.queries, e.slot)
			return
		}
	}
	d.queries.put(e.slot)
}
