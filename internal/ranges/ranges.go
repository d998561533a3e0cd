// Package ranges hands out the byte ranges of one transfer to the copy
// workers that share it (the staged pageable transfers of the CUDA and
// Vulkan backends).
package ranges

import "sync/atomic"

// Counter hands out the ranges of n bytes in order. While much remains a
// range is a whole chunk; when guided, ranges towards the end shrink to a
// share of what remains (remaining/(2·workers), in 64 KiB steps, never under
// GuidedMin), so the workers finish together instead of one copying a whole
// last chunk while the others idle. Take is safe for concurrent use.
type Counter struct {
	next    atomic.Int64 // offset of the next range
	n       int64
	chunk   int64
	workers int64
	guided  bool
}

// GuidedMin is the smallest range a guided Counter hands out (except the
// very last): below it the driver calls of a range cost more than the idle
// time they save.
const GuidedMin = 512 << 10

// New returns a Counter of n bytes for workers workers; with a single
// worker it hands out whole chunks, guided or not.
func New(n, chunk, workers int, guided bool) *Counter {
	return &Counter{n: int64(n), chunk: int64(chunk), workers: int64(workers), guided: guided && workers > 1}
}

// Take returns the next range [lo, lo+m), or ok false when none is left or
// stop is set.
func (c *Counter) Take(stop *atomic.Bool) (lo, m int, ok bool) {
	for !stop.Load() {
		off := c.next.Load()
		rem := c.n - off
		if rem <= 0 {
			return 0, 0, false
		}
		size := c.chunk
		if c.guided {
			g := (rem/(2*c.workers) + 64<<10 - 1) &^ (64<<10 - 1) // in 64 KiB steps
			size = max(min(g, c.chunk), min(GuidedMin, c.chunk))
		}
		size = min(size, rem)
		if c.next.CompareAndSwap(off, off+size) {
			return int(off), int(size), true
		}
	}
	return 0, 0, false
}
