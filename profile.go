package gpu

import (
	"context"
	"sync"
	"time"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/profiling"
)

// profiler connects a device to a profiling.Profiler: each stream operation
// is bracketed by two backend events, and once the end event completes the
// operation is recorded with device times relative to an epoch event recorded
// when the device opened. A nil *profiler is "profiling off" and costs one
// nil check per operation.
type profiler struct {
	dev       *Device
	p         *profiling.Profiler
	epoch     backend.Event
	hostEpoch time.Time

	mu      sync.Mutex
	pending []pendingOp
}

type pendingOp struct {
	rec        profiling.Record
	start, end backend.Event
}

func newProfiler(d *Device, p *profiling.Profiler) (*profiler, error) {
	ev, err := d.def.impl.Record()
	if err != nil {
		return nil, d.wrap(err, "profiler epoch")
	}
	if err := ev.Synchronize(context.Background()); err != nil {
		return nil, d.wrap(err, "profiler epoch")
	}
	return &profiler{dev: d, p: p, epoch: ev, hostEpoch: time.Now()}, nil
}

// host records an operation timed on the host clock (allocations, compiles).
func (pr *profiler) host(kind profiling.Kind, name string, bytes int64, start time.Time) {
	if pr == nil {
		return
	}
	pr.p.Add(profiling.Record{
		Kind: kind, Name: name, Device: pr.dev.name, Stream: -1, Bytes: bytes, HostTimed: true,
		Start: start.Sub(pr.hostEpoch), End: time.Since(pr.hostEpoch),
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
			op.rec.Start, op.rec.End = t0, t1
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
	if pr == nil {
		return
	}
	_ = pr.epoch.Close()
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
