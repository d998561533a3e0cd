package main

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/errors"
)

// Clocks a runner times device work with.
const (
	clockEvents = "events"     // Event.Elapsed between events recorded before and after
	clockWall   = "wall clock" // time.Now around the work and a Synchronize
)

// timer times work enqueued on one stream.
type timer struct {
	ctx    context.Context
	stream *gpu.Stream
	clock  string // clockEvents until the backend shows it has none
}

// device returns how long the work fn enqueues takes on the device: the
// time between an event recorded before fn and one recorded after it. When
// the backend cannot record or time events (NotSupported), the timer falls
// back for good to the wall clock around fn and a Synchronize. The stream is
// idle when device returns.
func (t *timer) device(fn func() error) (time.Duration, error) {
	if t.clock == clockEvents {
		d, err := t.events(fn)
		if errors.CategoryOf(err) != errors.NotSupported {
			return d, err
		}
		t.clock = clockWall
	}
	return t.wall(fn)
}

func (t *timer) events(fn func() error) (time.Duration, error) {
	if err := t.stream.Synchronize(t.ctx); err != nil {
		return 0, err
	}
	start, err := t.stream.Record()
	if err != nil {
		return 0, err
	}
	defer start.Close()
	if err := fn(); err != nil {
		return 0, err
	}
	end, err := t.stream.Record()
	if err != nil {
		_ = t.stream.Synchronize(t.ctx)
		return 0, err
	}
	defer end.Close()
	if err := t.stream.Synchronize(t.ctx); err != nil {
		return 0, err
	}
	d, err := end.Elapsed(start)
	if err != nil {
		return 0, err
	}
	if d <= 0 {
		return 0, fmt.Errorf("the device's events measured %v", d)
	}
	return d, nil
}

// wall returns the host time from before fn to the end of a Synchronize of
// the stream after it.
func (t *timer) wall(fn func() error) (time.Duration, error) {
	if err := t.stream.Synchronize(t.ctx); err != nil {
		return 0, err
	}
	start := time.Now()
	if err := fn(); err != nil {
		return 0, err
	}
	if err := t.stream.Synchronize(t.ctx); err != nil {
		return 0, err
	}
	return time.Since(start), nil
}

// repeat runs measure once to warm up, then reps times, and returns the
// median of the timed runs.
func repeat(ctx context.Context, reps int, measure func() (time.Duration, error)) (time.Duration, error) {
	if _, err := measure(); err != nil {
		return 0, err
	}
	ds := make([]time.Duration, 0, reps)
	for range reps {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		d, err := measure()
		if err != nil {
			return 0, err
		}
		ds = append(ds, d)
	}
	return median(ds), nil
}

// median is the middle of ds (the mean of the two middle values for an even
// count); 0 for none.
func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
