package gpu

import (
	"context"
	"math"
	"sync"
	"time"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/errors"
	"github.com/anygpu/gpu/profiling"
)

// profiler connects a device to a profiling.Profiler: each stream operation
// is bracketed by two backend events, and once the end event completes the
// operation is recorded with its device times relative to an epoch event,
// placed on the profiler's host axis (see newProfiler). A nil *profiler is
// "profiling off" and costs one nil check per operation.
type profiler struct {
	dev   *Device
	p     *profiling.Profiler
	epoch backend.Event
	// offset is the host time (profiling.Profiler.Elapsed) at which the
	// epoch event completed on the device.
	offset time.Duration

	mu      sync.Mutex
	pending []pendingOp
}

type pendingOp struct {
	rec        profiling.Record
	start, end backend.Event
}

// epochRounds is how many record-and-wait round trips newProfiler times to
// place the device's clock on the host axis.
const epochRounds = 3

// newProfiler records epoch events on the device's idle default stream and
// waits for each, keeping the one of the shortest round trip. That event
// completed between the host times before its Record and after its
// Synchronize; its offset is their midpoint, so the device's records are
// off the host axis by at most half that round trip (microseconds), plus
// the drift of the device clock against the host's over the run.
func newProfiler(d *Device, p *profiling.Profiler) (*profiler, error) {
	pr := &profiler{dev: d, p: p}
	best := time.Duration(math.MaxInt64)
	for range epochRounds {
		before := p.Elapsed()
		ev, err := d.def.impl.Record()
		if err != nil {
			pr.close()
			return nil, d.wrap(err, "profiler epoch")
		}
		if err := ev.Synchronize(context.Background()); err != nil {
			_ = ev.Close()
			pr.close()
			return nil, d.wrap(err, "profiler epoch")
		}
		roundTrip := p.Elapsed() - before
		if roundTrip >= best {
			_ = ev.Close()
			continue
		}
		pr.close()
		pr.epoch, pr.offset, best = ev, before+roundTrip/2, roundTrip
	}
	return pr, nil
}

// host records an operation timed on the host clock (allocations, compiles).
func (pr *profiler) host(kind profiling.Kind, name string, bytes int64, start time.Time) {
	if pr == nil {
		return
	}
	pr.p.Add(profiling.Record{
		Kind: kind, Name: name, Device: pr.dev.name, Stream: -1, Bytes: bytes, HostTimed: true,
		Start: start.Sub(pr.p.Epoch()), End: pr.p.Elapsed(),
	})
}

// profiled runs enqueue between two events when profiling is on.
func (s *Stream) profiled(kind profiling.Kind, name string, bytes int64, enqueue func() error) error {
	pr := s.dev.prof
	if pr == nil {
		return enqueue()
	}
	return pr.bracket(s, profiling.Record{Kind: kind, Name: name, Bytes: bytes}, enqueue)
}

func (s *Stream) profiledKernel(k *Kernel, grid, block Dim3, enqueue func() error) error {
	pr := s.dev.prof
	if pr == nil {
		return enqueue()
	}
	rec := profiling.Record{Kind: profiling.KindKernel, Name: k.name, Grid: grid, Block: block}
	rec.Occupancy = pr.occupancy(k, block)
	return pr.bracket(s, rec, enqueue)
}

// occupancy is the kernel's theoretical occupancy where the backend gives
// the device limits and kernel attributes the calculation needs (CUDA).
func (pr *profiler) occupancy(k *Kernel, block Dim3) float64 {
	info := pr.dev.info
	if info.ComputeMajor == 0 {
		return 0
	}
	a, ok := k.impl.(backend.KernelAttributer)
	if !ok {
		return 0
	}
	attrs, err := a.Attributes()
	if err != nil {
		return 0
	}
	res, err := profiling.Occupancy(profiling.LimitsFrom(info), profiling.AttrsFrom(attrs), int(block.Count()), 0)
	if err != nil {
		return 0
	}
	return res.Occupancy
}

func (pr *profiler) bracket(s *Stream, rec profiling.Record, enqueue func() error) error {
	start, err := s.impl.Record()
	if err != nil {
		return err
	}
	if err := enqueue(); err != nil {
		_ = start.Close()
		return err
	}
	end, err := s.impl.Record()
	if err != nil {
		_ = start.Close()
		return err
	}
	rec.Device, rec.Stream = pr.dev.name, s.id
	pr.mu.Lock()
	pr.pending = append(pr.pending, pendingOp{rec: rec, start: start, end: end})
	pr.mu.Unlock()
	return nil
}

// collect records every bracketed operation whose end event has completed.
func (pr *profiler) collect() {
	if pr == nil {
		return
	}
	pr.mu.Lock()
	defer pr.mu.Unlock()
	kept := pr.pending[:0]
	for _, op := range pr.pending {
		if done, _ := op.end.Done(); !done {
			kept = append(kept, op)
			continue
		}
		t0, err0 := op.start.Elapsed(pr.epoch)
		t1, err1 := op.end.Elapsed(pr.epoch)
		if err0 == nil && err1 == nil {
			op.rec.Start, op.rec.End = pr.offset+t0, pr.offset+t1
			if ht, ok := op.end.(backend.HostTimer); ok && ht.HostTimed() {
				op.rec.HostTimed = true
			}
			pr.p.Add(op.rec)
		}
		_ = op.start.Close()
		_ = op.end.Close()
	}
	for i := len(kept); i < len(pr.pending); i++ {
		pr.pending[i] = pendingOp{}
	}
	pr.pending = kept
}

func (pr *profiler) close() {
	if pr == nil || pr.epoch == nil {
		return
	}
	_ = pr.epoch.Close()
	pr.epoch = nil
}

// Profiler returns the profiler attached with WithProfiler (nil when off),
// after recording every operation that has completed (Close recorded the
// last ones of a closed device).
func (d *Device) Profiler() *profiling.Profiler {
	if d == nil || d.prof == nil {
		return nil
	}
	if !d.closed.Load() {
		d.prof.collect()
	}
	return d.prof.p
}

// ProfileNative runs enqueue, which queues work on s through native code of
// its own (package collective's NCCL calls, inside Device.RunNative), and,
// when the device has a profiler, brackets it with two events of s so that
// the work is recorded like the stream's own operations: a Record of kind
// (profiling.KindCollective for a collective), named name, moving bytes, on
// s's device and stream, timed by the device. Without a profiler it only
// runs enqueue. enqueue's error is returned unchanged and nothing is
// recorded then; a nil, closed or unusable stream or a nil enqueue is an
// error before enqueue runs. s's Close waits for enqueue to return, so
// enqueue must not call methods of s (take its NativeHandle before).
func (s *Stream) ProfileNative(kind profiling.Kind, name string, bytes int64, enqueue func() error) error {
	op := "profile " + string(kind)
	if err := s.enter(op); err != nil {
		return err
	}
	defer s.leave()
	if enqueue == nil {
		return s.dev.errorf(errors.InvalidArgument, op, "nil enqueue function")
	}
	failed := false
	err := s.profiled(kind, name, bytes, func() error {
		err := enqueue()
		failed = err != nil
		return err
	})
	if err != nil && !failed {
		return s.dev.wrap(err, op)
	}
	return err
}
