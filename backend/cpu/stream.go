package cpu

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/errors"
)

// queueDepth is how many operations a stream holds before Enqueue blocks the
// caller (back-pressure, as a GPU command queue has).
const queueDepth = 4096

// stream executes its operations in order on one goroutine. The root package
// uses it only while it is open and closes it once.
type stream struct {
	dev *device

	enqMu   sync.Mutex // serialises enqueuing and inline execution
	queue   chan func() error
	pending atomic.Int64 // enqueued and not yet finished
	exited  chan struct{}

	errMu sync.Mutex
	err   error // first asynchronous error since the last Synchronize
}

var (
	_ backend.Stream     = (*stream)(nil)
	_ backend.HostCopier = (*stream)(nil)
)

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

// enqueue appends op to the stream.
func (s *stream) enqueue(op func() error) {
	s.enqMu.Lock()
	s.push(op)
	s.enqMu.Unlock()
}

// push appends op to the queue; enqMu is held.
func (s *stream) push(op func() error) {
	s.pending.Add(1)
	s.queue <- op
}

// now runs op at once on the caller's goroutine when the stream is idle (the
// order is the same, and no hand-off is paid), else enqueues it.
func (s *stream) now(op func() error) {
	s.enqMu.Lock()
	defer s.enqMu.Unlock()
	if s.pending.Load() == 0 {
		s.note(op())
		return
	}
	s.push(op)
}

// copyNow copies src to dst in stream order, at once when the stream is idle.
func (s *stream) copyNow(dst, src []byte) error {
	s.now(func() error { parallelCopy(dst, src); return nil })
	return nil
}

// Write copies src at once when the stream is idle; otherwise it stages a
// copy of src, so src may be reused as soon as Write returns.
func (s *stream) Write(dst backend.Buffer, off int64, src []byte) error {
	d := mem(dst)[off : off+int64(len(src))]
	s.enqMu.Lock()
	defer s.enqMu.Unlock()
	if s.pending.Load() == 0 {
		parallelCopy(d, src)
		return nil
	}
	staged := make([]byte, len(src))
	copy(staged, src)
	s.push(func() error { parallelCopy(d, staged); return nil })
	return nil
}

func (s *stream) Read(dst []byte, src backend.Buffer, off int64) error {
	return s.copyNow(dst, mem(src)[off:off+int64(len(dst))])
}

// WriteHost copies from a host buffer in stream order without staging.
func (s *stream) WriteHost(dst backend.Buffer, off int64, src backend.HostBuffer, srcOff, n int64) error {
	return s.copyNow(mem(dst)[off:off+n], src.Bytes()[srcOff:srcOff+n])
}

// ReadHost copies into a host buffer in stream order.
func (s *stream) ReadHost(dst backend.HostBuffer, dstOff int64, src backend.Buffer, srcOff, n int64) error {
	return s.copyNow(dst.Bytes()[dstOff:dstOff+n], mem(src)[srcOff:srcOff+n])
}

func (s *stream) Copy(dst backend.Buffer, dstOff int64, src backend.Buffer, srcOff, n int64) error {
	d, m := mem(dst)[dstOff:dstOff+n], mem(src)[srcOff:srcOff+n]
	s.enqueue(func() error { parallelCopy(d, m); return nil })
	return nil
}

func (s *stream) Fill(dst backend.Buffer, off, n int64, v uint32) error {
	d := mem(dst)[off : off+n]
	s.enqueue(func() error { fill32(d, v); return nil })
	return nil
}

// Launch enqueues the kernel's groups; grid and block come normalized from
// the root package.
func (s *stream) Launch(k backend.Kernel, grid, block backend.Dim3, args []backend.Arg) error {
	kern := k.(*kernel)
	s.enqueue(func() error { return kern.run(grid, block, args) })
	return nil
}

func (s *stream) Record() (backend.Event, error) {
	e := newEvent()
	s.enqueue(e.reach)
	return e, nil
}

func (s *stream) Wait(ev backend.Event) error {
	e := ev.(*event)
	select {
	case <-e.done:
		return nil // already reached: nothing to wait for
	default:
	}
	s.enqueue(func() error { <-e.done; return nil })
	return nil
}

func (s *stream) Synchronize(ctx context.Context) error {
	if s.pending.Load() > 0 {
		done := make(chan struct{})
		s.enqueue(func() error { close(done); return nil })
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
	close(s.queue)
	s.enqMu.Unlock()
	<-s.exited
	s.dev.forget(s)
	return nil
}
