//go:build cgo

package webgpu

import (
	"context"
	"encoding/binary"
	"slices"
	"sync/atomic"
	"time"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/errors"
	"github.com/oliverbestmann/webgpu/wgpu"
)

// event is a point in the device's queue. It is complete when the
// submission holding it is (the queue's work-done callback reports
// submissions). Its time is a GPU timestamp written by an empty compute pass
// when the adapter has timestamp queries, else the host clock when the
// work-done callback ran (HostTimed). The root package closes it once, and
// compares only events of one device.
type event struct {
	d *device
	// Guarded by d.mu.
	seq       uint64 // submission holding the event; 0 until submitted
	slot      int    // timestamp query slot, -1 when none
	ticks     uint64 // the GPU timestamp, once fetched
	haveTicks bool
	fromTail  bool // its time is the tail stamp's (tailstamp.go)

	host     bool // timed on the host clock
	hostAt   atomic.Int64
	hostDone atomic.Bool
}

var _ backend.Event = (*event)(nil)

// HostTimed reports whether the event's time comes from the host clock (the
// adapter has no timestamp queries) rather than from the GPU: the time when
// the host saw the work complete, up to a poll interval late.
func (e *event) HostTimed() bool { return e.host }

var epoch = time.Now()

func hostNow() time.Duration { return time.Since(epoch) }

func (e *event) doneLocked() bool {
	if e.host {
		return e.hostDone.Load()
	}
	return e.seq != 0 && e.d.completed.Load() >= e.seq
}

func (e *event) Synchronize(ctx context.Context) error {
	d := e.d
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		return errDeviceClosed
	}
	if e.seq == 0 && !e.host {
		_ = d.flushLocked()
	}
	d.mu.Unlock()
	return d.wait(ctx, "event synchronize", e.doneLocked)
}

func (e *event) Done() (bool, error) {
	d := e.d
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return false, errDeviceClosed
	}
	if e.seq == 0 && !e.host {
		_ = d.flushLocked()
	}
	if !e.doneLocked() {
		d.pollLocked()
	}
	if err := d.lostErr.Load(); err != nil {
		return false, err
	}
	return e.doneLocked(), nil
}

// Elapsed returns the time from start to e. With timestamp queries it reads
// both GPU timestamps back (with those of other completed events, in one
// download).
func (e *event) Elapsed(start backend.Event) (time.Duration, error) {
	const op = "elapsed"
	s, d := start.(*event), e.d
	d.mu.Lock()
	if !s.doneLocked() || !e.doneLocked() {
		d.pollLocked()
	}
	done := s.doneLocked() && e.doneLocked()
	d.mu.Unlock()
	if !done {
		return 0, errors.E(errors.InvalidArgument, Name, op, "event has not completed yet: synchronize it first")
	}
	if e.host || s.host {
		return max(time.Duration(e.hostAt.Load()-s.hostAt.Load()), 0), nil
	}
	if err := d.fetchTicks(context.Background(), s, e); err != nil {
		return 0, err
	}
	d.mu.Lock()
	t0, t1 := s.ticks, e.ticks
	d.mu.Unlock()
	if t1 <= t0 {
		return 0, nil
	}
	return time.Duration(float64(t1-t0) * d.tsPeriod), nil
}

// Close gives the event's timestamp slot back.
func (e *event) Close() error {
	d := e.d
	d.mu.Lock()
	defer d.mu.Unlock()
	d.ts.freeLocked(e)
	return nil
}

// timestampSlots hands out the query slots events write their timestamps
// to: query sets of tsChunk slots, each resolved into its own buffer at
// 256-byte steps (WebGPU's resolve alignment).
type timestampSlots struct {
	sets     []*wgpu.QuerySet
	resolved []*wgpu.Buffer
	free     []int
	live     map[*event]struct{} // events holding a slot
	// unresolved are the slots written in the pending batch, resolved
	// together after the batch's work (resolveLocked), so that no resolve
	// runs between an event and the work it times.
	unresolved []int
}

const (
	tsChunk     = 1024
	tsMaxChunks = 64
	tsStride    = 256
)

func (t *timestampSlots) freeLocked(e *event) {
	if e.slot >= 0 {
		// A slot handed out again must not get this event's time.
		t.unresolved = slices.DeleteFunc(t.unresolved, func(s int) bool { return s == e.slot })
		t.free = append(t.free, e.slot)
		e.slot = -1
	}
	delete(t.live, e)
}

func (t *timestampSlots) release() {
	for _, q := range t.sets {
		q.Release()
	}
	for _, b := range t.resolved {
		b.Release()
	}
	*t = timestampSlots{}
}

// allocLocked returns a free slot, adding a query set when none is left.
func (t *timestampSlots) allocLocked(d *device) (int, error) {
	if len(t.free) == 0 {
		if len(t.sets) >= tsMaxChunks {
			return -1, errors.E(errors.OutOfMemory, Name, "record", "%d events are open: close events that are no longer needed", tsChunk*tsMaxChunks)
		}
		var qs *wgpu.QuerySet
		var rb *wgpu.Buffer
		err := d.call("record", errors.Execution, func() error {
			var err error
			if qs, err = d.dev.TryCreateQuerySet(&wgpu.QuerySetDescriptor{Label: "anygpu events", Type: wgpu.QueryTypeTimestamp, Count: tsChunk}); err != nil {
				return err
			}
			rb, err = d.dev.TryCreateBuffer(&wgpu.BufferDescriptor{
				Label: "anygpu timestamps", Size: tsChunk * tsStride, Usage: wgpu.BufferUsageQueryResolve | wgpu.BufferUsageCopySrc | wgpu.BufferUsageCopyDst,
			})
			return err
		})
		if err != nil {
			if qs != nil {
				qs.Release()
			}
			if rb != nil {
				rb.Release()
			}
			return -1, err
		}
		base := len(t.sets) * tsChunk
		t.sets = append(t.sets, qs)
		t.resolved = append(t.resolved, rb)
		for i := tsChunk - 1; i >= 0; i-- {
			t.free = append(t.free, base+i)
		}
	}
	slot := t.free[len(t.free)-1]
	t.free = t.free[:len(t.free)-1]
	return slot, nil
}

// recordTimestampLocked encodes e's timestamp: an empty compute pass whose
// beginning writes the GPU clock (after all work before it) into e's slot,
// resolved into the slot's place in the resolve buffer.
func (d *device) recordTimestampLocked(e *event) error {
	slot, err := d.ts.allocLocked(d)
	if err != nil {
		return err
	}
	qs := d.ts.sets[slot/tsChunk]
	idx := uint32(slot % tsChunk)
	err = d.encodeLocked("record", errors.Execution, func(enc *wgpu.CommandEncoder) error {
		pass := enc.BeginComputePass(&wgpu.ComputePassDescriptor{TimestampWrites: &wgpu.PassTimestampWrites{
			QuerySet: qs, BeginningOfPassWriteIndex: idx, EndOfPassWriteIndex: wgpu.QuerySetIndexUndefined,
		}})
		err := pass.TryEnd()
		pass.Release()
		return err
	})
	if err != nil {
		d.ts.free = append(d.ts.free, slot)
		return err
	}
	d.ts.unresolved = append(d.ts.unresolved, slot)
	e.slot = slot
	if d.ts.live == nil {
		d.ts.live = map[*event]struct{}{}
	}
	d.ts.live[e] = struct{}{}
	return nil
}

// resolveLocked adds to the pending batch, as its last command buffer, the
// resolves of the timestamps its events wrote; flushLocked calls it before
// submitting. A failure is the device's asynchronous error: those events'
// times are lost.
func (d *device) resolveLocked() {
	if len(d.ts.unresolved) == 0 {
		return
	}
	err := d.call("record", errors.Execution, func() error {
		enc, err := d.dev.TryCreateCommandEncoder(nil)
		if err != nil {
			return err
		}
		defer enc.Release()
		for _, slot := range d.ts.unresolved {
			idx := uint32(slot % tsChunk)
			if err := enc.TryResolveQuerySet(d.ts.sets[slot/tsChunk], idx, 1, d.ts.resolved[slot/tsChunk], uint64(idx)*tsStride); err != nil {
				return err
			}
		}
		return d.finishLocked(enc)
	})
	d.ts.unresolved = d.ts.unresolved[:0]
	if err != nil {
		d.errMu.Lock()
		d.uncapErrs = append(d.uncapErrs, err)
		d.errMu.Unlock()
	}
}

// fetchTicks downloads the timestamps of the given completed events, and of
// up to 512 other completed events whose timestamps nobody read yet.
func (d *device) fetchTicks(ctx context.Context, want ...*event) error {
	const op = "elapsed"
	d.mu.Lock()
	var list []*event
	in := map[*event]bool{}
	for _, e := range want {
		if e.haveTicks || in[e] {
			continue
		}
		if e.slot < 0 {
			d.mu.Unlock()
			return errors.E(errors.InvalidArgument, Name, op, "the event was closed before its time was read")
		}
		list, in[e] = append(list, e), true
	}
	if len(list) == 0 {
		d.mu.Unlock()
		return nil
	}
	for e := range d.ts.live {
		if len(list) >= 512 {
			break
		}
		if !in[e] && !e.haveTicks && e.slot >= 0 && e.doneLocked() {
			list, in[e] = append(list, e), true
		}
	}
	size := uint64(8 * len(list))
	staging, class, err := d.acquireStagingLocked(op, size)
	if err != nil {
		d.mu.Unlock()
		return err
	}
	err = d.encodeLocked(op, errors.Execution, func(enc *wgpu.CommandEncoder) error {
		for j, e := range list {
			rb := d.ts.resolved[e.slot/tsChunk]
			if err := enc.TryCopyBufferToBuffer(rb, uint64(e.slot%tsChunk)*tsStride, staging, uint64(8*j), 8); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		d.releaseStagingLocked(staging, class)
		d.mu.Unlock()
		return err
	}
	r := &pendingRead{dst: make([]byte, size), staging: staging, class: class, size: size}
	d.toMap = append(d.toMap, r)
	_ = d.flushLocked()
	d.mu.Unlock()
	if err := d.wait(ctx, op, func() bool { return r.done }); err != nil {
		return err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if r.err != nil {
		return r.err
	}
	for j, e := range list {
		e.ticks = binary.LittleEndian.Uint64(r.dst[8*j:])
		e.haveTicks = true
		d.ts.freeLocked(e)
	}
	return nil
}
