package gpu

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/errors"
	"github.com/anygpu/gpu/profiling"
)

// Graph is stream work recorded once (BeginCapture ... EndCapture) and
// replayed by Launch as often as wanted, on any stream of its device. Where
// the backend has graphs (CUDA: a CUDA graph, captured from the stream and
// instantiated once) a Launch is one native submission; elsewhere, or when
// the driver lacks the graph entry points, the package records each
// operation itself and Launch enqueues them one by one, with the same
// results (Native says which).
//
// A replay does what the recorded operations did, with the arguments they
// had when they were recorded: the same kernels, buffers, offsets, sizes and
// scalar values. To feed a graph new inputs, write them into the buffers it
// reads (before Launch, on the stream, or on another stream ordered with
// it) rather than recording new arguments.
//
// A graph holds every buffer its operations use: closing such a buffer
// while the graph is open is allowed, and its memory goes back to the pool
// (or is freed) only when the last open graph that uses it closes, so a
// replay never writes memory that has been handed out again. That holds for
// borrowed buffers too (Device.Borrow): the graph keeps the root's wrapper
// alive, but the memory itself stays the lending library's to keep valid
// while the graph may run. The modules of the recorded kernels are not
// held: Launch refuses, with category Closed, a graph whose kernel's module
// has been closed.
//
// A Graph is safe for concurrent use. Close it when done: it releases the
// native graph and the buffers it holds.
type Graph struct {
	dev       *Device
	native    backend.Graph // the backend's graph; nil when ops are replayed by the package
	ops       []graphOp     // the recorded operations, for a replay by the package
	count     int           // operations recorded
	kernelOps int64         // of which kernel launches and matrix products
	transfers []graphTransfer
	kernels   []*Kernel // the distinct kernels launched
	bufs      []*Buffer // the distinct buffers used, each held once
	closed    atomic.Bool
	gate      gate // Close drains it, so no Launch uses a released graph
}

// graphOp is one recorded operation: the backend call with its arguments,
// replayed on a stream of the graph's device.
type graphOp func(impl backend.Stream) error

// graphTransfer is a recorded copy or fill, for the transfer ledgers.
type graphTransfer struct {
	kind transferKind
	n    int64
	bufs [2]*Buffer // destination, and the source of a copy (nil for a fill)
}

// capture is a stream's recording in progress (Stream.BeginCapture).
type capture struct {
	native bool // the backend records (backend.GraphCapturer)

	mu        sync.Mutex
	ended     bool
	ops       []graphOp
	count     int
	kernelOps int64
	transfers []graphTransfer
	kernels   []*Kernel
	bufs      []*Buffer
	seenK     map[*Kernel]struct{}
	seenB     map[*Buffer]struct{}
}

// captureEndedMsg is the error of an operation that raced with EndCapture.
const captureEndedMsg = "the capture ended while the operation was being recorded"

// record adds one operation that uses kernel k (nil for none) and bufs
// (nil entries skipped), holding every buffer it has not held yet. run is
// the backend call: executed now by a native capture (the backend records
// it), kept for replay otherwise. kernelOp counts it among the graph's
// kernel operations; tr, when tr.n > 0, among its transfers.
func (c *capture) record(s *Stream, op string, k *Kernel, bufs []*Buffer, kernelOp bool, tr graphTransfer, run graphOp) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ended {
		return s.dev.errorf(errors.InvalidArgument, op, captureEndedMsg)
	}
	for i, b := range bufs {
		if b == nil {
			continue
		}
		if _, ok := c.seenB[b]; ok {
			continue
		}
		if !b.hold() {
			return s.dev.errorf(errors.Closed, op, "buffer %d of the operation was closed while it was being recorded", i)
		}
		c.seenB[b] = struct{}{}
		c.bufs = append(c.bufs, b)
	}
	if c.native {
		if err := run(s.impl); err != nil {
			return s.dev.wrap(err, op)
		}
	} else {
		c.ops = append(c.ops, run)
	}
	if k != nil {
		if _, ok := c.seenK[k]; !ok {
			c.seenK[k] = struct{}{}
			c.kernels = append(c.kernels, k)
		}
	}
	c.count++
	if kernelOp {
		c.kernelOps++
	}
	if tr.n > 0 {
		c.transfers = append(c.transfers, tr)
	}
	return nil
}

// finish marks the capture ended; later records fail.
func (c *capture) finish() {
	c.mu.Lock()
	c.ended = true
	c.mu.Unlock()
}

// release lets go of the buffers a discarded capture held.
func (c *capture) release() error {
	var errs []error
	for _, b := range c.bufs {
		if err := b.unhold(); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// BeginCapture starts recording the work enqueued on s into a graph instead
// of running it, until EndCapture returns the Graph. While s captures,
// Launch, LaunchWith, Copy (within the device), Fill and MatMul on s are
// checked as usual and recorded, not run; each recorded buffer is held by
// the capture (see Graph). Everything that moves host memory or waits
// (Write, Read, WriteHost, ReadHost, a Copy from another device, Record,
// Wait, Synchronize, and the Buffer and Device helpers that use s) is
// refused with InvalidArgument without reaching the backend, as is a
// Graph.Launch on s. Work on other streams runs as usual, and so does work
// enqueued on s before BeginCapture. Device.Synchronize skips a capturing
// stream. Closing s ends the capture and discards what it recorded.
//
// On CUDA the stream is captured by the driver (cuStreamBeginCapture in
// relaxed mode: other goroutines may allocate meanwhile); a driver without
// the graph entry points makes the package record instead (Graph.Native
// tells). Capturing twice without EndCapture is InvalidArgument. BeginCapture
// does not block.
func (s *Stream) BeginCapture() error {
	const op = "begin capture"
	if err := s.enter(op); err != nil {
		return err
	}
	defer s.leave()
	s.captureMu.Lock()
	defer s.captureMu.Unlock()
	if s.capture.Load() != nil {
		return s.dev.errorf(errors.InvalidArgument, op, "stream %d is capturing already; end the capture first", s.id)
	}
	c := &capture{seenK: map[*Kernel]struct{}{}, seenB: map[*Buffer]struct{}{}}
	if gc, ok := s.impl.(backend.GraphCapturer); ok {
		err := gc.BeginCapture()
		switch {
		case err == nil:
			c.native = true
		case errors.CategoryOf(err) == errors.NotSupported:
			s.dev.logger.Debug("anygpu: fallback: the package records the capture", "device", s.dev.name, "stream", s.id, "reason", err.Error())
		default:
			return s.dev.wrap(err, op)
		}
	}
	s.capture.Store(c)
	return nil
}

// EndCapture stops the recording BeginCapture started and returns the
// recorded work as a Graph (one with no operations when nothing was
// enqueued). Without a capture in progress it is InvalidArgument. On CUDA
// a capture the driver invalidated (an operation it cannot record) is an
// error naming why; the capture is over either way.
func (s *Stream) EndCapture() (*Graph, error) {
	const op = "end capture"
	if err := s.enter(op); err != nil {
		return nil, err
	}
	defer s.leave()
	s.captureMu.Lock()
	defer s.captureMu.Unlock()
	c := s.capture.Load()
	if c == nil {
		return nil, s.dev.errorf(errors.InvalidArgument, op, "stream %d is not capturing; call BeginCapture first", s.id)
	}
	s.capture.Store(nil)
	c.finish()
	g := &Graph{dev: s.dev, ops: c.ops, count: c.count, kernelOps: c.kernelOps, transfers: c.transfers, kernels: c.kernels, bufs: c.bufs}
	if c.native {
		ng, err := s.impl.(backend.GraphCapturer).EndCapture()
		if err != nil {
			return nil, errors.Join(s.dev.wrap(err, op), c.release())
		}
		g.native, g.ops = ng, nil
	}
	return g, nil
}

// Capturing reports whether s is recording (between BeginCapture and
// EndCapture).
func (s *Stream) Capturing() bool { return s != nil && s.capture.Load() != nil }

// discardCapture ends a capture in progress and drops what it recorded
// (Stream.Close, Device.Close). No call is inside the stream.
func (s *Stream) discardCapture() error {
	s.captureMu.Lock()
	defer s.captureMu.Unlock()
	c := s.capture.Swap(nil)
	if c == nil {
		return nil
	}
	c.finish()
	var errs []error
	if c.native {
		ng, err := s.impl.(backend.GraphCapturer).EndCapture()
		errs = append(errs, err)
		if ng != nil {
			errs = append(errs, ng.Close())
		}
	}
	errs = append(errs, c.release())
	return errors.Join(errs...)
}

// refuseCapturing is the error of an operation s cannot record: nil when s
// is not capturing. what names the operation and why.
func (s *Stream) refuseCapturing(op, why string) error {
	if s.capture.Load() == nil {
		return nil
	}
	e := errors.E(errors.InvalidArgument, s.dev.backend, op, "stream is capturing: %s; end the capture first", why)
	e.Hint = "move host transfers and waits before BeginCapture or after EndCapture, or onto another stream"
	return s.dev.record(e)
}

// Launch enqueues the recorded work on s, a stream of the graph's device:
// one native submission where Native is true, else the recorded operations
// in order. It counts the graph's kernel launches and matrix products in
// Stats.KernelLaunches and one Stats.GraphLaunches; a profiler sees one
// operation named "graph". A stream of another device, or a capturing
// stream, is InvalidArgument; a closed graph, or one whose kernel's module
// has been closed, Closed. Launch does not block.
func (g *Graph) Launch(s *Stream) error {
	const op = "graph launch"
	if g == nil || g.dev == nil {
		return errorf(errors.InvalidArgument, op, "nil graph (graphs come from Stream.EndCapture)")
	}
	g.gate.enter()
	defer g.gate.leave()
	if g.closed.Load() {
		return g.dev.errorf(errors.Closed, op, "graph is closed")
	}
	if err := s.enter(op); err != nil {
		return err
	}
	defer s.leave()
	if s.dev != g.dev {
		return s.dev.errorf(errors.InvalidArgument, op, "graph belongs to %s, the stream to %s", g.dev.name, s.dev.name)
	}
	if err := s.refuseCapturing(op, "a graph cannot be launched into a capture"); err != nil {
		return err
	}
	for _, k := range g.kernels {
		if k.closed.Load() {
			return s.dev.errorf(errors.Closed, op, "module %q of kernel %q, which the graph launches, is closed", k.mod.name, k.name)
		}
	}
	err := s.profiled(profiling.KindKernel, "graph", 0, func() error {
		if g.native != nil {
			return g.native.Launch(s.impl)
		}
		for _, o := range g.ops {
			if err := o(s.impl); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return s.dev.wrap(err, op)
	}
	s.dev.launches.Add(g.kernelOps)
	s.dev.graphLaunches.Add(1)
	for _, t := range g.transfers {
		s.dev.stats.transfers.add(t.kind, t.n)
		for _, b := range t.bufs {
			if b != nil {
				b.transfers.add(t.kind, t.n)
			}
		}
	}
	return nil
}

// Ops is the number of operations recorded: kernel launches, copies, fills
// and matrix products (0 for a nil graph).
func (g *Graph) Ops() int {
	if g == nil {
		return 0
	}
	return g.count
}

// Native reports whether Launch is one native submission (a CUDA graph)
// rather than a replay of the recorded operations by the package.
func (g *Graph) Native() bool { return g != nil && g.native != nil }

// Device is the device the graph's work runs on (nil for a nil graph).
func (g *Graph) Device() *Device {
	if g == nil {
		return nil
	}
	return g.dev
}

// Close releases the graph: its native graph, and its hold on its buffers
// (a buffer closed meanwhile goes back to the pool now, unless another open
// graph uses it). Launches already enqueued still run. Closing twice, or a
// nil graph, is not an error; Launch after Close is Closed.
func (g *Graph) Close() error {
	if g == nil || g.dev == nil || !g.closed.CompareAndSwap(false, true) {
		return nil
	}
	g.gate.drain()
	var errs []error
	if g.native != nil {
		errs = append(errs, g.dev.wrap(g.dev.closeChild(g.native.Close), "close graph"))
	}
	for _, b := range g.bufs {
		errs = append(errs, b.unhold())
	}
	g.ops, g.kernels, g.bufs, g.transfers = nil, nil, nil, nil
	return errors.Join(errs...)
}

// String describes the graph for logs: "graph of 12 ops (native)".
func (g *Graph) String() string {
	if g == nil {
		return "graph <nil>"
	}
	how := "replayed"
	if g.native != nil {
		how = "native"
	}
	return fmt.Sprintf("graph of %d ops (%s)", g.count, how)
}
