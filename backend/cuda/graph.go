package cuda

import (
	"sync"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/backend/cuda/internal/cu"
	"github.com/anygpu/gpu/backend/cuda/internal/cublaslt"
	"github.com/anygpu/gpu/errors"
)

// Stream capture: the root's Stream.BeginCapture makes the driver record
// the stream's launches, copies, fills and cuBLASLt products into a CUDA
// graph (cuStreamBeginCapture in relaxed mode, so that allocations on other
// goroutines are not refused); EndCapture instantiates it once, and each
// Graph.Launch is one cuGraphLaunch. What the stream does under capture is
// capture-safe: a launch copies its scalars into its parameter block by
// value (launchargs.go), copies and fills are asynchronous driver calls, and
// MatMul uses the device's cuBLASLt handle and the stream's workspace, which
// BeginCapture creates first when cuBLASLt is there (matmul.go), so nothing
// is allocated or synchronised inside the capture. The root refuses everything else on a
// capturing stream before it gets here.

var _ backend.GraphCapturer = (*stream)(nil)

// BeginCapture starts capturing the stream. A driver without the graph
// entry points (cuStreamBeginCapture_v2, cuStreamEndCapture,
// cuGraphInstantiateWithFlags, cuGraphLaunch, cuGraphExecDestroy,
// cuGraphDestroy) is NotSupported, and the root records instead.
func (s *stream) BeginCapture() error {
	const op = "begin capture"
	d := s.dev
	if !d.lib.HasGraphs() {
		return errors.E(errors.NotSupported, Name, op, "the driver (%s) lacks the stream capture and graph entry points", d.lib.Path)
	}
	lib, ltErr := cublaslt.Load()
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := d.enter(&s.fr, op); err != nil {
		return err
	}
	defer d.leave()
	if ltErr == nil {
		// cuBLASLt's handle and the stream's workspace, so that a MatMul
		// under capture allocates nothing (its plan is host memory).
		d.mm.mu.Lock()
		err := d.mm.handleLocked(lib, op)
		d.mm.mu.Unlock()
		if err != nil {
			return err
		}
		if _, err := s.matMulWorkspace(op); err != nil {
			return err
		}
	}
	return d.check(d.lib.StreamBeginCapture(&s.fr, s.h, cu.CaptureRelaxed), op)
}

// EndCapture ends the capture and instantiates the graph captured.
func (s *stream) EndCapture() (backend.Graph, error) {
	const op = "end capture"
	d := s.dev
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := d.enter(&s.fr, op); err != nil {
		return nil, err
	}
	defer d.leave()
	g, r := d.lib.StreamEndCapture(s.h)
	if err := d.check(r, op); err != nil {
		if g != 0 {
			_ = d.lib.GraphDestroy(g)
		}
		return nil, err
	}
	exec, r := d.lib.GraphInstantiate(g, 0)
	if err := d.check(r, "instantiate the captured graph"); err != nil {
		_ = d.lib.GraphDestroy(g)
		return nil, err
	}
	return &graph{dev: d, g: g, exec: exec}, nil
}

// graph is a captured CUDA graph and its executable instance.
type graph struct {
	dev  *device
	g    cu.Graph
	exec cu.GraphExec

	once sync.Once
}

// Launch is cuGraphLaunch on s, a stream of the graph's device.
func (g *graph) Launch(s backend.Stream) error {
	st := s.(*stream)
	return st.enqueue("graph launch", "graph launch", func(fr *cu.Frame) cu.Result {
		return g.dev.lib.GraphLaunch(fr, g.exec, st.h)
	})
}

// Nodes is the number of nodes of the captured graph.
func (g *graph) Nodes() (int, error) {
	var n int
	err := g.dev.do("graph nodes", func(*cu.Frame) cu.Result {
		var r cu.Result
		n, r = g.dev.lib.GraphNodeCount(g.g)
		return r
	})
	return n, err
}

// Close destroys the instance and the graph; launches enqueued still run
// (the driver defers the release).
func (g *graph) Close() error {
	var err error
	g.once.Do(func() {
		d := g.dev
		if d.broken() {
			return
		}
		err = d.do("close graph", func(*cu.Frame) cu.Result {
			r := d.lib.GraphExecDestroy(g.exec)
			if r2 := d.lib.GraphDestroy(g.g); r == cu.Success {
				r = r2
			}
			return r
		})
	})
	return err
}
