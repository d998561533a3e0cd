//go:build (darwin || freebsd || linux || netbsd || windows) && (amd64 || arm64)

package vulkan

import (
	"context"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/backend/vulkan/internal/vk"
	"github.com/anygpu/gpu/errors"
)

// Lanes: the queues a stream records for.
const (
	laneCompute  = 0
	laneTransfer = 1
)

const (
	// maxBatchOps is how many commands a batch collects before it is
	// submitted on its own.
	maxBatchOps = 64
	// flushBytes submits a batch once it moves this many bytes, so large
	// transfers start while the next piece is staged.
	flushBytes = 4 << 20
	// transferLaneBytes: host transfers of at least this size go to the
	// transfer queue where the device has one; smaller ones stay on the
	// stream's current queue to avoid switching.
	transferLaneBytes = 1 << 20
	// maxInflightSlabs bounds the staging a stream holds in unretired
	// batches (slab references, 8 MiB each).
	maxInflightSlabs = 8
	// maxBindings is the most buffer arguments of one launch.
	maxBindings = 32
	// maxPushBytes is the most scalar bytes of one launch.
	maxPushBytes = 256
)

// timelineSem is a stream's timeline semaphore. Semaphores are not destroyed
// when their stream closes but handed to the next stream (which goes on
// from the value reached), and destroyed with the device: a driver may
// still touch a semaphore for a moment after the host has seen its last
// value (Mesa's lavapipe does, in its submit thread), and other streams'
// waits may name it.
type timelineSem struct {
	h uint64
}

// streamRes are the Vulkan objects of a closed stream, kept for the next
// one: queues, command pools with their batches, the semaphore and the
// value it has reached.
type streamRes struct {
	q     [2]*queue
	pools [2]uint64
	sem   *timelineSem
	value uint64
	spare [2][]*batch
}

type semWait struct {
	sem   *timelineSem
	value uint64
}

// pendingRead is a staged Read: src (staging) goes to dst when the batch
// retires.
type pendingRead struct{ dst, src []byte }

// batch is one command buffer: recorded, submitted, retired, reused.
type batch struct {
	lane     int
	cb       uintptr
	fence    uint64 // fence mode
	value    uint64 // timeline value (or sequence number) it completes
	begun    bool
	ops      int
	bytes    int64
	hostRead bool   // the host reads memory the batch writes
	pipeline uint64 // pipeline bound in cb
	failed   bool
	slabs    []*slab
	reads    []pendingRead
	queries  []querySlot
	waits    []semWait
	desc     descPools
}

// access is a range of a buffer an operation reads or writes.
type access struct {
	buf    uint64
	lo, hi uint64
	write  bool
}

// hazards are the accesses since the stream's last barrier.
type hazards struct {
	list []access
	full bool
}

func (h *hazards) reset() { h.list, h.full = h.list[:0], false }

// stream is an ordered queue of device work: backend.Stream.
type stream struct {
	d     *device
	q     [2]*queue
	pools [2]uint64
	sem   *timelineSem // nil in fence mode

	mu        sync.Mutex
	closed    bool
	err       error  // first asynchronous error since Synchronize
	submitted uint64 // value of the last submitted batch
	abandoned uint64 // batches up to this value failed to submit
	lastLane  int
	cur       *batch
	// batchLimit, when above 0, replaces flushBytes (a pipelined
	// transfer's pipeBatch).
	batchLimit int64
	inflight   []*batch
	spare      [2][]*batch
	slab       *slab
	slabRefs   int      // slab references held by unretired batches
	aux        *auxLane // second lane of split transfers (EnvPipeSplit)
	hz         hazards

	known atomic.Uint64 // highest value known complete
	mark  atomic.Uint64 // value of the last batch given a command
	gone  atomic.Bool   // closed: every mark is passed

	// Argument memory reused by every call (guarded by mu).
	args       vk.Args
	beginInfo  vk.CommandBufferBeginInfo
	counter    uint64
	region     vk.BufferCopy
	barrier    vk.MemoryBarrier
	pc         [maxPushBytes]byte
	writes     [maxBindings]vk.WriteDescriptorSet
	infos      [maxBindings]vk.DescriptorBufferInfo
	accs       []access
	submit     vk.SubmitInfo
	tsSubmit   vk.TimelineSemaphoreSubmitInfo
	waitSems   []uint64
	waitVals   []uint64
	waitStages []uint32
	signalSem  [1]uint64
	signalVal  [1]uint64
	cbs        [1]uintptr
	fenceArg   uint64
	set        uint64
	setAlloc   vk.DescriptorSetAllocateInfo
	setLayout  uint64
	copyArgs   [5]backend.Arg
}

var (
	_ backend.Stream       = (*stream)(nil)
	_ backend.HostCopier   = (*stream)(nil)
	_ backend.NativeHandle = (*stream)(nil)
)

// NewStream creates a stream on the next compute queue (and transfer queue).
func (d *device) NewStream() (backend.Stream, error) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	if err := d.usable("new stream"); err != nil {
		return nil, err
	}
	s := &stream{d: d, lastLane: -1, hz: hazards{list: make([]access, 0, 32)}, accs: make([]access, 0, maxBindings+2)}
	d.objMu.Lock()
	var res *streamRes
	if n := len(d.spareStreams); n > 0 {
		res = d.spareStreams[n-1]
		d.spareStreams = d.spareStreams[:n-1]
	}
	d.objMu.Unlock()
	if res != nil {
		s.q, s.pools, s.sem, s.spare = res.q, res.pools, res.sem, res.spare
		s.submitted = res.value
		s.known.Store(res.value)
		s.mark.Store(res.value)
	} else if err := s.create(); err != nil {
		s.destroy()
		return nil, err
	}
	if s.sem != nil {
		s.signalSem[0] = s.sem.h
	}
	for i := range s.writes {
		s.writes[i] = vk.WriteDescriptorSet{SType: vk.StructureTypeWriteDescriptorSet, DstBinding: uint32(i),
			DescriptorCount: 1, DescriptorType: vk.DescriptorTypeStorageBuffer, PBufferInfo: unsafe.Pointer(&s.infos[i])}
	}
	d.objMu.Lock()
	d.streams[s] = struct{}{}
	d.objMu.Unlock()
	return s, nil
}

// create makes a new stream's queues, command pools and semaphore.
func (s *stream) create() error {
	d := s.d
	s.q[laneCompute], s.q[laneTransfer] = d.nextQueues()
	for lane, q := range s.q {
		if q == nil {
			continue
		}
		info := vk.CommandPoolCreateInfo{SType: vk.StructureTypeCommandPoolCreateInfo,
			Flags: vk.CommandPoolCreateTransientBit | vk.CommandPoolCreateResetCommandBufferBit, QueueFamilyIndex: q.family}
		h, r := d.vd.CreateCommandPool(&info)
		if r != vk.Success {
			return d.check(r, "new stream: command pool")
		}
		s.pools[lane] = h
	}
	if d.timeline {
		sti := vk.SemaphoreTypeCreateInfo{SType: vk.StructureTypeSemaphoreTypeCreateInfo, SemaphoreType: vk.SemaphoreTypeTimeline}
		si := vk.SemaphoreCreateInfo{SType: vk.StructureTypeSemaphoreCreateInfo, PNext: unsafe.Pointer(&sti)}
		h, r := d.vd.CreateSemaphore(&si)
		if r != vk.Success {
			return d.check(r, "new stream: timeline semaphore")
		}
		s.sem = &timelineSem{h: h}
		d.objMu.Lock()
		d.sems = append(d.sems, s.sem)
		d.objMu.Unlock()
	}
	return nil
}

// NativeHandle is the VkQueue of the stream's compute lane.
func (s *stream) NativeHandle() uintptr { return s.q[laneCompute].h }

// enter takes the device's read lock and the stream's lock, or reports why
// the stream cannot be used. leave undoes it.
func (s *stream) enter(op string) error {
	s.d.mu.RLock()
	if err := s.d.usable(op); err != nil {
		s.d.mu.RUnlock()
		return err
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		s.d.mu.RUnlock()
		return &errors.Error{Backend: Name, Op: op, Category: errors.Closed, Msg: "stream is closed", Hint: "create a new stream"}
	}
	return nil
}

func (s *stream) leave() {
	s.mu.Unlock()
	s.d.mu.RUnlock()
}

// openLocked returns the batch commands for lane are recorded into.
func (s *stream) openLocked(lane int) (*batch, error) {
	if s.q[lane] == nil {
		lane = laneCompute
	}
	if b := s.cur; b != nil {
		if b.lane == lane {
			return b, nil
		}
		if b.ops > 0 {
			if err := s.flushLocked(); err != nil {
				return nil, err
			}
		}
	}
	var b *batch
	if n := len(s.spare[lane]); n > 0 {
		b = s.spare[lane][n-1]
		s.spare[lane] = s.spare[lane][:n-1]
	} else {
		cb, r := s.d.vd.AllocateCommandBuffer(s.pools[lane])
		if r != vk.Success {
			return nil, s.d.check(r, "allocate command buffer")
		}
		b = &batch{lane: lane, cb: cb}
		if !s.d.timeline {
			f, r := s.d.vd.CreateFence(false)
			if r != vk.Success {
				s.d.vd.FreeCommandBuffer(s.pools[lane], &b.cb)
				return nil, s.d.check(r, "create fence")
			}
			b.fence = f
		}
	}
	if old := s.cur; old != nil { // empty batch of the other lane: keep its waits
		b.waits = append(b.waits, old.waits...)
		old.waits = old.waits[:0]
		s.spare[old.lane] = append(s.spare[old.lane], old)
	}
	b.value = s.submitted + 1
	if s.sem != nil && s.lastLane >= 0 && s.lastLane != lane && s.submitted > 0 {
		// Switching queues: order after the stream's previous submission.
		b.waits = append(b.waits, semWait{s.sem, s.submitted})
	}
	if s.lastLane != lane {
		s.hz.reset()
	}
	s.cur = b
	return b, nil
}

// beginLocked starts recording b's command buffer.
func (s *stream) beginLocked(b *batch) error {
	if b.begun {
		return nil
	}
	s.beginInfo = vk.CommandBufferBeginInfo{SType: vk.StructureTypeCommandBufferBeginInfo, Flags: vk.CommandBufferUsageOneTimeSubmitBit}
	if r := s.d.vd.BeginCommandBuffer(&s.args, b.cb, &s.beginInfo); r != vk.Success {
		return s.d.check(r, "begin command buffer")
	}
	b.begun, b.pipeline = true, 0
	return nil
}

// recordLocked opens the batch of lane and starts its command buffer.
func (s *stream) recordLocked(lane int) (*batch, error) {
	b, err := s.openLocked(lane)
	if err != nil {
		return nil, err
	}
	return b, s.beginLocked(b)
}

// doneLocked counts a command recorded into b and submits b when it is
// large enough.
func (s *stream) doneLocked(b *batch, bytes int64) error {
	b.ops++
	b.bytes += bytes
	s.mark.Store(b.value)
	limit := int64(flushBytes)
	if s.batchLimit > 0 {
		limit = s.batchLimit
	}
	if b.ops >= maxBatchOps || b.bytes >= limit {
		return s.flushLocked()
	}
	return nil
}

// stages of a lane's barriers.
func laneStages(lane int) (stages, writes, reads uint32) {
	if lane == laneTransfer {
		return vk.PipelineStageTransferBit, vk.AccessTransferWriteBit, vk.AccessTransferReadBit | vk.AccessTransferWriteBit
	}
	return vk.PipelineStageComputeShaderBit | vk.PipelineStageTransferBit,
		vk.AccessShaderWriteBit | vk.AccessTransferWriteBit,
		vk.AccessShaderReadBit | vk.AccessShaderWriteBit | vk.AccessTransferReadBit | vk.AccessTransferWriteBit |
			vk.AccessUniformReadBit
}

// hazardLocked records a barrier before an operation with accesses accs
// when one of them overlaps an earlier access since the last barrier and
// either writes, then remembers accs.
func (s *stream) hazardLocked(b *batch, accs []access) {
	need := s.hz.full
	for _, a := range accs {
		if need {
			break
		}
		for _, h := range s.hz.list {
			if a.buf == h.buf && a.lo < h.hi && h.lo < a.hi && (a.write || h.write) {
				need = true
				break
			}
		}
	}
	if need {
		stages, writes, reads := laneStages(b.lane)
		s.barrier = vk.MemoryBarrier{SType: vk.StructureTypeMemoryBarrier, SrcAccessMask: writes, DstAccessMask: reads}
		s.d.vd.CmdMemoryBarrier(&s.args, b.cb, stages, stages, &s.barrier)
		s.hz.reset()
	}
	for _, a := range accs {
		if len(s.hz.list) == cap(s.hz.list) {
			s.hz.full = true
			break
		}
		s.hz.list = append(s.hz.list, a)
	}
}

// flushLocked submits the open batch if it has commands.
func (s *stream) flushLocked() error {
	b := s.cur
	if b == nil || b.ops == 0 {
		return nil
	}
	s.cur = nil
	d := s.d
	if b.hostRead || d.uma {
		stages, writes, _ := laneStages(b.lane)
		s.barrier = vk.MemoryBarrier{SType: vk.StructureTypeMemoryBarrier, SrcAccessMask: writes, DstAccessMask: vk.AccessHostReadBit}
		d.vd.CmdMemoryBarrier(&s.args, b.cb, stages, vk.PipelineStageHostBit, &s.barrier)
	}
	r := d.vd.EndCommandBuffer(&s.args, b.cb)
	if r == vk.Success {
		s.cbs[0] = b.cb
		s.submit = vk.SubmitInfo{SType: vk.StructureTypeSubmitInfo, CommandBufferCount: 1, PCommandBuffers: unsafe.Pointer(&s.cbs[0])}
		fence := uint64(0)
		if s.sem != nil {
			s.waitSems, s.waitVals, s.waitStages = s.waitSems[:0], s.waitVals[:0], s.waitStages[:0]
			for _, w := range b.waits {
				s.waitSems = append(s.waitSems, w.sem.h)
				s.waitVals = append(s.waitVals, w.value)
				s.waitStages = append(s.waitStages, vk.PipelineStageAllCommandsBit)
			}
			s.signalVal[0] = b.value
			s.tsSubmit = vk.TimelineSemaphoreSubmitInfo{SType: vk.StructureTypeTimelineSemaphoreSubmitInfo,
				SignalSemaphoreValueCount: 1, PSignalSemaphoreValues: unsafe.Pointer(&s.signalVal[0])}
			s.submit.PNext = unsafe.Pointer(&s.tsSubmit)
			s.submit.SignalSemaphoreCount = 1
			s.submit.PSignalSemaphores = unsafe.Pointer(&s.signalSem[0])
			if n := len(b.waits); n > 0 {
				s.tsSubmit.WaitSemaphoreValueCount = uint32(n)
				s.tsSubmit.PWaitSemaphoreValues = unsafe.Pointer(&s.waitVals[0])
				s.submit.WaitSemaphoreCount = uint32(n)
				s.submit.PWaitSemaphores = unsafe.Pointer(&s.waitSems[0])
				s.submit.PWaitDstStageMask = unsafe.Pointer(&s.waitStages[0])
			}
		} else {
			fence = b.fence
		}
		q := s.q[b.lane]
		q.mu.Lock()
		r = d.vd.QueueSubmit(&s.args, q.h, 1, unsafe.Pointer(&s.submit), fence)
		q.mu.Unlock()
	}
	s.submitted = b.value
	s.lastLane = b.lane
	s.inflight = append(s.inflight, b)
	if r != vk.Success {
		b.failed = true
		s.abandoned = b.value
		err := d.check(r, "submit")
		if s.err == nil {
			s.err = err
		}
		return nil // reported by Synchronize
	}
	return nil
}

// completedLocked returns the highest value known complete, asking the
// driver.
func (s *stream) completedLocked() uint64 {
	v := s.known.Load()
	if s.sem != nil {
		if r := s.d.vd.SemaphoreCounterValue(&s.args, s.sem.h, &s.counter); r == vk.Success {
			v = max(v, s.counter)
		} else {
			s.failLocked(s.d.check(r, "query timeline semaphore"))
		}
	} else {
		for _, b := range s.inflight {
			if b.value <= v {
				continue
			}
			if b.failed {
				v = b.value
				continue
			}
			r := s.d.vd.FenceStatus(&s.args, b.fence)
			if r == vk.NotReady {
				break
			}
			if r != vk.Success {
				s.failLocked(s.d.check(r, "fence status"))
				break
			}
			v = b.value
		}
	}
	v = max(v, s.abandoned)
	s.known.Store(v)
	return v
}

// failLocked records err and gives up on everything submitted (the device is
// lost).
func (s *stream) failLocked(err error) {
	if s.err == nil {
		s.err = err
	}
	s.abandoned = s.submitted
	for _, b := range s.inflight {
		b.failed = true
	}
}

// waitLocked blocks until value v completes (holding the lock: used where a
// stream must make room for staging).
func (s *stream) waitLocked(v uint64) error {
	for s.completedLocked() < v {
		if err := s.waitDriver(v, time.Second); err != nil {
			s.failLocked(err)
			return err
		}
	}
	return nil
}

// waitDriver waits up to timeout in the driver for value v of the stream.
func (s *stream) waitDriver(v uint64, timeout time.Duration) error {
	if s.sem != nil {
		h, val := s.sem.h, v
		info := &vk.SemaphoreWaitInfo{SType: vk.StructureTypeSemaphoreWaitInfo, SemaphoreCount: 1,
			PSemaphores: unsafe.Pointer(&h), PValues: unsafe.Pointer(&val)}
		r := s.d.vd.WaitSemaphores(info, uint64(timeout))
		if r == vk.Success || r == vk.Timeout {
			return nil
		}
		return s.d.check(r, "wait")
	}
	var fence uint64
	for _, b := range s.inflight {
		if b.value >= v && !b.failed {
			fence = b.fence
			break
		}
	}
	if fence == 0 {
		return nil
	}
	s.fenceArg = fence
	r := s.d.vd.WaitForFence(&s.fenceArg, uint64(timeout))
	if r == vk.Success || r == vk.Timeout {
		return nil
	}
	return s.d.check(r, "wait")
}

// waitValue blocks until value v completes or ctx ends, without holding the
// stream's lock (the device's read lock is held).
func (s *stream) waitValue(ctx context.Context, v uint64) error {
	if s.known.Load() >= v {
		return nil
	}
	slice := time.Second
	if ctx.Done() != nil {
		slice = 5 * time.Millisecond
	}
	s.mu.Lock()
	sem := s.sem
	s.mu.Unlock()
	for {
		s.mu.Lock()
		c := s.completedLocked()
		err := s.err
		s.mu.Unlock()
		if c >= v {
			return nil
		}
		if err != nil && errors.IsFatal(err) {
			return err
		}
		if ctx.Err() != nil {
			return timeoutError(ctx, "synchronize")
		}
		if sem != nil {
			h, val := sem.h, v
			info := &vk.SemaphoreWaitInfo{SType: vk.StructureTypeSemaphoreWaitInfo, SemaphoreCount: 1,
				PSemaphores: unsafe.Pointer(&h), PValues: unsafe.Pointer(&val)}
			if r := s.d.vd.WaitSemaphores(info, uint64(slice)); r != vk.Success && r != vk.Timeout {
				err := s.d.check(r, "wait")
				s.mu.Lock()
				s.failLocked(err)
				s.mu.Unlock()
				return err
			}
			continue
		}
		s.mu.Lock()
		err = s.waitDriver(v, slice)
		s.mu.Unlock()
		if err != nil {
			return err
		}
	}
}

func timeoutError(ctx context.Context, op string) error {
	return &errors.Error{Backend: Name, Op: op, Category: errors.Timeout, Retryable: true,
		Msg: "the context ended before the work finished", Err: ctx.Err(),
		Hint: "the work goes on: synchronize again with a longer deadline, or split it into smaller launches"}
}

// retireLocked finishes the batches up to value v: staged reads reach their
// slices, staging and queries are returned, command buffers reused.
func (s *stream) retireLocked(v uint64) {
	n := 0
	for _, b := range s.inflight {
		if b.value > v {
			break
		}
		n++
		if !b.failed {
			for _, r := range b.reads {
				copyParallel(r.dst, r.src)
			}
		}
		for i := range b.reads {
			b.reads[i] = pendingRead{}
		}
		b.reads = b.reads[:0]
		for i, sl := range b.slabs {
			s.d.slabs.unref(sl)
			b.slabs[i] = nil
		}
		s.slabRefs -= len(b.slabs)
		b.slabs = b.slabs[:0]
		for _, q := range b.queries {
			s.d.queries.put(q)
		}
		b.queries = b.queries[:0]
		for i := range b.waits {
			b.waits[i] = semWait{}
		}
		b.waits = b.waits[:0]
		b.desc.reset(s.d)
		if b.fence != 0 {
			s.d.vd.ResetFence(&b.fence)
		}
		b.begun, b.ops, b.bytes, b.hostRead, b.failed, b.pipeline = false, 0, 0, false, false, 0
		s.spare[b.lane] = append(s.spare[b.lane], b)
	}
	if n > 0 {
		rest := copy(s.inflight, s.inflight[n:])
		for i := rest; i < len(s.inflight); i++ {
			s.inflight[i] = nil
		}
		s.inflight = s.inflight[:rest]
		s.d.reap()
	}
}

// idleLocked reports whether the stream has no unfinished work, so the host
// may touch its buffers directly.
func (s *stream) idleLocked() bool {
	if s.cur != nil && (s.cur.ops > 0 || len(s.cur.waits) > 0) {
		return false
	}
	if s.known.Load() < s.submitted && s.completedLocked() < s.submitted {
		return false
	}
	s.retireLocked(s.submitted)
	return s.err == nil
}

// stageLocked reserves n bytes of staging (16-byte aligned) for batch use.
func (s *stream) stageLocked(n uint64) (*slab, uint64, error) {
	if sl := s.slab; sl != nil {
		if off := alignUp(sl.head, 16); off+n <= slabSize {
			sl.head = off + n
			return sl, off, nil
		}
		s.slab = nil
		s.d.slabs.unref(sl)
	}
	for s.slabRefs >= maxInflightSlabs {
		if err := s.flushLocked(); err != nil {
			return nil, 0, err
		}
		if len(s.inflight) == 0 {
			break
		}
		v := s.inflight[0].value
		if err := s.waitLocked(v); err != nil {
			return nil, 0, err
		}
		s.retireLocked(v)
	}
	sl, err := s.d.slabs.get()
	if err != nil {
		return nil, 0, err
	}
	s.slab = sl
	sl.head = n
	return sl, 0, nil
}

// useSlab makes b hold a reference to sl.
func (s *stream) useSlab(b *batch, sl *slab) {
	if n := len(b.slabs); n > 0 && b.slabs[n-1] == sl {
		return
	}
	sl.refs++
	s.slabRefs++
	b.slabs = append(b.slabs, sl)
}

// hostLane is the lane a host transfer of n bytes runs on.
func (s *stream) hostLane(n uint64) int {
	if s.q[laneTransfer] != nil && n >= transferLaneBytes {
		return laneTransfer
	}
	if s.cur != nil {
		return s.cur.lane
	}
	if s.lastLane >= 0 {
		return s.lastLane
	}
	return laneCompute
}

// asBuffer is b as this backend's buffer: the root passes only open buffers
// of this device.
func asBuffer(b backend.Buffer) *buffer { return b.(*buffer) }

// asHostBuffer is b as this backend's host buffer, as asBuffer.
func asHostBuffer(b backend.HostBuffer) *hostBuffer { return b.(*hostBuffer) }

// Write copies src to dst at off. Where dst is host-visible and the stream
// idle it copies at once; otherwise src is staged and the copy enqueued.
// Either way src may be reused when Write returns.
func (s *stream) Write(dst backend.Buffer, off int64, src []byte) error {
	b := asBuffer(dst)
	if err := s.enter("write"); err != nil {
		return err
	}
	defer s.leave()
	if b.vb.bytes != nil && !s.d.opts.stageHost && s.idleLocked() {
		copyParallel(b.vb.bytes[off:], src)
		return nil
	}
	if s.sem != nil && len(src) >= pipeMin {
		return s.writePiped(b, uint64(off), src)
	}
	for len(src) > 0 {
		n := min(uint64(len(src)), slabSize)
		sl, soff, err := s.stageLocked(n)
		if err != nil {
			return err
		}
		copyParallel(sl.vb.bytes[soff:soff+n], src[:n])
		bt, err := s.recordLocked(s.hostLane(n))
		if err != nil {
			return err
		}
		s.useSlab(bt, sl)
		s.accs = append(s.accs[:0], access{b.vb.h, uint64(off), uint64(off) + n, true})
		s.hazardLocked(bt, s.accs)
		s.region = vk.BufferCopy{SrcOffset: soff, DstOffset: uint64(off), Size: n}
		s.d.vd.CmdCopyBuffer(&s.args, bt.cb, sl.vb.h, b.vb.h, &s.region)
		if err := s.doneLocked(bt, int64(n)); err != nil {
			return err
		}
		src, off = src[n:], off+int64(n)
	}
	return nil
}

// Read copies from src at off into dst. Where src is host-visible and the
// stream idle it copies at once; otherwise the bytes are staged and reach
// dst when the stream (or an event after the Read) is synchronized.
func (s *stream) Read(dst []byte, src backend.Buffer, off int64) error {
	b := asBuffer(src)
	if err := s.enter("read"); err != nil {
		return err
	}
	defer s.leave()
	if b.vb.bytes != nil && !s.d.opts.stageHost && s.idleLocked() {
		copyParallel(dst, b.vb.bytes[off:])
		return nil
	}
	if s.sem != nil && len(dst) >= pipeMin {
		return s.readPiped(dst, b, uint64(off))
	}
	for len(dst) > 0 {
		n := min(uint64(len(dst)), slabSize)
		sl, soff, err := s.stageLocked(n)
		if err != nil {
			return err
		}
		bt, err := s.recordLocked(s.hostLane(n))
		if err != nil {
			return err
		}
		s.useSlab(bt, sl)
		s.accs = append(s.accs[:0], access{b.vb.h, uint64(off), uint64(off) + n, false}, access{sl.vb.h, soff, soff + n, true})
		s.hazardLocked(bt, s.accs)
		s.region = vk.BufferCopy{SrcOffset: uint64(off), DstOffset: soff, Size: n}
		s.d.vd.CmdCopyBuffer(&s.args, bt.cb, b.vb.h, sl.vb.h, &s.region)
		bt.reads = append(bt.reads, pendingRead{dst: dst[:n:n], src: sl.vb.bytes[soff : soff+n]})
		bt.hostRead = true
		if err := s.doneLocked(bt, int64(n)); err != nil {
			return err
		}
		dst, off = dst[n:], off+int64(n)
	}
	return nil
}

// WriteHost enqueues a copy from a host buffer (no staging).
func (s *stream) WriteHost(dst backend.Buffer, off int64, src backend.HostBuffer, srcOff, n int64) error {
	b := asBuffer(dst)
	h := asHostBuffer(src)
	if err := s.enter("write host"); err != nil {
		return err
	}
	defer s.leave()
	bt, err := s.recordLocked(s.hostLane(uint64(n)))
	if err != nil {
		return err
	}
	s.accs = append(s.accs[:0], access{h.vb.h, uint64(srcOff), uint64(srcOff + n), false}, access{b.vb.h, uint64(off), uint64(off + n), true})
	s.hazardLocked(bt, s.accs)
	return s.hostCopyLocked(bt, h.vb.h, b.vb.h, uint64(srcOff), uint64(off), uint64(n), false)
}

// ReadHost enqueues a copy into a host buffer (no staging).
func (s *stream) ReadHost(dst backend.HostBuffer, dstOff int64, src backend.Buffer, srcOff, n int64) error {
	b := asBuffer(src)
	h := asHostBuffer(dst)
	if err := s.enter("read host"); err != nil {
		return err
	}
	defer s.leave()
	bt, err := s.recordLocked(s.hostLane(uint64(n)))
	if err != nil {
		return err
	}
	s.accs = append(s.accs[:0], access{b.vb.h, uint64(srcOff), uint64(srcOff + n), false}, access{h.vb.h, uint64(dstOff), uint64(dstOff + n), true})
	s.hazardLocked(bt, s.accs)
	return s.hostCopyLocked(bt, b.vb.h, h.vb.h, uint64(srcOff), uint64(dstOff), uint64(n), true)
}

// Copy enqueues a device-to-device copy.
func (s *stream) Copy(dst backend.Buffer, dstOff int64, src backend.Buffer, srcOff, n int64) error {
	db := asBuffer(dst)
	sb := asBuffer(src)
	if err := s.enter("copy"); err != nil {
		return err
	}
	defer s.leave()
	if k := s.d.copy16; k != nil && n >= copyKernelMin && (dstOff|srcOff|n)%16 == 0 && n/16 <= math.MaxUint32 &&
		db.vb.size <= s.d.maxStorageRange && sb.vb.size <= s.d.maxStorageRange {
		words := n / 16
		groups := min((words+255)/256, int64(s.d.info.MaxGridDim.X))
		s.copyArgs = [5]backend.Arg{
			{Kind: backend.ArgBuffer, Buffer: db}, {Kind: backend.ArgBuffer, Buffer: sb},
			{Kind: backend.ArgU32, Bits: uint64(dstOff / 16)}, {Kind: backend.ArgU32, Bits: uint64(srcOff / 16)},
			{Kind: backend.ArgU32, Bits: uint64(words)},
		}
		err := s.launchLocked(k, backend.Dim3{X: int(groups), Y: 1, Z: 1}, backend.Dim3{X: 256, Y: 1, Z: 1}, s.copyArgs[:])
		s.copyArgs = [5]backend.Arg{}
		return err
	}
	bt, err := s.recordLocked(laneCompute)
	if err != nil {
		return err
	}
	s.accs = append(s.accs[:0], access{sb.vb.h, uint64(srcOff), uint64(srcOff + n), false}, access{db.vb.h, uint64(dstOff), uint64(dstOff + n), true})
	s.hazardLocked(bt, s.accs)
	s.region = vk.BufferCopy{SrcOffset: uint64(srcOff), DstOffset: uint64(dstOff), Size: uint64(n)}
	s.d.vd.CmdCopyBuffer(&s.args, bt.cb, sb.vb.h, db.vb.h, &s.region)
	return s.doneLocked(bt, 0)
}

// Fill enqueues vkCmdFillBuffer.
func (s *stream) Fill(dst backend.Buffer, off, n int64, v uint32) error {
	b := asBuffer(dst)
	if off%4 != 0 || n%4 != 0 {
		return errors.E(errors.InvalidArgument, Name, "fill", "offset %d and size %d must be multiples of 4", off, n)
	}
	if err := s.enter("fill"); err != nil {
		return err
	}
	defer s.leave()
	bt, err := s.recordLocked(laneCompute)
	if err != nil {
		return err
	}
	s.accs = append(s.accs[:0], access{b.vb.h, uint64(off), uint64(off + n), true})
	s.hazardLocked(bt, s.accs)
	s.d.vd.CmdFillBuffer(&s.args, bt.cb, b.vb.h, uint64(off), uint64(n), v)
	return s.doneLocked(bt, 0)
}

// Synchronize submits what is recorded and waits for all of it, or for ctx.
func (s *stream) Synchronize(ctx context.Context) error {
	if err := s.enter("synchronize"); err != nil {
		return err
	}
	err := s.flushLocked()
	target := s.submitted
	s.mu.Unlock()
	defer s.d.mu.RUnlock()
	if err != nil {
		return err
	}
	if err := s.waitValue(ctx, target); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.retireLocked(target)
	err, s.err = s.err, nil
	return err
}

// Close waits for the stream's work and releases it.
func (s *stream) Close() error {
	s.d.mu.RLock()
	defer s.d.mu.RUnlock()
	if s.d.closed {
		return nil
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	err := s.flushLocked()
	target := s.submitted
	s.mu.Unlock()
	if werr := s.waitValue(context.Background(), target); werr != nil && err == nil {
		err = werr
	}
	s.mu.Lock()
	s.retireLocked(target)
	if s.aux != nil { // joined into target: finished
		s.aux.destroy(s.d)
		s.aux = nil
	}
	s.closed = true
	s.gone.Store(true)
	res := s.releaseLocked(err == nil)
	s.mu.Unlock()
	s.d.objMu.Lock()
	delete(s.d.streams, s)
	if res != nil {
		s.d.spareStreams = append(s.d.spareStreams, res)
	}
	s.d.objMu.Unlock()
	if res == nil {
		s.destroy()
	}
	return err
}

// releaseLocked takes the stream's Vulkan objects for reuse by the next
// stream, when its work is all done (ok); nil otherwise.
func (s *stream) releaseLocked(ok bool) *streamRes {
	if !ok || len(s.inflight) > 0 || s.err != nil {
		return nil
	}
	if s.cur != nil {
		s.cur.waits = s.cur.waits[:0]
		if s.cur.begun {
			return nil // a command buffer in the recording state
		}
		s.spare[s.cur.lane] = append(s.spare[s.cur.lane], s.cur)
		s.cur = nil
	}
	if s.slab != nil {
		s.d.slabs.unref(s.slab)
		s.slab = nil
	}
	res := &streamRes{q: s.q, pools: s.pools, sem: s.sem, value: s.submitted, spare: s.spare}
	s.pools, s.sem, s.spare = [2]uint64{}, nil, [2][]*batch{}
	return res
}

// destroy releases the stream's Vulkan objects; its work is finished (or the
// device is idle). The semaphore stays with the device.
func (s *stream) destroy() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	if s.aux != nil {
		s.aux.destroy(s.d)
		s.aux = nil
	}
	all := append([]*batch(nil), s.inflight...)
	if s.cur != nil {
		all = append(all, s.cur)
	}
	res := &streamRes{pools: s.pools, spare: s.spare}
	res.spare[0] = append(res.spare[0], all...)
	s.inflight, s.cur, s.spare, s.pools = nil, nil, [2][]*batch{}, [2]uint64{}
	if s.slab != nil {
		s.d.slabs.unref(s.slab)
		s.slab = nil
	}
	res.destroy(s.d)
	s.gone.Store(true)
}

// destroy destroys the objects of res except the semaphore.
func (res *streamRes) destroy(d *device) {
	for _, list := range res.spare {
		for _, b := range list {
			for _, sl := range b.slabs {
				d.slabs.unref(sl)
			}
			for _, q := range b.queries {
				d.queries.put(q)
			}
			b.desc.destroy(d)
			if b.fence != 0 {
				d.vd.DestroyFence(b.fence)
			}
		}
	}
	for i, p := range res.pools {
		if p != 0 {
			d.vd.DestroyCommandPool(p)
			res.pools[i] = 0
		}
	}
}

// copyParallel copies src into dst, splitting large copies over goroutines
// (one memcpy thread does not saturate memory bandwidth).
func copyParallel(dst, src []byte) {
	n := min(len(dst), len(src))
	const piece = 2 << 20
	if n < 2*piece {
		copy(dst, src[:n])
		return
	}
	parts := min(n/piece, 8)
	var wg sync.WaitGroup
	step := (n + parts - 1) / parts
	for lo := 0; lo < n; lo += step {
		hi := min(lo+step, n)
		wg.Add(1)
		go func() {
			defer wg.Done()
			copy(dst[lo:hi], src[lo:hi])
		}()
	}
	wg.Wait()
}

func (s *stream) String() string {
	return fmt.Sprintf("vulkan stream on queue family %d", s.q[laneCompute].family)
}
