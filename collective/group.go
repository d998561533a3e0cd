package collective

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/errors"
	"github.com/anygpu/gpu/profiling"
)

// Inside a Group, NCCL launches the collectives at ncclGroupEnd, after the
// calls that enqueue them have returned: events around each call would time
// nothing. So a Group collects what its collectives enqueue on each stream
// (groupRecord), and brackets ncclGroupEnd with every such stream's events:
// one profiling record per stream per Group, named after the collectives it
// ran there, on the profile's time axis like every other record.
//
// NCCL groups are per OS thread (Group locks the calling goroutine to its
// thread), so the group a collective joins is the one under way on its
// thread: groups maps the thread to it.

// groupRecord is what one Group enqueued, per stream, in the order the
// streams were first used.
type groupRecord struct {
	streams []*groupStream
}

// groupStream is the collectives one Group enqueued on one stream.
type groupStream struct {
	s     *gpu.Stream
	ops   []string // each collective's name, in the order issued
	bytes int64    // what they move on this rank, summed
}

// add notes collective op, moving bytes, enqueued on s.
func (g *groupRecord) add(s *gpu.Stream, op string, bytes int64) {
	for _, gs := range g.streams {
		if gs.s == s {
			gs.ops, gs.bytes = append(gs.ops, op), gs.bytes+bytes
			return
		}
	}
	g.streams = append(g.streams, &groupStream{s: s, ops: []string{op}, bytes: bytes})
}

// name is the record's name: "group: " and the collectives, in the order
// of their first call, each followed by ×n when called n > 1 times
// ("group: send ×3, receive ×3").
func (gs *groupStream) name() string {
	var order []string
	counts := map[string]int{}
	for _, op := range gs.ops {
		if counts[op] == 0 {
			order = append(order, op)
		}
		counts[op]++
	}
	parts := make([]string, len(order))
	for i, op := range order {
		parts[i] = op
		if n := counts[op]; n > 1 {
			parts[i] = fmt.Sprintf("%s ×%d", op, n)
		}
	}
	return "group: " + strings.Join(parts, ", ")
}

// run calls end (ncclGroupEnd) once, bracketed by the events of every
// stream the group used (when its device has a profiler: see
// gpu.Stream.ProfileNative), so each stream's record spans the group's work
// on it. A stream that cannot be bracketed (closed) is left out, and the
// others are still recorded. end's error is returned, joined with the
// profiler's.
func (g *groupRecord) run(end func() error) error {
	var profErrs []error
	call := end
	for _, gs := range g.streams {
		inner := call
		call = func() error {
			entered := false
			var innerErr error
			err := gs.s.ProfileNative(profiling.KindCollective, gs.name(), gs.bytes, func() error {
				entered = true
				innerErr = inner()
				return innerErr
			})
			if !entered {
				profErrs = append(profErrs, err)
				return inner()
			}
			if err != nil && innerErr == nil {
				profErrs = append(profErrs, err) // the work ran; its record is lost
			}
			return innerErr
		}
	}
	return errors.Join(append([]error{call()}, profErrs...)...)
}

// groups maps each OS thread with a Group under way to what it records.
var groups = struct {
	sync.Mutex
	m map[int]*groupRecord
}{m: map[int]*groupRecord{}}

// beginGroup registers a Group on the calling (locked) thread, and returns
// its record and the function that unregisters it. A Group nested in another
// on the same thread (NCCL allows it: only the outermost ncclGroupEnd
// launches) records into the outer one: outer is false, done does nothing.
func beginGroup() (g *groupRecord, outer bool, done func()) {
	grouping.Add(1)
	tid := threadID()
	groups.Lock()
	defer groups.Unlock()
	if g, ok := groups.m[tid]; ok {
		return g, false, func() { grouping.Add(-1) }
	}
	g = &groupRecord{}
	groups.m[tid] = g
	return g, true, func() {
		groups.Lock()
		delete(groups.m, tid)
		groups.Unlock()
		grouping.Add(-1)
	}
}

// grouping counts the Groups under way in the process: when none is,
// currentGroup needs no look-up.
var grouping atomic.Int32

// currentGroup is the Group under way on the calling thread, or nil.
func currentGroup() *groupRecord {
	if grouping.Load() == 0 {
		return nil
	}
	tid := threadID()
	groups.Lock()
	defer groups.Unlock()
	return groups.m[tid]
}
