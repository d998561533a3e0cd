package gemm

import "sync"

// workspace holds one goroutine's packing buffers: a block of A, a block of
// B and one tile of C for the edges.
type workspace struct {
	a, b, tile []float32
}

// workspaces reuses packing buffers across calls (and across the groups of a
// launch, which run on a few goroutines), so a call allocates nothing once
// the pool holds a workspace large enough.
var workspaces = sync.Pool{New: func() any { return new(workspace) }}

// grow makes the buffers hold at least na, nb and nt floats.
func (w *workspace) grow(na, nb, nt int) {
	if len(w.a) < na {
		w.a = make([]float32, na)
	}
	if len(w.b) < nb {
		w.b = make([]float32, nb)
	}
	if len(w.tile) < nt {
		w.tile = make([]float32, nt)
	}
}
