package profiling

import (
	"slices"
	"sync"
	"time"

	"github.com/anygpu/gpu/backend"
)

// Kind is the kind of operation a Record measures.
type Kind string

// The kinds of operation the root package records.
const (
	KindKernel  Kind = "kernel"  // a kernel launch
	KindH2D     Kind = "h2d"     // host-to-device copy
	KindD2H     Kind = "d2h"     // device-to-host copy
	KindD2D     Kind = "d2d"     // copy within one device
	KindPeer    Kind = "peer"    // copy between two devices
	KindFill    Kind = "fill"    // memory fill
	KindAlloc   Kind = "alloc"   // allocation
	KindCompile Kind = "compile" // kernel compilation

	KindCollective Kind = "collective" // a collective (all-reduce, broadcast, ...) recorded by package collective
	KindRange      Kind = "range"      // a user range (Profiler.Range), timed on the host
)

// movesData reports whether Bytes/duration of a record of kind k is a
// throughput: not for allocations, compilations and user ranges.
func (k Kind) movesData() bool {
	switch k {
	case KindAlloc, KindCompile, KindRange:
		return false
	}
	return true
}

// Record is one timed operation.
//
// Start and End are time since the profiler's Epoch, on one axis for every
// device of the profile and the host. Host work (allocations, compilations,
// ranges) is timed with Elapsed. Device work is timed by device events
// relative to an epoch event the root package records on each device when
// the profiler is attached; that event's device time is placed on the host
// axis at the midpoint of the shortest of a few record-and-wait round trips,
// so a device's records are off the host axis by at most half that round
// trip (microseconds on an idle device), plus the drift between the device
// and host clocks over the run.
type Record struct {
	Kind   Kind
	Name   string // kernel name, or "" (the summary then groups by Kind)
	Device string // "cpu:0", "cuda:0"; "" for work of no device (user ranges)
	Stream int    // stream id within the device; -1 for work on the host

	Start, End time.Duration // time since the profiler's Epoch

	Bytes       int64        // bytes moved (transfers) or touched
	Grid, Block backend.Dim3 // kernels
	Occupancy   float64      // theoretical occupancy 0..1, 0 = unknown
	HostTimed   bool         // timed on the host clock, not by device events
}

// Duration is End-Start, or 0 when End is before Start.
func (r Record) Duration() time.Duration {
	if r.End < r.Start {
		return 0
	}
	return r.End - r.Start
}

// Profiler collects Records. It is safe for concurrent use; Add only appends
// under a mutex, so it is cheap enough for stream completion paths. All
// methods treat a nil *Profiler as an empty profiler that discards records.
type Profiler struct {
	epoch time.Time

	mu      sync.Mutex
	records []Record
}

// New returns an empty profiler whose host epoch is now.
func New() *Profiler {
	return &Profiler{epoch: time.Now()}
}

// Epoch is the host time New was called: the zero of Elapsed and of every
// record's Start and End.
func (p *Profiler) Epoch() time.Time {
	if p == nil {
		return time.Time{}
	}
	return p.epoch
}

// Elapsed is the monotonic host time since Epoch: the Start and End of host
// work, and the host time the root package aligns device clocks to.
func (p *Profiler) Elapsed() time.Duration {
	if p == nil {
		return 0
	}
	return time.Since(p.epoch)
}

// Add appends one record.
func (p *Profiler) Add(r Record) {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.records = append(p.records, r)
	p.mu.Unlock()
}

// Records returns a copy of the records, sorted by Start (records with equal
// Start keep the order they were added in).
func (p *Profiler) Records() []Record {
	if p == nil {
		return []Record{}
	}
	p.mu.Lock()
	out := slices.Clone(p.records)
	p.mu.Unlock()
	if out == nil {
		out = []Record{}
	}
	slices.SortStableFunc(out, func(a, b Record) int {
		switch {
		case a.Start < b.Start:
			return -1
		case a.Start > b.Start:
			return 1
		}
		return 0
	})
	return out
}

// Len is the number of records.
func (p *Profiler) Len() int {
	if p == nil {
		return 0
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.records)
}

// Reset drops every record. The epoch is kept.
func (p *Profiler) Reset() {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.records = nil
	p.mu.Unlock()
}
