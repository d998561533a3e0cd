package cpu

import (
	"context"
	"time"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/errors"
)

// epoch anchors event timestamps: durations since it are monotonic.
var epoch = time.Now()

func now() time.Duration { return time.Since(epoch) }

// event is a point in a stream, stamped with the monotonic clock when the
// stream reaches it.
type event struct {
	done chan struct{}
	at   time.Duration
}

var _ backend.Event = (*event)(nil)

func newEvent() *event { return &event{done: make(chan struct{})} }

// reach stamps the event and completes it; the stream runs it in order.
func (e *event) reach() error {
	e.at = now()
	close(e.done)
	return nil
}

func (e *event) Synchronize(ctx context.Context) error {
	select {
	case <-e.done:
		return nil
	case <-ctx.Done():
		return errors.Wrap(ctx.Err(), Name, "event synchronize")
	}
}

func (e *event) Done() (bool, error) {
	select {
	case <-e.done:
		return true, nil
	default:
		return false, nil
	}
}

// Elapsed is the time between the two stamps; start is an event of the same
// device (the root package checks that).
func (e *event) Elapsed(start backend.Event) (time.Duration, error) {
	s := start.(*event)
	for _, x := range []*event{s, e} {
		if done, _ := x.Done(); !done {
			return 0, errors.E(errors.InvalidArgument, Name, "elapsed", "event has not completed yet: synchronize it first")
		}
	}
	return e.at - s.at, nil
}

func (e *event) Close() error { return nil }
