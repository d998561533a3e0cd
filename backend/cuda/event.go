package cuda

import (
	"context"
	"time"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/backend/cuda/internal/cu"
	"github.com/anygpu/gpu/errors"
)

// event is a CUevent with timing; closed events go back to the device for
// reuse.
type event struct {
	dev *device
	h   cu.Event
}

var (
	_ backend.Event        = (*event)(nil)
	_ backend.NativeHandle = (*event)(nil)
)

// maxFreeEvents bounds the events a device keeps for reuse.
const maxFreeEvents = 1024

// takeEvent returns a timing event, reused when one is free; the caller has
// the context current.
func (d *device) takeEvent() (cu.Event, cu.Result) {
	if e, ok := takeFree(d, &d.events); ok {
		return e, cu.Success
	}
	return d.lib.EventCreate(cu.EventDefault)
}

// giveEvent keeps e for reuse; the caller has the context current.
func (d *device) giveEvent(e cu.Event) {
	if !keepFree(d, &d.events, e, maxFreeEvents) {
		_ = d.lib.EventDestroy(e)
	}
}

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
	var r cu.Result
	err := d.do("event query", func(fr *cu.Frame) cu.Result {
		if r = d.lib.EventQuery(fr, e.h); r == cu.ErrorNotReady {
			return cu.Success
		}
		return r
	})
	return err == nil && r == cu.Success, err
}

// Elapsed is cuEventElapsedTime from start, an event of the same device.
func (e *event) Elapsed(start backend.Event) (time.Duration, error) {
	const op = "elapsed"
	d, s := e.dev, start.(*event)
	var ms float32
	var r cu.Result
	err := d.do(op, func(*cu.Frame) cu.Result {
		if ms, r = d.lib.EventElapsedTime(s.h, e.h); r == cu.ErrorNotReady {
			return cu.Success
		}
		return r
	})
	switch {
	case err != nil:
		return 0, err
	case r == cu.ErrorNotReady:
		return 0, &errors.Error{Backend: Name, Op: op, Category: errors.InvalidArgument,
			Code: int64(r), Name: r.String(), Msg: "an event has not completed yet", Hint: "synchronize both events first"}
	}
	return time.Duration(float64(ms) * float64(time.Millisecond)), nil
}

// Close gives the event back to its device for reuse. After a sticky error
// it does nothing: the driver frees the event with the context.
func (e *event) Close() error {
	d := e.dev
	_ = d.bound("close event", func(*cu.Frame) { d.giveEvent(e.h) })
	return nil
}
