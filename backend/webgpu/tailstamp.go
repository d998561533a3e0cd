//go:build cgo

package webgpu

import (
	"github.com/anygpu/gpu/errors"
	"github.com/oliverbestmann/webgpu/wgpu"
)

// An event recorded right after long work was submitted would get its
// timestamp from a submission of its own, which the device reaches only when
// the host has encoded and submitted it: if the work before it ends sooner,
// the device idles until then, and the event's time counts the host's
// submission round trip through wgpu as device time (a 256 MiB device copy
// on an H200 takes about 130 µs, less than that round trip). So a
// submission that holds long work (a copy, fill or transfer chunk of a
// megabyte or more) ends with a timestamp of its own, the tail stamp, and an
// event recorded while that submission is the last one and nothing has been
// enqueued since takes the tail stamp's time: when the device finished all
// the work before the event (a copy of the stamp into the event's slot, in
// stream order). Time the device then spends idle, waiting for the host,
// falls after the event rather than before it.

// longWork is the least bytes an operation moves to count as long work.
const longWork = 1 << 20

// tailStamp is the query slot and resolve buffer of the tail stamp.
type tailStamp struct {
	set *wgpu.QuerySet
	buf *wgpu.Buffer
	seq uint64 // the submission whose end the stamp holds; 0 when none
}

// noteLongWorkLocked marks the pending batch as holding an operation of
// bytes bytes: a long one makes the batch's submission end with the tail
// stamp.
func (d *device) noteLongWorkLocked(bytes uint64) {
	if bytes >= longWork && d.timestamps {
		d.stampTail = true
	}
}

// encodeTailLocked adds the tail stamp's pass to the pending batch, as its
// last command buffer; flushLocked calls it before submitting a batch that
// holds long work. It reports whether the stamp was encoded.
func (d *device) encodeTailLocked() bool {
	t := &d.tail
	if t.set == nil {
		err := d.call("record", errors.Execution, func() error {
			var err error
			if t.set, err = d.dev.TryCreateQuerySet(&wgpu.QuerySetDescriptor{Label: "anygpu tail stamp", Type: wgpu.QueryTypeTimestamp, Count: 1}); err != nil {
				return err
			}
			t.buf, err = d.dev.TryCreateBuffer(&wgpu.BufferDescriptor{
				Label: "anygpu tail stamp", Size: tsStride, Usage: wgpu.BufferUsageQueryResolve | wgpu.BufferUsageCopySrc,
			})
			return err
		})
		if err != nil {
			t.release()
			return false
		}
	}
	err := d.call("record", errors.Execution, func() error {
		enc, err := d.dev.TryCreateCommandEncoder(nil)
		if err != nil {
			return err
		}
		defer enc.Release()
		pass := enc.BeginComputePass(&wgpu.ComputePassDescriptor{TimestampWrites: &wgpu.PassTimestampWrites{
			QuerySet: t.set, BeginningOfPassWriteIndex: 0, EndOfPassWriteIndex: wgpu.QuerySetIndexUndefined,
		}})
		err = pass.TryEnd()
		pass.Release()
		if err != nil {
			return err
		}
		if err := enc.TryResolveQuerySet(t.set, 0, 1, t.buf, 0); err != nil {
			return err
		}
		return d.finishLocked(enc)
	})
	return err == nil
}

// pendingEmptyLocked reports whether nothing has been enqueued since the
// last submission.
func (d *device) pendingEmptyLocked() bool {
	return d.enc == nil && len(d.cmds) == 0 && len(d.params) == d.paramsSent && !d.dirty && len(d.toMap) == 0 && len(d.newEvts) == 0
}

// recordFromTailLocked gives e the tail stamp's time when the last
// submission ended with the tail stamp and nothing has been enqueued since;
// it reports whether it did.
func (d *device) recordFromTailLocked(e *event) (bool, error) {
	t := &d.tail
	if t.seq == 0 || t.seq != d.seq || !d.pendingEmptyLocked() {
		return false, nil
	}
	slot, err := d.ts.allocLocked(d)
	if err != nil {
		return false, err
	}
	rb := d.ts.resolved[slot/tsChunk]
	idx := uint64(slot % tsChunk)
	err = d.encodeLocked("record", errors.Execution, func(enc *wgpu.CommandEncoder) error {
		return enc.TryCopyBufferToBuffer(t.buf, 0, rb, idx*tsStride, 8)
	})
	if err != nil {
		d.ts.free = append(d.ts.free, slot)
		return false, err
	}
	e.slot, e.fromTail = slot, true
	if d.ts.live == nil {
		d.ts.live = map[*event]struct{}{}
	}
	d.ts.live[e] = struct{}{}
	return true, nil
}

// release releases the tail stamp's query set and buffer.
func (t *tailStamp) release() {
	if t.set != nil {
		t.set.Release()
	}
	if t.buf != nil {
		t.buf.Release()
	}
	*t = tailStamp{}
}
