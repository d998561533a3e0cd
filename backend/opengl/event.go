//go:build linux

package opengl

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/backend/opengl/internal/gl"
	"github.com/anygpu/gpu/errors"
)

// event is a fence plus a GL_TIMESTAMP query, completed by the context's
// thread once the fence signals.
type event struct {
	dev  *device
	s    *stream
	ch   chan struct{} // closed when done
	done atomic.Bool
	// owned by the context's thread until done
	sync  uintptr
	query uint32
	ts    uint64 // GPU time in ns, valid when done and timed
	timed bool
}

var _ backend.Event = (*event)(nil)

func newEvent(s *stream) *event {
	return &event{dev: s.dev, s: s, ch: make(chan struct{}), timed: s.dev.lim.timestampBits > 0}
}

func (e *event) wait(ctx context.Context, op string) error {
	if e.done.Load() {
		return nil
	}
	select {
	case <-e.ch:
		return nil
	case <-ctx.Done():
		return errors.Wrap(ctx.Err(), Name, op)
	case <-e.dev.exited:
		select {
		case <-e.ch:
			return nil
		default:
			return errDeviceClosed
		}
	}
}

// Synchronize waits until the event completes or ctx ends.
func (e *event) Synchronize(ctx context.Context) error { return e.wait(ctx, "event synchronize") }

// Done reports whether the context's thread has seen the event complete; it
// makes no GL call.
func (e *event) Done() (bool, error) { return e.done.Load(), nil }

// Elapsed is the GPU time between the two events' timestamps.
func (e *event) Elapsed(start backend.Event) (time.Duration, error) {
	s := start.(*event)
	if !s.done.Load() || !e.done.Load() {
		return 0, &errors.Error{Backend: Name, Op: "elapsed", Category: errors.InvalidArgument,
			Msg: "event has not completed yet", Hint: "synchronize both events before asking for the time between them"}
	}
	if !s.timed || !e.timed {
		return 0, &errors.Error{Backend: Name, Op: "elapsed", Category: errors.NotSupported,
			Msg: "the driver has no GL_TIMESTAMP counter", Hint: "time on the host instead"}
	}
	return time.Duration(int64(e.ts - s.ts)), nil
}

// Close releases nothing: the context's thread recycles the fence and query
// when the event completes.
func (e *event) Close() error { return nil }

// record issues e's timestamp query (when timed) and fence.
func (t *thread) record(e *event, timed bool) {
	if timed && t.dev.lim.timestampBits > 0 {
		if len(t.queries) == 0 {
			ids := make([]uint32, 64)
			t.gl.GenQueries(ids)
			t.queries = append(t.queries, ids...)
		}
		e.query = t.queries[len(t.queries)-1]
		t.queries = t.queries[:len(t.queries)-1]
		t.gl.QueryCounter(e.query, gl.Timestamp)
	}
	e.sync = t.gl.FenceSync()
	t.dirty = true
	if e.sync == 0 {
		if e.s != nil {
			e.s.note(t.check("record"))
		}
		t.complete(e)
		return
	}
	t.pending = append(t.pending, e)
}

// poll completes, in order, the pending events whose fences have signaled.
func (t *thread) poll() {
	n := 0
	for _, e := range t.pending {
		r := t.gl.ClientWaitSync(e.sync, 0, 0)
		if r == gl.TimeoutExpired {
			break
		}
		if r == gl.WaitFailed && e.s != nil {
			e.s.note(t.check("wait for fence"))
		}
		t.complete(e)
		n++
	}
	if n > 0 {
		rest := copy(t.pending, t.pending[n:])
		clear(t.pending[rest:])
		t.pending = t.pending[:rest]
	}
}

// complete reads e's timestamp, recycles its query and fence, and marks it
// done.
func (t *thread) complete(e *event) {
	if e.query != 0 {
		t.gl.QueryResult64(e.query, gl.QueryResult, &t.u64)
		e.ts = t.u64
		t.queries = append(t.queries, e.query)
		e.query = 0
	}
	if e.sync != 0 {
		t.gl.DeleteSync(e.sync)
		e.sync = 0
	}
	e.done.Store(true)
	close(e.ch)
}
