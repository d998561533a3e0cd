package cuda

import (
	"context"
	"sync"
	"time"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/backend/cuda/internal/cu"
	"github.com/anygpu/gpu/errors"
)

// event is a CUevent with timing; closed events go back to the device for
// reuse.
type event struct {
	dev    *device
	h      cu.Event
	mu     sync.Mutex
	closed bool
}

var (
	_ backend.Event        = (*event)(nil)
	_ backend.NativeHandle = (*event)(nil)
)

// NativeHandle is the CUevent.
func (e *event) NativeHandle() uintptr { return uintptr(e.h) }

// Synchronize waits for the event, polling while ctx can end.
func (e *event) Synchronize(ctx context.Context) error {
	d, h := e.dev, e.h
	return d.wait(ctx, "event synchronize",
		func(fr *cu.Frame) cu.Result { return d.lib.EventQuery(fr, h) },
		func(fr *cu.Frame) cu.Result { return d.lib.EventSynchronize(fr, h) })
}

// Done is cuEventQuery.
func (e *event) Done() (bool, error) {
	d := e.dev
	fr := framePool.Get().(*cu.Frame)
	defer framePool.Put(fr)
	if err := d.enter(fr, "event query"); err != nil {
		return false, err
	}
	r := d.lib.EventQuery(fr, e.h)
	d.leave()
	switch r {
	case cu.Success:
		return true, nil
	case cu.ErrorNotReady:
		return false, nil
	}
	return false, d.check(r, "event query")
}

// Elapsed is cuEventElapsedTime from start to e.
func (e *event) Elapsed(start backend.Event) (time.Duration, error) {
	const op = "elapsed"
	s, ok := start.(*event)
	if !ok {
		return 0, foreign(op, start)
	}
	if s.dev.ctx != e.dev.ctx {
		return 0, errors.E(errors.InvalidArgument, Name, op, "the events belong to different GPUs: they share no clock")
	}
	d := e.dev
	fr := framePool.Get().(*cu.Frame)
	defer framePool.Put(fr)
	if err := d.enter(fr, op); err != nil {
		return 0, err
	}
	ms, r := d.lib.EventElapsedTime(s.h, e.h)
	d.leave()
	switch r {
	case cu.Success:
		return time.Duration(float64(ms) * float64(time.Millisecond)), nil
	case cu.ErrorNotReady:
		return 0, &errors.Error{Backend: Name, Op: op, Category: errors.InvalidArgument,
			Code: int64(r), Name: r.String(), Msg: "an event has not completed yet", Hint: "synchronize both events first"}
	}
	return 0, d.check(r, op)
}

// Close gives the event back to its device for reuse.
func (e *event) Close() error {
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return nil
	}
	e.closed = true
	e.mu.Unlock()
	d := e.dev
	if d.closed.Load() || d.broken() {
		return nil
	}
	fr := framePool.Get().(*cu.Frame)
	defer framePool.Put(fr)
	if err := d.enter(fr, "close event"); err != nil {
		return nil
	}
	d.giveEvent(e.h)
	d.leave()
	return nil
}
