//go:build (darwin || freebsd || linux || netbsd || windows) && (amd64 || arm64)

package vulkan

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/anygpu/gpu/backend/vulkan/internal/vk"
	"github.com/anygpu/gpu/internal/ranges"
)

// Pipelined staging of large pageable transfers (the design of the CUDA
// backend's staging.go). One core's memcpy is far slower than the copy
// engine, and a transfer whose host copies and GPU copies take turns moves
// at neither's speed, so a Write or Read of at least pipeMin bytes runs
// copy workers that overlap both:
//
//   - the transfer is cut into ranges of at most pipeChunk bytes, which the
//     workers take in order from a shared counter; each worker owns two
//     slots of pipeChunk bytes carved from staging slabs;
//   - Write: a worker takes a range, waits on the stream's timeline
//     semaphore until its slot's previous copy is done, copies the range
//     into the slot (in pipePiece pieces, which keep the staged bytes in the
//     CPU's last-level cache for the copy engine to read), and hands the
//     slot to the caller's goroutine, which records the vkCmdCopyBuffer and
//     submits batches of flushBytes;
//   - Read: a worker asks for its two slots' copies to be recorded, then
//     for each waits for its batch, copies the slot into the slice at once
//     and asks for the next range in the freed slot; ranges shrink near the
//     end (a share of what remains) so the workers finish together. Read
//     returns when the slice holds the data.
//
// Only the calling goroutine, which holds the stream's lock, records and
// submits; workers only copy memory and wait on the semaphore. A worker
// learns the value its slot's copy completes only once that batch is
// submitted, and polls the semaphore's counter (pipeSpin) before it blocks
// in vkWaitSemaphores, whose wake-up on NVIDIA comes most of a millisecond
// late. The hazard barrier is taken once, for the whole range. Needs
// timeline semaphores; without them transfers take the single-threaded
// path.
const (
	pipeMin = 4 << 20 // staged transfers from this size are pipelined
	// pipeWaitSlice bounds one semaphore wait of a worker, so it notices
	// a transfer given up (a failed submission) in time.
	pipeWaitSlice = 20_000_000 // ns
	// pipeBacklog: while at least this many of the stream's batches are
	// submitted and not complete, the GPU has work queued, and a pipelined
	// transfer collects its copies into batches of pipeBatch bytes rather
	// than submitting each as it comes.
	pipeBacklog = 2
	// pipeLinger bounds how long a recorded copy waits for its batch to
	// fill before it is submitted anyway.
	pipeLinger = 100 * time.Microsecond
)

// The pipeline's geometry: variables so that BenchmarkPipeSweep can vary
// them (EnvPipeBatch sets pipeBatch).
var (
	pipeChunk = 2 << 20   // slot size and largest range; divides slabSize
	pipePiece = 512 << 10 // host copy piece of a Write
	// pipeMaxWorkers bounds the copy workers of a transfer (the CUDA
	// backend's H200 sweep found 12 best).
	pipeMaxWorkers = 12
	// pipeSpin is how long a worker polls the semaphore before it blocks.
	// On the H200 (256 MiB, 12 workers) 2 ms left no wait blocking and
	// gave Reads 41.6 GB/s and Writes 40.2 (blocking at once: 15.7 and
	// 37.6; 300 µs: 40.9 and 39.4; 50 µs: 15.8 and 38.5).
	pipeSpin = 2 * time.Millisecond
	// pipeBatch is the size a pipelined transfer's batches grow to while the
	// GPU has pipeBacklog batches queued: each submission costs the queue
	// a semaphore signal and a gap, which 2 MiB copies (42 µs at 50 GB/s)
	// feel. 0 submits every copy as it comes (flushBytes still applies).
	pipeBatch = envKiB(EnvPipeBatch, 8<<10) << 10
)

// EnvPipeBatch sets, in KiB, the size pipelined Writes and Reads let a batch
// of copies grow to before it is submitted while the GPU is busy (default
// 8192; 0 submits each 2 MiB copy as soon as it is recorded). A tuning knob.
const EnvPipeBatch = "ANYGPU_VULKAN_PIPE_BATCH_KIB"

// envKiB reads a non-negative integer from the environment variable name,
// else def.
func envKiB(name string, def int) int {
	v, err := strconv.Atoi(strings.TrimSpace(os.Getenv(name)))
	if err != nil || v < 0 {
		return def
	}
	return v
}

// pipeWorkers is the number of copy workers of a transfer of n bytes: up to
// 12 (the CUDA backend's H200 sweep), at most GOMAXPROCS, at most one per
// range.
func pipeWorkers(n int) int {
	return max(1, min(pipeMaxWorkers, runtime.GOMAXPROCS(0), (n+pipeChunk-1)/pipeChunk))
}

// pipeEvent is what a worker tells the recording goroutine.
type pipeEvent struct {
	kind   int // pipeRange, pipeError, pipeExit
	slot   int
	lo, m  int
	err    error
	worker int
}

const (
	pipeRange = iota // slot holds (Write) or should receive (Read) [lo, lo+m)
	pipeError
	pipeExit
)

// pipeSlot is a worker's staging slot.
type pipeSlot struct {
	sl  *slab
	off uint64
	// value receives the semaphore and timeline value of the batch that
	// copies the slot (value 0: the transfer was given up).
	value chan slotWait
}

// slotWait is the semaphore value a slot's copy completes.
type slotWait struct{ sem, value uint64 }

// pipe is one pipelined transfer.
type pipe struct {
	s       *stream
	n       int
	workers int
	slabs   []*slab
	slots   []pipeSlot
	events  chan pipeEvent
	stop    atomic.Bool
	ranges  *ranges.Counter
	wg      sync.WaitGroup
	last    uint64 // value of the last stream batch that used the staging
	// lastValue and lastAux name the batch of the last recorded copy.
	lastValue uint64
	lastAux   bool
	// aux, when set, takes every other copy (EnvPipeSplit); its first
	// batch waits for entry (the stream's work before the transfer); used:
	// a copy went to it.
	aux    *auxLane
	entry  []semWait
	used   bool
	copies int
}

// newPipe makes room for and takes the staging of a transfer of n bytes on
// lane, after a barrier where acc (the transfer's whole range of the device
// buffer) conflicts with earlier work. s.mu is held.
func (s *stream) newPipe(n, lane int, guided bool, acc access) (*pipe, error) {
	w := pipeWorkers(n)
	perSlab := int(slabSize / pipeChunk)
	need := (2*w + perSlab - 1) / perSlab
	if err := s.roomLocked(need); err != nil {
		return nil, err
	}
	p := &pipe{s: s, n: n, workers: w, ranges: ranges.New(n, pipeChunk, w, guided), events: make(chan pipeEvent, 4*w)}
	for range need {
		sl, err := s.d.slabs.get()
		if err != nil {
			p.release()
			return nil, err
		}
		p.slabs = append(p.slabs, sl)
	}
	p.slots = make([]pipeSlot, 2*w)
	for i := range p.slots {
		p.slots[i] = pipeSlot{sl: p.slabs[i/perSlab], off: uint64(i%perSlab) * uint64(pipeChunk), value: make(chan slotWait, 1)}
	}
	if err := s.hazardOnce(lane, acc); err != nil {
		p.release()
		return nil, err
	}
	if q := s.auxQueue(lane); q != nil && n >= 2*pipeChunk {
		a, err := s.auxLocked(q)
		if err != nil {
			p.release()
			return nil, err
		}
		if a != nil {
			// The second lane's first batch waits for everything the
			// stream submitted: submit what is recorded.
			if err := s.flushLocked(); err != nil {
				p.release()
				return nil, err
			}
			if s.err == nil { // else that submission failed: one queue
				p.aux, p.entry = a, s.entryWaitsLocked()
			}
		}
	}
	return p, nil
}

// roomLocked retires the stream's oldest batches until need more slabs fit
// under maxInflightSlabs.
func (s *stream) roomLocked(need int) error {
	for s.slabRefs+need > maxInflightSlabs {
		if err := s.flushLocked(); err != nil {
			return err
		}
		if len(s.inflight) == 0 {
			break
		}
		v := s.inflight[0].value
		if err := s.waitLocked(v); err != nil {
			return err
		}
		s.retireLocked(v)
	}
	return nil
}

// release hands the staging back: to the last batch that used it where that
// batch has not retired, else to the pool. s.mu is held.
func (p *pipe) release() {
	s := p.s
	var holder *batch
	if p.last != 0 {
		if b := s.cur; b != nil && b.value == p.last {
			holder = b
		}
		for _, b := range s.inflight {
			if b.value == p.last {
				holder = b
			}
		}
	}
	for _, sl := range p.slabs {
		if holder != nil {
			sl.refs++
			s.slabRefs++
			holder.slabs = append(holder.slabs, sl)
		}
		s.d.slabs.unref(sl)
	}
	p.slabs = nil
}

// bytes is slot i's memory, m bytes.
func (p *pipe) bytes(i, m int) []byte {
	sl := &p.slots[i]
	return sl.sl.vb.bytes[sl.off : sl.off+uint64(m)]
}

// pipeWaiter is a worker's semaphore wait: the wait info, the value it
// names and an argument frame of its own.
type pipeWaiter struct {
	h, val  uint64
	counter uint64
	info    vk.SemaphoreWaitInfo
	args    vk.Args
}

// await blocks a worker until the copy recorded for slot i completes. The
// value it waits for is always submitted (run hands it over after the
// submission), so it polls the semaphore's counter for up to pipeSpin
// before blocking in vkWaitSemaphores: NVIDIA's driver wakes a blocked
// host wait most of a millisecond late (0.7-0.8 ms per wait on the H200,
// against 0.18 ms polling), which held staged Reads at 15.7 GB/s.
func (p *pipe) await(wt *pipeWaiter, i int) error {
	sw := <-p.slots[i].value
	v := sw.value
	if v == 0 {
		return errPipeStopped
	}
	s := p.s
	wt.h, wt.val = sw.sem, v
	if sw.sem == s.sem.h && s.known.Load() >= v {
		return nil
	}
	start := time.Now()
	for !p.stop.Load() {
		if r := s.d.vd.SemaphoreCounterValue(&wt.args, wt.h, &wt.counter); r != vk.Success {
			return s.d.check(r, "wait for staging")
		}
		if wt.counter >= v {
			return nil
		}
		if time.Since(start) > pipeSpin {
			break
		}
		runtime.Gosched()
	}
	for !p.stop.Load() {
		r := s.d.vd.WaitSemaphores(&wt.info, pipeWaitSlice)
		if r == vk.Success {
			return nil
		}
		if r != vk.Timeout {
			return s.d.check(r, "wait for staging")
		}
	}
	return errPipeStopped
}

// errPipeStopped ends a worker of a transfer given up.
var errPipeStopped = &pipeStopped{}

type pipeStopped struct{}

func (*pipeStopped) Error() string { return "staged transfer given up" }

// run starts the workers and records what they hand over with record until
// every worker has exited. It returns the first error; a failed wait (the
// device lost) also fails the stream's queued work, as waitLocked does.
func (p *pipe) run(worker func(w int, wt *pipeWaiter) error, record func(ev pipeEvent) error) error {
	s := p.s
	for w := range p.workers {
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			wt := &pipeWaiter{h: s.sem.h}
			wt.info = vk.SemaphoreWaitInfo{SType: vk.StructureTypeSemaphoreWaitInfo, SemaphoreCount: 1,
				PSemaphores: unsafe.Pointer(&wt.h), PValues: unsafe.Pointer(&wt.val)}
			err := worker(w, wt)
			if err != nil && err != errPipeStopped {
				p.stop.Store(true)
				p.events <- pipeEvent{kind: pipeError, err: err, worker: w}
			}
			p.events <- pipeEvent{kind: pipeExit, worker: w}
		}()
	}
	abandoned := s.abandoned
	var firstErr, waitErr error
	alive := p.workers
	// ready holds the slots recorded since the last submission, with the
	// value each waits for: a worker learns its value once the batch is
	// submitted, so it never waits on a value not yet submitted.
	type readySlot struct {
		slot  int
		value uint64
		aux   bool
	}
	var ready []readySlot
	handle := func(ev pipeEvent) {
		switch ev.kind {
		case pipeExit:
			alive--
		case pipeError:
			if firstErr == nil {
				firstErr, waitErr = ev.err, ev.err
			}
		case pipeRange:
			if p.stop.Load() {
				p.slots[ev.slot].value <- slotWait{}
				return
			}
			if err := record(ev); err != nil {
				if firstErr == nil {
					firstErr = err
				}
				p.stop.Store(true)
				p.slots[ev.slot].value <- slotWait{}
				return
			}
			ready = append(ready, readySlot{ev.slot, p.lastValue, p.lastAux})
		}
	}
	if pipeBatch > 0 {
		s.batchLimit = int64(pipeBatch)
		defer func() { s.batchLimit = 0 }()
	}
	linger := time.NewTimer(time.Hour)
	linger.Stop()
	defer linger.Stop()
	var since time.Time // when the oldest slot in ready was recorded
	send := func(r readySlot) {
		w := slotWait{s.sem.h, r.value}
		if r.aux {
			w.sem = p.aux.sem.h
		}
		if p.stop.Load() {
			w = slotWait{}
		}
		p.slots[r.slot].value <- w
	}
	// open reports whether r's batch is still being recorded.
	open := func(r readySlot) bool {
		if r.aux {
			return p.aux.cur != nil && p.aux.cur.value == r.value
		}
		return s.cur != nil && s.cur.value == r.value
	}
	for alive > 0 {
		if len(ready) == 0 {
			handle(<-p.events)
			since = time.Now()
		} else {
			linger.Reset(pipeLinger - time.Since(since))
			select {
			case ev := <-p.events:
				handle(ev)
			case <-linger.C:
			}
			linger.Stop()
		}
	drain:
		for alive > 0 {
			select {
			case ev := <-p.events:
				handle(ev)
			default:
				break drain
			}
		}
		// While the GPU has batches queued, let the current one grow (up
		// to pipeBatch bytes, or pipeLinger): tell the workers whose
		// copies are already submitted, and wait for more.
		if pipeBatch > 0 && !p.stop.Load() && len(ready) > 0 && s.cur != nil && time.Since(since) < pipeLinger {
			s.retireLocked(s.completedLocked())
			if len(s.inflight) >= pipeBacklog {
				keep := ready[:0]
				for _, r := range ready {
					if open(r) {
						keep = append(keep, r)
					} else {
						send(r)
					}
				}
				ready = keep
				continue
			}
		}
		// Submit what is recorded before blocking: workers may be waiting
		// for it.
		if err := s.flushLocked(); err != nil && firstErr == nil {
			firstErr = err
			p.stop.Store(true)
		}
		if p.aux != nil && !s.flushAuxLocked(p.aux) {
			p.stop.Store(true) // reported by Synchronize
		}
		if s.abandoned > abandoned {
			p.stop.Store(true) // a submission failed: reported by Synchronize
		}
		for _, r := range ready {
			send(r)
		}
		ready = ready[:0]
		s.retireLocked(s.completedLocked())
	}
	p.wg.Wait()
	if waitErr != nil {
		s.failLocked(waitErr)
	}
	return firstErr
}

// recordCopy records one copy of a pipelined transfer, on the stream's lane
// or, every other copy of a split transfer, on the second lane. s.mu is
// held.
func (p *pipe) recordCopy(lane int, src, dst uint64, srcOff, dstOff uint64, m int, hostRead bool) error {
	s := p.s
	p.copies++
	if a := p.aux; a != nil && p.copies&1 == 0 {
		var waits []semWait
		if !p.used {
			waits = p.entry
		}
		bt, err := s.recordAuxLocked(a, waits)
		if err != nil {
			return err
		}
		p.used = true
		s.region = vk.BufferCopy{SrcOffset: srcOff, DstOffset: dstOff, Size: uint64(m)}
		s.d.vd.CmdCopyBuffer(&s.args, bt.cb, src, dst, &s.region)
		if hostRead {
			bt.hostRead = true
		}
		p.lastValue, p.lastAux = bt.value, true
		bt.ops++
		bt.bytes += int64(m)
		limit := int64(flushBytes)
		if s.batchLimit > 0 {
			limit = s.batchLimit
		}
		if bt.ops >= maxBatchOps || bt.bytes >= limit {
			if !s.flushAuxLocked(a) {
				return s.err
			}
		}
		return nil
	}
	bt, err := s.recordLocked(lane)
	if err != nil {
		return err
	}
	s.region = vk.BufferCopy{SrcOffset: srcOff, DstOffset: dstOff, Size: uint64(m)}
	s.d.vd.CmdCopyBuffer(&s.args, bt.cb, src, dst, &s.region)
	if hostRead {
		bt.hostRead = true
	}
	p.last = bt.value
	p.lastValue, p.lastAux = bt.value, false
	return s.doneLocked(bt, int64(m))
}

// join submits the second lane's recorded copies and orders the stream
// after them (joinAuxLocked); the joining batch holds the staging (p.last).
// Called after run, also when it failed. s.mu is held.
func (p *pipe) join(lane int) error {
	a := p.aux
	if a == nil {
		return nil
	}
	s := p.s
	p.aux = nil
	s.flushAuxLocked(a)
	if !p.used {
		return nil // nothing of this transfer reached the lane
	}
	v, err := s.joinAuxLocked(a, lane)
	if v != 0 {
		p.last = v
	}
	return err
}

// hazardOnce orders a pipelined transfer after the stream's earlier work
// that conflicts with acc (one barrier for all its copies). s.mu is held.
func (s *stream) hazardOnce(lane int, acc access) error {
	bt, err := s.recordLocked(lane)
	if err != nil {
		return err
	}
	s.accs = append(s.accs[:0], acc)
	s.hazardLocked(bt, s.accs)
	return nil
}

// writePiped is Write of a large slice through pipelined staging. s.mu is
// held; the stream has timeline semaphores.
func (s *stream) writePiped(b *buffer, off uint64, src []byte) error {
	n := len(src)
	lane := s.hostLane(uint64(n))
	p, err := s.newPipe(n, lane, false, access{b.vb.h, off, off + uint64(n), true})
	if err != nil {
		return err
	}
	defer p.release()
	err = p.run(func(w int, wt *pipeWaiter) error {
		var pending [2]bool
		for k := 0; ; k++ {
			lo, m, ok := p.ranges.Take(&p.stop)
			if !ok {
				return nil
			}
			i := 2*w + k&1
			if pending[k&1] {
				if err := p.await(wt, i); err != nil {
					return err
				}
			}
			dst := p.bytes(i, m)
			for q := 0; q < m; q += pipePiece {
				e := min(q+pipePiece, m)
				copy(dst[q:e], src[lo+q:lo+e])
			}
			pending[k&1] = true
			p.events <- pipeEvent{kind: pipeRange, slot: i, lo: lo, m: m, worker: w}
		}
	}, func(ev pipeEvent) error {
		sl := &p.slots[ev.slot]
		return p.recordCopy(lane, sl.sl.vb.h, b.vb.h, sl.off, off+uint64(ev.lo), ev.m, false)
	})
	if jerr := p.join(lane); err == nil {
		err = jerr
	}
	if err != nil {
		return err
	}
	return s.flushLocked()
}

// readPiped is Read into a large slice through pipelined staging; dst holds
// the data when it returns. s.mu is held; the stream has timeline
// semaphores.
func (s *stream) readPiped(dst []byte, b *buffer, off uint64) error {
	n := len(dst)
	lane := s.hostLane(uint64(n))
	p, err := s.newPipe(n, lane, true, access{b.vb.h, off, off + uint64(n), false})
	if err != nil {
		return err
	}
	defer p.release()
	err = p.run(func(w int, wt *pipeWaiter) error {
		type span struct{ lo, m int }
		var held [2]span
		enqueue := func(j int) {
			lo, m, ok := p.ranges.Take(&p.stop)
			if !ok {
				held[j] = span{}
				return
			}
			held[j] = span{lo, m}
			p.events <- pipeEvent{kind: pipeRange, slot: 2*w + j, lo: lo, m: m, worker: w}
		}
		enqueue(0)
		enqueue(1)
		for k := 0; ; k++ {
			j := k & 1
			h := held[j]
			if h.m == 0 {
				return nil // ranges are taken in turn: the other slot is done too
			}
			if err := p.await(wt, 2*w+j); err != nil {
				return err
			}
			copy(dst[h.lo:h.lo+h.m], p.bytes(2*w+j, h.m))
			enqueue(j)
		}
	}, func(ev pipeEvent) error {
		sl := &p.slots[ev.slot]
		return p.recordCopy(lane, b.vb.h, sl.sl.vb.h, off+uint64(ev.lo), sl.off, ev.m, true)
	})
	if jerr := p.join(lane); err == nil {
		err = jerr
	}
	return err
}

// slabSize is the size of a staging slab; writes and reads of Go slices move
// through slabs in pieces of at most this size.
const slabSize = 8 << 20

// maxFreeSlabs is how many idle slabs a device keeps for reuse.
const maxFreeSlabs = 8

// slab is a host-visible staging buffer. A stream carves regions from its
// current slab; each batch that used it holds a reference, so the slab is
// reused only when the stream has moved on and those batches are retired.
type slab struct {
	vb   *vkBuffer
	refs int    // the stream holding it as current + the batches using it
	head uint64 // next free byte
}

type slabPool struct {
	d    *device
	mu   sync.Mutex
	free []*slab
}

// get returns an empty slab with one reference. d.mu is held.
func (p *slabPool) get() (*slab, error) {
	p.mu.Lock()
	if n := len(p.free); n > 0 {
		s := p.free[n-1]
		p.free = p.free[:n-1]
		p.mu.Unlock()
		s.refs, s.head = 1, 0
		return s, nil
	}
	p.mu.Unlock()
	vb, err := p.d.newVkBuffer(p.d.hostMem, slabSize, hostUsage)
	if err != nil {
		return nil, err
	}
	return &slab{vb: vb, refs: 1}, nil
}

// unref drops a reference; the last one returns the slab. d.mu is held.
func (p *slabPool) unref(s *slab) {
	s.refs--
	if s.refs > 0 {
		return
	}
	p.mu.Lock()
	if len(p.free) < maxFreeSlabs {
		p.free = append(p.free, s)
		p.mu.Unlock()
		return
	}
	p.mu.Unlock()
	s.vb.destroy(p.d)
}

func (p *slabPool) destroy() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, s := range p.free {
		s.vb.destroy(p.d)
	}
	p.free = nil
}

// querySlot is one timestamp query.
type querySlot struct {
	pool uint64
	idx  uint32
}

// queryPool hands out timestamp queries from VkQueryPools of queriesPerPool.
type queryPool struct {
	d     *device
	mu    sync.Mutex
	pools []uint64
	free  []querySlot
}

const queriesPerPool = 512

// get returns a free query. d.mu is held.
func (p *queryPool) get() (querySlot, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.free) == 0 {
		info := vk.QueryPoolCreateInfo{SType: vk.StructureTypeQueryPoolCreateInfo, QueryType: vk.QueryTypeTimestamp, QueryCount: queriesPerPool}
		h, r := p.d.vd.CreateQueryPool(&info)
		if r != vk.Success {
			return querySlot{}, p.d.check(r, "create query pool")
		}
		p.pools = append(p.pools, h)
		for i := uint32(queriesPerPool); i > 0; i-- {
			p.free = append(p.free, querySlot{h, i - 1})
		}
	}
	q := p.free[len(p.free)-1]
	p.free = p.free[:len(p.free)-1]
	if p.d.hostReset {
		p.d.vd.ResetQueryPool(q.pool, q.idx, 1)
	}
	return q, nil
}

func (p *queryPool) put(q querySlot) {
	p.mu.Lock()
	p.free = append(p.free, q)
	p.mu.Unlock()
}

func (p *queryPool) destroy() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, h := range p.pools {
		p.d.vd.DestroyQueryPool(h)
	}
	p.pools, p.free = nil, nil
}
