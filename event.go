package gpu

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/errors"
)

// Event marks a point in a stream: it completes when the work enqueued
// before it has. A stream of another device may Wait for it (on the device
// between CUDA devices, on the host otherwise); Elapsed refuses an event of
// another device, which has no common clock.
type Event struct {
	dev    *Device
	impl   backend.Event
	stream int
	closed atomic.Bool
}

// usable reports why e cannot be used: nil, closed, or its device unusable.
func (e *Event) usable(op string) error {
	if e == nil {
		return errorf(errors.InvalidArgument, op, "nil event")
	}
	return e.dev.usableObject(op, &e.closed, func() string { return "event" })
}

// Synchronize waits until the event completes or ctx ends.
func (e *Event) Synchronize(ctx context.Context) error {
	if err := e.usable("event synchronize"); err != nil {
		return err
	}
	if ctx == nil {
		return e.dev.errorf(errors.InvalidArgument, "event synchronize", "nil context")
	}
	return e.dev.wrap(e.impl.Synchronize(ctx), "event synchronize")
}

// Done reports whether the event has completed, without waiting.
func (e *Event) Done() (bool, error) {
	if err := e.usable("event query"); err != nil {
		return false, err
	}
	ok, err := e.impl.Done()
	return ok, e.dev.wrap(err, "event query")
}

// Elapsed is the device time between start and e. Both must have completed
// and belong to the same device.
func (e *Event) Elapsed(start *Event) (time.Duration, error) {
	const op = "elapsed"
	if err := e.usable(op); err != nil {
		return 0, err
	}
	if err := start.usable(op); err != nil {
		return 0, e.dev.record(err)
	}
	if start.dev != e.dev {
		return 0, e.dev.errorf(errors.InvalidArgument, op, "events of different devices (%s, %s) have no common clock", start.dev.name, e.dev.name)
	}
	d, err := e.impl.Elapsed(start.impl)
	return d, e.dev.wrap(err, op)
}

// Close releases the event. Closing twice is not an error.
func (e *Event) Close() error {
	if e == nil || e.dev == nil || !e.closed.CompareAndSwap(false, true) {
		return nil
	}
	return e.dev.wrap(e.dev.closeChild(e.impl.Close), "close event")
}
