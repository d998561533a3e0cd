package cpu

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/errors"
)

// queueDepth is how many operations a stream holds before Enqueue blocks the
// caller (back-pressure, as a GPU command queue has).
const queueDepth = 4096

// stream executes its operations in order on one goroutine.
type stream struct {
	dev *device

	enqMu   sync.Mutex // serialises enqueuing and inline execution
	queue   chan func() error
	pending atomic.Int64 // enqueued and not yet finished
	closed  bool
	exited  chan struct{}

	errMu sync.Mutex
	err   error // first asynchronous error since the last Synchronize
}

var _ backend.Stream = (*stream)(nil)

func newStream(d *device) *stream {
	s := &stream{dev: d, queue: make(chan func() error, queueDepth), exited: make(chan struct{})}
	go s.run()
	return s
}

func (s *stream) run() {
	defer close(s.exited)
	for op := range s.queue {
		s.note(op())
		s.pending.Add(-1)
	}
}

func (s *stream) note(err error) {
	if err == nil {
		return
	}
	s.errMu.Lock()
	if s.err == nil {
		s.err = err
	}
	s.errMu.Unlock()
}

var errStreamClosed = errors.E(errors.Closed, Name, "stream", "stream is closed")

// enqueue appends op to the stream.
func (s *stream) enqueue(op func() error) error {
	s.enqMu.Lock()
	defer s.enqMu.Unlock()
	if s.closed {
		return errStreamClosed
	}
	s.pending.Add(1)
	s.queue <- op
	return nil
}

// now runs op at once on the caller's goroutine when the stream is idle (the
// order is the same, and no hand-off is paid), else enqueues it.
func (s *stream) now(op func() error) error {
	s.enqMu.Lock()
	defer s.enqMu.Unlock()
	if s.closed {
		return errStreamClosed
	}
	if s.pending.Load() == 0 {
		s.note(op())
		return nil
	}
	s.pending.Add(1)
	s.queue <- op
	return nil
}

func mem(b backend.Buffer) ([]byte, error) {
	h, ok := b.(backend.HostMemory)
	if !ok {
		return nil, errors.E(errors.InvalidArgument, Name, "buffer", "buffer %T does not belong to the CPU backend", b)
	}
	return h.Bytes(), nil
}

// Write copies src at once when the stream is idle; otherwise it stages a
// copy of src, so src may be reused as soon as Write returns.
func (s *stream) Write(dst backend.Buffer, off int64, src []byte) error {
	d, err := mem(dst)
	if err != nil {
		return err
	}
	d = d[off : off+int64(len(src))]
	s.enqMu.Lock()
	defer s.enqMu.Unlock()
	if s.closed {
		return errStreamClosed
	}
	if s.pending.Load() == 0 {
		parallelCopy(d, src)
		return nil
	}
	staged := make([]byte, len(src))
	copy(staged, src)
	s.pending.Add(1)
	s.queue <- func() error { parallelCopy(d, staged); return nil }
	return nil
}

func (s *stream) Read(dst []byte, src backend.Buffer, off int64) error {
	m, err := mem(src)
	if err != nil {
		return err
	}
	m = m[off : off+int64(len(dst))]
	return s.now(func() error { parallelCopy(dst, m); return nil })
}

func (s *stream) Copy(dst backend.Buffer, dstOff int64, src backend.Buffer, srcOff, n int64) error {
	d, err := mem(dst)
	if err != nil {
		return err
	}
	m, err := mem(src)
	if err != nil {
		return err
	}
	d, m = d[dstOff:dstOff+n], m[srcOff:srcOff+n]
	return s.enqueue(func() error { parallelCopy(d, m); return nil })
}

func (s *stream) Fill(dst backend.Buffer, off, n int64, v uint32) error {
	d, err := mem(dst)
	if err != nil {
		return err
	}
	d = d[off : off+n]
	return s.enqueue(func() error { fill32(d, v); return nil })
}

// serialThreads is the launch size (groups × threads) under which the groups
// run one after another on the stream's goroutine: waking other cores costs
// more than such a launch.
const serialThreads = 1 << 15

func (s *stream) Launch(k backend.Kernel, grid, block backend.Dim3, args []backend.Arg) error {
	kern, ok := k.(*kernel)
	if !ok {
		return errors.E(errors.InvalidArgument, Name, "launch", "kernel %T does not belong to the CPU backend", k)
	}
	grid, block = grid.Norm(), block.Norm()
	return s.enqueue(func() error { return runKernel(kern, grid, block, args) })
}

func runKernel(k *kernel, grid, block backend.Dim3, args []backend.Arg) error {
	groups := int(grid.Count())
	threads := int(block.Count())
	gx, gy := grid.X, grid.Y
	run := func(lo, hi int) {
		g := backend.Group{Size: block, Grid: grid}
		for i := lo; i < hi; i++ {
			g.ID = backend.Dim3{X: i % gx, Y: (i / gx) % gy, Z: i / (gx * gy)}
			k.fn(g, args)
		}
	}
	grain := serialThreads / threads
	if grain < 1 {
		grain = 1
	}
	err := parallelFor("launch", groups, grain, run)
	if err != nil {
		return errors.Wrap(err, "", fmt.Sprintf("kernel %s grid %v block %v", k.name, grid, block))
	}
	return nil
}

func (s *stream) Record() (backend.Event, error) {
	e := &event{done: make(chan struct{})}
	err := s.enqueue(func() error {
		e.at = now()
		close(e.done)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return e, nil
}

func (s *stream) Wait(ev backend.Event) error {
	e, ok := ev.(*event)
	if !ok {
		return errors.E(errors.InvalidArgument, Name, "wait", "event %T does not belong to the CPU backend", ev)
	}
	select {
	case <-e.done:
		return nil // already reached: nothing to wait for
	default:
	}
	return s.enqueue(func() error { <-e.done; return nil })
}

func (s *stream) Synchronize(ctx context.Context) error {
	if s.pending.Load() > 0 {
		done := make(chan struct{})
		if err := s.enqueue(func() error { close(done); return nil }); err != nil {
			return err
		}
		select {
		case <-done:
		case <-ctx.Done():
			return errors.Wrap(ctx.Err(), Name, "synchronize")
		}
	}
	s.errMu.Lock()
	err := s.err
	s.err = nil
	s.errMu.Unlock()
	return err
}

// Close waits for the queued work, then stops the stream's goroutine.
func (s *stream) Close() error {
	s.enqMu.Lock()
	if s.closed {
		s.enqMu.Unlock()
		return nil
	}
	s.closed = true
	close(s.queue)
	s.enqMu.Unlock()
	<-s.exited
	s.dev.forget(s)
	return nil
}

// event is a point in a stream, stamped with the monotonic clock when the
// stream reaches it.
type event struct {
	done chan struct{}
	at   time.Duration
}

var _ backend.Event = (*event)(nil)

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

func (e *event) Elapsed(start backend.Event) (time.Duration, error) {
	s, ok := start.(*event)
	if !ok {
		return 0, errors.E(errors.InvalidArgument, Name, "elapsed", "event %T does not belong to the CPU backend", start)
	}
	for _, x := range []*event{s, e} {
		if done, _ := x.Done(); !done {
			return 0, errors.E(errors.InvalidArgument, Name, "elapsed", "event has not completed yet: synchronize it first")
		}
	}
	return e.at - s.at, nil
}

func (e *event) Close() error { return nil }

var _ backend.HostCopier = (*stream)(nil)

// WriteHost copies from a host buffer in stream order without staging.
func (s *stream) WriteHost(dst backend.Buffer, off int64, src backend.HostBuffer, srcOff, n int64) error {
	d, err := mem(dst)
	if err != nil {
		return err
	}
	h := src.Bytes()[srcOff : srcOff+n]
	d = d[off : off+n]
	return s.now(func() error { parallelCopy(d, h); return nil })
}

// ReadHost copies into a host buffer in stream order.
func (s *stream) ReadHost(dst backend.HostBuffer, dstOff int64, src backend.Buffer, srcOff, n int64) error {
	m, err := mem(src)
	if err != nil {
		return err
	}
	h := dst.Bytes()[dstOff : dstOff+n]
	m = m[srcOff : srcOff+n]
	return s.now(func() error { parallelCopy(h, m); return nil })
}
