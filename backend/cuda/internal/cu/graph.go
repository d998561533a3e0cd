package cu

import "unsafe"

// CaptureMode is a CUstreamCaptureMode.
type CaptureMode uint32

// Capture modes: Relaxed lets the capturing thread and others make calls
// that are unsafe during a capture (cuMemAlloc, ...) without the driver
// refusing them.
const (
	CaptureGlobal      CaptureMode = 0
	CaptureThreadLocal CaptureMode = 1
	CaptureRelaxed     CaptureMode = 2
)

// CaptureStatus is a CUstreamCaptureStatus.
type CaptureStatus uint32

// Capture statuses.
const (
	CaptureNone        CaptureStatus = 0
	CaptureActive      CaptureStatus = 1
	CaptureInvalidated CaptureStatus = 2
)

// HasGraphs reports whether the library exports every entry point that
// stream capture and graph launches need.
func (l *Lib) HasGraphs() bool {
	for _, s := range []Sym{SymStreamBeginCapture, SymStreamEndCapture, SymGraphInstantiateWithFlags,
		SymGraphLaunch, SymGraphExecDestroy, SymGraphDestroy} {
		if !l.Has(s) {
			return false
		}
	}
	return true
}

// StreamBeginCapture is cuStreamBeginCapture_v2.
func (l *Lib) StreamBeginCapture(f *Frame, s Stream, mode CaptureMode) Result {
	f.a[0], f.a[1] = uintptr(s), uintptr(mode)
	return f.call(l.fn[SymStreamBeginCapture], 2)
}

// StreamEndCapture is cuStreamEndCapture: the graph captured (0 when the
// capture was invalidated).
func (l *Lib) StreamEndCapture(s Stream) (Graph, Result) {
	if l.fn[SymStreamEndCapture] == 0 {
		return 0, ErrorNotSupported
	}
	var g uintptr
	r := l.c(SymStreamEndCapture, uintptr(s), uintptr(unsafe.Pointer(&g)))
	return Graph(g), r
}

// StreamIsCapturing is cuStreamIsCapturing.
func (l *Lib) StreamIsCapturing(s Stream) (CaptureStatus, Result) {
	if l.fn[SymStreamIsCapturing] == 0 {
		return 0, ErrorNotSupported
	}
	var st uint32
	r := l.c(SymStreamIsCapturing, uintptr(s), uintptr(unsafe.Pointer(&st)))
	return CaptureStatus(st), r
}

// GraphInstantiate is cuGraphInstantiateWithFlags.
func (l *Lib) GraphInstantiate(g Graph, flags uint64) (GraphExec, Result) {
	if l.fn[SymGraphInstantiateWithFlags] == 0 {
		return 0, ErrorNotSupported
	}
	var e uintptr
	r := l.c(SymGraphInstantiateWithFlags, uintptr(unsafe.Pointer(&e)), uintptr(g), uintptr(flags))
	return GraphExec(e), r
}

// GraphLaunch is cuGraphLaunch, on the hot path: it allocates nothing.
func (l *Lib) GraphLaunch(f *Frame, e GraphExec, s Stream) Result {
	f.a[0], f.a[1] = uintptr(e), uintptr(s)
	return f.call(l.fn[SymGraphLaunch], 2)
}

// GraphExecDestroy is cuGraphExecDestroy.
func (l *Lib) GraphExecDestroy(e GraphExec) Result { return l.c(SymGraphExecDestroy, uintptr(e)) }

// GraphDestroy is cuGraphDestroy.
func (l *Lib) GraphDestroy(g Graph) Result { return l.c(SymGraphDestroy, uintptr(g)) }

// GraphNodeCount is cuGraphGetNodes with no node array: the number of nodes
// of g.
func (l *Lib) GraphNodeCount(g Graph) (int, Result) {
	if l.fn[SymGraphGetNodes] == 0 {
		return 0, ErrorNotSupported
	}
	var n uint64
	r := l.c(SymGraphGetNodes, uintptr(g), 0, uintptr(unsafe.Pointer(&n)))
	return int(n), r
}
