package errors

import (
	"sync"
	"time"
)

// HistoryEntry is one recorded error.
type HistoryEntry struct {
	Time     time.Time
	Category Category
	Err      error
}

// History is a snapshot of the errors a device returned: the most recent ones,
// oldest first, and counts per category over the device's whole life.
type History struct {
	Recent []HistoryEntry
	Counts map[Category]int
	Total  int
}

// Count returns how many errors of category c were recorded.
func (h History) Count(c Category) int { return h.Counts[c] }

// DefaultHistoryDepth is how many recent errors a Recorder keeps by default.
const DefaultHistoryDepth = 64

// Recorder collects errors into a History. It is safe for concurrent use; the
// zero value keeps DefaultHistoryDepth entries.
type Recorder struct {
	mu     sync.Mutex
	Depth  int // recent entries kept (DefaultHistoryDepth when <= 0); read at the first Record
	depth  int // Depth as read at the first Record; fixed from then on
	ring   []HistoryEntry
	next   int
	counts [numCategories]int
	total  int
}

// Record adds err (nil is ignored) and returns it unchanged, so it can wrap a
// return statement: return r.Record(err).
func (r *Recorder) Record(err error) error {
	if err == nil {
		return nil
	}
	c := CategoryOf(err)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.depth == 0 {
		// Fixed once: a ring whose size changed later would lose its order.
		r.depth = r.Depth
		if r.depth <= 0 {
			r.depth = DefaultHistoryDepth
		}
	}
	depth := r.depth
	e := HistoryEntry{Time: time.Now(), Category: c, Err: err}
	if len(r.ring) < depth {
		r.ring = append(r.ring, e)
	} else {
		r.ring[r.next%depth] = e
	}
	r.next++
	if c >= 0 && c < numCategories {
		r.counts[c]++
	}
	r.total++
	return err
}

// Snapshot returns a copy of what was recorded.
func (r *Recorder) Snapshot() History {
	r.mu.Lock()
	defer r.mu.Unlock()
	h := History{Counts: map[Category]int{}, Total: r.total}
	n := len(r.ring)
	h.Recent = make([]HistoryEntry, 0, n)
	start := 0
	if n > 0 && r.next > n {
		start = r.next % n
	}
	for i := 0; i < n; i++ {
		h.Recent = append(h.Recent, r.ring[(start+i)%n])
	}
	for c, k := range r.counts {
		if k > 0 {
			h.Counts[Category(c)] = k
		}
	}
	return h
}
