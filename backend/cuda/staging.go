package cuda

import (
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/anygpu/gpu/backend/cuda/internal/cu"
	"github.com/anygpu/gpu/internal/ranges"
)

// Pageable transfers: a Go slice is not page-locked, so the DMA engines
// cannot read or write it. Up to directMax bytes go through the driver, which
// stages them itself (about 7 GB/s on an H200: one thread, small buffers).
// Larger transfers go through pinned chunks of our own, moved by several
// copy workers at once, because one core's memcpy (about 9 GB/s on the
// H200 machine's Xeon) is far slower than the copy engine (55 GB/s):
//
//   - a transfer is cut into chunks of stageChunk bytes, which the workers
//     take in order from a shared counter (so all of them finish together);
//     each worker owns two pinned slots;
//   - H2D: a worker takes the next chunk, waits until its slot's previous
//     DMA is done (the slot's event), copies the chunk from the Go slice into
//     the slot, and enqueues the slot's DMA and the event after it on the
//     stream — while one slot's DMA runs the worker fills its other slot, and
//     the copy engine has the chunks of every worker queued;
//   - D2H: a worker enqueues the DMAs of its first two chunks, then for each
//     waits for its event, copies the slot into the Go slice, and enqueues
//     the DMA of the next chunk it takes into the freed slot.
//
// Every worker binds the context on its own (locked) thread and issues its
// own driver calls with its own argument frame; the stream's lock, held by
// the caller for the whole transfer, keeps other work off the stream
// meanwhile. A transfer of a single chunk is copied by several cores
// (parallelCopy). The geometry was chosen with TestStagingSweep on an H200
// (16 cores): see README's performance section.
const directMax = 1 << 20 // up to this, pageable copies go straight to the driver

var (
	// stageChunk is the size of each pinned staging slot. 2 MiB chunks, 12
	// workers and 512 KiB copy pieces were the best balanced setting of the
	// H200 sweep (H2D 45.9 GB/s, D2H 47.1, D2H into freshly allocated memory
	// 48.0; pinned 55.3). 4 MiB chunks gave H2D up to 48.4 but D2H into fresh
	// memory only 35-38.
	stageChunk = 2 << 20
	// stageWorkers is the number of copy workers of a staged transfer; each
	// owns two slots of stageChunk bytes, so a staging set pins
	// 2·stageWorkers·stageChunk bytes (48 MiB with 12 workers).
	stageWorkers = defaultStageWorkers()
	// stageCopyPiece, when above 0, makes staged H2D copies go in pieces of
	// this many bytes. Go's copy() switches to non-temporal stores from 1 MiB
	// up, which send the staged chunk to DRAM; pieces under 1 MiB keep it in
	// the CPU's last-level cache, from which the copy engine may read it
	// (PCIe reads snoop the cache). TestStagingSweep's ANYGPU_SWEEP_PIECE_KIB
	// varies it.
	stageCopyPiece = 512 << 10
)

// stageCopy copies src into a staging slot (H2D), in stageCopyPiece pieces
// when that is set. Also measured on the H200 machine and not faster:
// glibc's memcpy through cgo (45.9-46.4 against 46.2-47.6 GB/s), and a
// copy that prefetches the source 4-64 KiB ahead (45.3-46.8 against
// 46.1-47.6; with prefetchnta 26-37).
func stageCopy(dst, src []byte) {
	p := stageCopyPiece
	if p <= 0 || len(src) <= p {
		copy(dst, src)
		return
	}
	for lo := 0; lo < len(src); lo += p {
		hi := min(lo+p, len(src))
		copy(dst[lo:hi], src[lo:hi])
	}
}

func defaultStageWorkers() int { return max(1, min(12, runtime.GOMAXPROCS(0))) }

// stageSlot is one pinned chunk and the event recorded after the last DMA
// that used it: the slot may be reused once the event has completed.
type stageSlot struct {
	mem     unsafe.Pointer
	ev      cu.Event
	pending bool
}

// stagePair is a staging set: two slots and an argument frame per worker.
// (The name is the one device.go's free list uses.)
type stagePair struct {
	chunk   int
	workers int
	slots   []stageSlot // worker w owns slots 2w and 2w+1
	frames  []cu.Frame  // worker w's driver-call arguments
}

// newStagePair allocates a staging set with the current geometry.
func newStagePair(d *device) (*stagePair, error) {
	sp := &stagePair{chunk: stageChunk, workers: stageWorkers}
	sp.slots = make([]stageSlot, 2*sp.workers)
	sp.frames = make([]cu.Frame, sp.workers)
	const op = "allocate staging memory"
	var r cu.Result
	err := d.bound(op, func(fr *cu.Frame) {
		for i := range sp.slots {
			if sp.slots[i].mem, r = d.lib.MemHostAlloc(int64(sp.chunk), cu.MemHostAllocPortable); r != cu.Success {
				break
			}
			if sp.slots[i].ev, r = d.lib.EventCreate(cu.EventDisableTiming); r != cu.Success {
				break
			}
		}
		if r != cu.Success {
			sp.free(d, fr)
		}
	})
	if err == nil {
		err = d.check(r, op+" ("+byteSize(int64(len(sp.slots)*sp.chunk))+")")
	}
	if err != nil {
		return nil, err
	}
	return sp, nil
}

// current reports whether the set has the current geometry (tests change it).
func (sp *stagePair) current() bool { return sp.chunk == stageChunk && sp.workers == stageWorkers }

// free releases the set; the context is current.
func (sp *stagePair) free(d *device, fr *cu.Frame) {
	for i := range sp.slots {
		sl := &sp.slots[i]
		if sl.pending {
			_ = d.lib.EventSynchronize(fr, sl.ev)
			sl.pending = false
		}
		if sl.ev != 0 {
			_ = d.lib.EventDestroy(sl.ev)
			sl.ev = 0
		}
		if sl.mem != nil {
			_ = d.lib.MemFreeHost(sl.mem)
			sl.mem = nil
		}
	}
}

// bytes is slot i's memory as a byte slice of n bytes.
func (sp *stagePair) bytes(i, n int) []byte { return cu.HostBytes(sp.slots[i].mem, int64(n)) }

// ready waits until slot i's last DMA has completed; the context is current.
func (sp *stagePair) ready(d *device, fr *cu.Frame, i int) error {
	sl := &sp.slots[i]
	if !sl.pending {
		return nil
	}
	sl.pending = false
	return d.check(d.lib.EventSynchronize(fr, sl.ev), "wait for staging memory")
}

// record enqueues slot i's event on h; the context is current.
func (sp *stagePair) record(d *device, fr *cu.Frame, i int, h cu.Stream, op string) error {
	if r := d.lib.EventRecord(fr, sp.slots[i].ev, h); r != cu.Success {
		return d.check(r, op+": record staging event")
	}
	sp.slots[i].pending = true
	return nil
}

// maxFreeStaging bounds the staging pairs a device keeps for reuse.
const maxFreeStaging = 4

// takeStaging returns a free staging pair, allocating one when none is free.
func (d *device) takeStaging() (*stagePair, error) {
	if sp, ok := takeFree(d, &d.staging); ok {
		return sp, nil
	}
	return newStagePair(d)
}

// takeCurrentStaging is takeStaging, dropping a set of another geometry.
func (d *device) takeCurrentStaging() (*stagePair, error) {
	for {
		sp, err := d.takeStaging()
		if err != nil || sp.current() {
			return sp, err
		}
		d.freeStaging(sp)
	}
}

// giveStaging puts sp back for reuse; the events in it order later reuse.
func (d *device) giveStaging(sp *stagePair) {
	if !keepFree(d, &d.staging, sp, maxFreeStaging) {
		d.freeStaging(sp)
	}
}

// freeStaging releases sp now.
func (d *device) freeStaging(sp *stagePair) {
	_ = d.bound("free staging", func(fr *cu.Frame) { sp.free(d, fr) })
}

// stageSet takes a staging set for a transfer of n bytes, with the number of
// workers its chunks keep busy and the counter that hands the chunks out
// (guided: see stageGuidedRead). The caller gives the set back.
func (d *device) stageSet(n int, guided bool) (*stagePair, int, *ranges.Counter, error) {
	sp, err := d.takeCurrentStaging()
	if err != nil {
		return nil, 0, nil, err
	}
	workers := min(sp.workers, (n+sp.chunk-1)/sp.chunk)
	return sp, workers, ranges.New(n, sp.chunk, workers, guided), nil
}

// stageRun runs work(w, fr) for w in [0, workers) — worker 0 on the calling
// goroutine, the others on their own — with the context current on each
// worker's thread, and returns the first error. stop tells a worker that
// another one failed.
func (s *stream) stageRun(sp *stagePair, workers int, op string, work func(w int, fr *cu.Frame, stop *atomic.Bool) error) error {
	d := s.dev
	var stop atomic.Bool
	errs := make([]error, workers)
	one := func(w int) {
		fr := &sp.frames[w]
		if err := d.enter(fr, op); err != nil {
			errs[w] = err
			stop.Store(true)
			return
		}
		defer d.leave()
		if err := work(w, fr, &stop); err != nil {
			errs[w] = err
			stop.Store(true)
		}
	}
	var wg sync.WaitGroup
	for w := 1; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			one(w)
		}()
	}
	one(0)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// stageGuidedRead and stageGuidedWrite turn guided ranges on for D2H and
// H2D. On the H200 (TestStagingSweep, 256 MiB, median of 9) guided ranges
// raised D2H from 46.0-47.2 to 49.2-49.4 GB/s at 12 workers, and lowered H2D
// by 1-2.5 GB/s at every geometry, so only reads use them.
var stageGuidedRead, stageGuidedWrite = true, false

// writeStaged copies src to dst through the staging set. It returns when
// every chunk has been copied out of src and its DMA enqueued.
func (s *stream) writeStaged(dst cu.DevicePtr, src []byte) error {
	const op = "write"
	d := s.dev
	sp, workers, cc, err := d.stageSet(len(src), stageGuidedWrite)
	if err != nil {
		return err
	}
	defer d.giveStaging(sp)
	n, chunk := len(src), sp.chunk
	return s.stageRun(sp, workers, op, func(w int, fr *cu.Frame, stop *atomic.Bool) error {
		for k := 0; ; k++ {
			lo, m, ok := cc.Take(stop)
			if !ok {
				return nil
			}
			slot := 2*w + k&1
			if err := sp.ready(d, fr, slot); err != nil {
				return err
			}
			if n <= chunk {
				parallelCopy(sp.bytes(slot, m), src[lo:lo+m])
			} else {
				stageCopy(sp.bytes(slot, m), src[lo:lo+m])
			}
			if r := d.lib.MemcpyHtoDAsyncPinned(fr, dst+cu.DevicePtr(lo), sp.slots[slot].mem, int64(m), s.h); r != cu.Success {
				return d.check(r, op+" "+byteSize(int64(n)))
			}
			if err := sp.record(d, fr, slot, s.h, op); err != nil {
				return err
			}
		}
	})
}

// readStaged copies src into dst through the staging set. It returns when
// dst holds the data (the stream has passed the last chunk's DMA).
func (s *stream) readStaged(dst []byte, src cu.DevicePtr) error {
	const op = "read"
	d := s.dev
	sp, workers, cc, err := d.stageSet(len(dst), stageGuidedRead)
	if err != nil {
		return err
	}
	defer d.giveStaging(sp)
	n, chunk := len(dst), sp.chunk
	type span struct{ lo, m int }
	return s.stageRun(sp, workers, op, func(w int, fr *cu.Frame, stop *atomic.Bool) error {
		// held[j] is the range whose DMA was enqueued into slot 2w+j; m 0: none.
		var held [2]span
		enqueue := func(j int) error {
			lo, m, ok := cc.Take(stop)
			held[j] = span{lo, m}
			if !ok {
				return nil
			}
			slot := 2*w + j
			if err := sp.ready(d, fr, slot); err != nil {
				return err
			}
			if r := d.lib.MemcpyDtoHAsyncPinned(fr, sp.slots[slot].mem, src+cu.DevicePtr(lo), int64(m), s.h); r != cu.Success {
				return d.check(r, op+" "+byteSize(int64(n)))
			}
			return sp.record(d, fr, slot, s.h, op)
		}
		for j := range held {
			if err := enqueue(j); err != nil {
				return err
			}
		}
		for k := 0; ; k++ {
			j := k & 1
			lo, m := held[j].lo, held[j].m
			if m == 0 {
				return nil // the other slot took a later range, or none: all done
			}
			slot := 2*w + j
			if err := sp.ready(d, fr, slot); err != nil {
				return err
			}
			if n <= chunk {
				parallelCopy(dst[lo:lo+m], sp.bytes(slot, m))
			} else {
				copy(dst[lo:lo+m], sp.bytes(slot, m))
			}
			if err := enqueue(j); err != nil {
				return err
			}
		}
	})
}

// parallelCopy copies src to dst using several cores for large copies: one
// core cannot reach the memory bandwidth a pinned DMA transfer runs at.
func parallelCopy(dst, src []byte) {
	n := len(src)
	const grain = 1 << 20
	parts := min(runtime.GOMAXPROCS(0), n/grain, 8)
	if parts <= 1 {
		copy(dst, src)
		return
	}
	step := (n + parts - 1) / parts
	step = (step + 63) &^ 63
	var wg sync.WaitGroup
	for lo := step; lo < n; lo += step {
		hi := min(lo+step, n)
		wg.Add(1)
		go func() {
			defer wg.Done()
			copy(dst[lo:hi], src[lo:hi])
		}()
	}
	copy(dst[:min(step, n)], src[:min(step, n)])
	wg.Wait()
}
