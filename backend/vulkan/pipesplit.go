//go:build (darwin || freebsd || linux || netbsd || windows) && (amd64 || arm64)

package vulkan

import (
	"os"
	"runtime"
	"strings"
	"unsafe"

	"github.com/anygpu/gpu/backend/vulkan/internal/vk"
)

// EnvPipeSplit splits pipelined Writes and Reads (4 MiB and more) over two
// queues, so that two copy engines work at once: "transfer" adds another
// queue of the dedicated transfer family (else another compute queue),
// "compute" adds the stream's compute queue (else another compute queue),
// "same" adds a second submission lane on the transfer's own queue (for
// tests: it exercises the cross-queue ordering without a second queue);
// "off" keeps one queue. Unset means "transfer": on an H200, pageable H2D
// went from 0.84-0.85× CUDA's to 0.89-0.92× with it, D2H from 0.85-0.87× to
// 0.85-0.92×, pinned unchanged (gpu bench, alternating runs). The second lane has its own timeline
// semaphore: it waits for the stream's earlier work before its first copy,
// and the stream's next submission waits for its last copy, so stream order
// is kept. A tuning knob.
const EnvPipeSplit = "ANYGPU_VULKAN_PIPE_SPLIT"

// pipeSplit is EnvPipeSplit's value, read once.
var pipeSplit = strings.ToLower(strings.TrimSpace(os.Getenv(EnvPipeSplit)))

// auxLane is a stream's second submission lane for split transfers: a
// queue, a command pool and a timeline semaphore of its own. Its batches are
// always joined into the stream (a later stream batch waits for its last
// value) before the transfer that used it returns.
type auxLane struct {
	q         *queue
	pool      uint64
	sem       *timelineSem
	submitted uint64 // value of the last batch handed to the queue
	good      uint64 // value of the last batch the queue accepted
	cur       *batch
	inflight  []*batch
	spare     []*batch
	counter   uint64
	args      vk.Args
}

// auxQueue is the queue a transfer on lane splits its copies with
// (EnvPipeSplit), or nil to keep one queue.
func (s *stream) auxQueue(lane int) *queue {
	if s.sem == nil || s.err != nil {
		return nil // a failed submission would leave its value unsignalled
	}
	own := s.q[lane]
	if own == nil {
		own = s.q[laneCompute]
	}
	pick := func(qs ...*queue) *queue {
		for _, q := range qs {
			if q != nil && q != own {
				return q
			}
		}
		return nil
	}
	switch pipeSplit {
	case "", "transfer":
		if q := pick(s.d.transfer...); q != nil {
			return q
		}
		return pick(append([]*queue{s.q[laneCompute]}, s.d.compute...)...)
	case "compute":
		return pick(append([]*queue{s.q[laneCompute]}, s.d.compute...)...)
	case "same":
		return own
	}
	return nil
}

// auxLocked returns the stream's second lane on queue q, creating it (or
// moving it to q, when idle) as needed; nil with no error when it cannot be
// used now. s.mu is held.
func (s *stream) auxLocked(q *queue) (*auxLane, error) {
	a := s.aux
	if a != nil && a.q != q {
		a.retire(s.d)
		if len(a.inflight) > 0 || a.cur != nil {
			return nil, nil // still busy on its old queue: one queue this time
		}
		a.destroy(s.d)
		s.aux, a = nil, nil
	}
	if a != nil {
		a.retire(s.d)
		return a, nil
	}
	d := s.d
	a = &auxLane{q: q}
	info := vk.CommandPoolCreateInfo{SType: vk.StructureTypeCommandPoolCreateInfo,
		Flags: vk.CommandPoolCreateTransientBit | vk.CommandPoolCreateResetCommandBufferBit, QueueFamilyIndex: q.family}
	h, r := d.vd.CreateCommandPool(&info)
	if r != vk.Success {
		return nil, d.check(r, "split transfer: command pool")
	}
	a.pool = h
	sti := vk.SemaphoreTypeCreateInfo{SType: vk.StructureTypeSemaphoreTypeCreateInfo, SemaphoreType: vk.SemaphoreTypeTimeline}
	si := vk.SemaphoreCreateInfo{SType: vk.StructureTypeSemaphoreCreateInfo, PNext: unsafe.Pointer(&sti)}
	sh, r := d.vd.CreateSemaphore(&si)
	if r != vk.Success {
		d.vd.DestroyCommandPool(a.pool)
		return nil, d.check(r, "split transfer: timeline semaphore")
	}
	a.sem = &timelineSem{h: sh}
	d.objMu.Lock()
	d.sems = append(d.sems, a.sem)
	d.objMu.Unlock()
	s.aux = a
	return a, nil
}

// retire recycles the lane's completed batches.
func (a *auxLane) retire(d *device) {
	if len(a.inflight) == 0 {
		return
	}
	if r := d.vd.SemaphoreCounterValue(&a.args, a.sem.h, &a.counter); r != vk.Success {
		return
	}
	n := 0
	for _, b := range a.inflight {
		if b.value > a.counter && !b.failed {
			break
		}
		n++
		b.waits = b.waits[:0]
		b.begun, b.ops, b.bytes, b.hostRead, b.failed = false, 0, 0, false, false
		a.spare = append(a.spare, b)
	}
	rest := copy(a.inflight, a.inflight[n:])
	clear(a.inflight[rest:])
	a.inflight = a.inflight[:rest]
}

// destroy frees the lane's command pool (with its command buffers); its
// work is finished. The semaphore stays with the device.
func (a *auxLane) destroy(d *device) {
	if a.pool != 0 {
		d.vd.DestroyCommandPool(a.pool)
		a.pool = 0
	}
	a.cur, a.inflight, a.spare = nil, nil, nil
}

// entryWaitsLocked is what the second lane's first batch of a transfer
// waits for: everything the stream has submitted and what its open batch
// waits for (events of other streams). s.mu is held.
func (s *stream) entryWaitsLocked() []semWait {
	var ws []semWait
	if s.cur != nil {
		ws = append(ws, s.cur.waits...)
	}
	if s.submitted > 0 {
		ws = append(ws, semWait{s.sem, s.submitted})
	}
	return ws
}

// recordAuxLocked returns the lane's open batch, begun; a new batch waits
// for waits. s.mu is held.
func (s *stream) recordAuxLocked(a *auxLane, waits []semWait) (*batch, error) {
	if a.cur != nil {
		return a.cur, nil
	}
	var b *batch
	if n := len(a.spare); n > 0 {
		b = a.spare[n-1]
		a.spare = a.spare[:n-1]
	} else {
		cb, r := s.d.vd.AllocateCommandBuffer(a.pool)
		if r != vk.Success {
			return nil, s.d.check(r, "split transfer: allocate command buffer")
		}
		b = &batch{lane: -1, cb: cb}
	}
	b.value = a.submitted + 1
	b.waits = append(b.waits, waits...)
	a.cur = b
	if err := s.beginLocked(b); err != nil {
		a.cur = nil
		a.spare = append(a.spare, b)
		return nil, err
	}
	return b, nil
}

// flushAuxLocked submits the lane's open batch if it has commands; a failed
// submission is the stream's error (reported by Synchronize) and returns
// false. s.mu is held.
func (s *stream) flushAuxLocked(a *auxLane) bool {
	b := a.cur
	if b == nil || b.ops == 0 {
		return true
	}
	a.cur = nil
	d := s.d
	if b.hostRead || d.uma {
		s.barrier = vk.MemoryBarrier{SType: vk.StructureTypeMemoryBarrier, SrcAccessMask: vk.AccessTransferWriteBit, DstAccessMask: vk.AccessHostReadBit}
		d.vd.CmdMemoryBarrier(&s.args, b.cb, vk.PipelineStageTransferBit, vk.PipelineStageHostBit, &s.barrier)
	}
	r := d.vd.EndCommandBuffer(&s.args, b.cb)
	if r == vk.Success {
		var cbs [1]uintptr
		var sigSem, sigVal [1]uint64
		cbs[0], sigSem[0], sigVal[0] = b.cb, a.sem.h, b.value
		var waitSems, waitVals []uint64
		var waitStages []uint32
		ts := vk.TimelineSemaphoreSubmitInfo{SType: vk.StructureTypeTimelineSemaphoreSubmitInfo,
			SignalSemaphoreValueCount: 1, PSignalSemaphoreValues: unsafe.Pointer(&sigVal[0])}
		sub := vk.SubmitInfo{SType: vk.StructureTypeSubmitInfo, PNext: unsafe.Pointer(&ts), CommandBufferCount: 1,
			PCommandBuffers: unsafe.Pointer(&cbs[0]), SignalSemaphoreCount: 1, PSignalSemaphores: unsafe.Pointer(&sigSem[0])}
		if n := len(b.waits); n > 0 { // the first batch of a transfer
			for _, w := range b.waits {
				waitSems = append(waitSems, w.sem.h)
				waitVals = append(waitVals, w.value)
				waitStages = append(waitStages, vk.PipelineStageAllCommandsBit)
			}
			ts.WaitSemaphoreValueCount, ts.PWaitSemaphoreValues = uint32(n), unsafe.Pointer(&waitVals[0])
			sub.WaitSemaphoreCount, sub.PWaitSemaphores, sub.PWaitDstStageMask = uint32(n), unsafe.Pointer(&waitSems[0]), unsafe.Pointer(&waitStages[0])
		}
		a.q.mu.Lock()
		r = d.vd.QueueSubmit(&s.args, a.q.h, 1, unsafe.Pointer(&sub), 0)
		a.q.mu.Unlock()
		runtime.KeepAlive(&cbs)
		runtime.KeepAlive(&sigSem)
		runtime.KeepAlive(&sigVal)
		runtime.KeepAlive(waitSems)
		runtime.KeepAlive(waitVals)
		runtime.KeepAlive(waitStages)
		runtime.KeepAlive(&ts)
	}
	a.submitted = b.value
	a.inflight = append(a.inflight, b)
	if r != vk.Success {
		b.failed = true
		if s.err == nil {
			s.err = d.check(r, "split transfer: submit")
		}
		return false
	}
	a.good = b.value
	return true
}

// splitHostMin: WriteHost and ReadHost copies from this size are split over
// two lanes (EnvPipeSplit).
const splitHostMin = 8 << 20

// joinAuxLocked orders the stream after the lane's submitted work: it
// submits what the stream has recorded (so that copies of the transfer on
// the stream's own lane do not wait for the second lane) and opens a batch
// on lane that waits for the lane's last value; later work goes into it.
// It returns that batch's value (0 when the lane has nothing to wait for).
// s.mu is held.
func (s *stream) joinAuxLocked(a *auxLane, lane int) (uint64, error) {
	if a.good == 0 {
		return 0, nil
	}
	if err := s.flushLocked(); err != nil {
		return 0, err
	}
	bt, err := s.recordLocked(lane)
	if err != nil {
		if s.err == nil {
			s.err = err
		}
		return 0, err
	}
	bt.waits = append(bt.waits, semWait{a.sem, a.good})
	return bt.value, s.doneLocked(bt, 0)
}

// hostCopyLocked records a copy between a host buffer and a device buffer
// into bt, which holds the copy's hazard barrier: from splitHostMin bytes,
// where EnvPipeSplit names a second lane, half of it goes to that lane,
// which waits for the stream's earlier work and which the stream then waits
// for. hostRead: the host reads dst. s.mu is held.
func (s *stream) hostCopyLocked(bt *batch, src, dst, srcOff, dstOff, n uint64, hostRead bool) error {
	var a *auxLane
	if n >= splitHostMin {
		if q := s.auxQueue(bt.lane); q != nil {
			var err error
			if a, err = s.auxLocked(q); err != nil {
				return err
			}
		}
	}
	lane := bt.lane
	if a != nil && bt.ops > 0 { // the second lane waits for everything before the copy
		if err := s.flushLocked(); err != nil {
			return err
		}
		var err error
		if bt, err = s.recordLocked(lane); err != nil {
			return err
		}
		if s.err != nil {
			a = nil // that submission failed: one queue
		}
	}
	if a == nil {
		s.region = vk.BufferCopy{SrcOffset: srcOff, DstOffset: dstOff, Size: n}
		s.d.vd.CmdCopyBuffer(&s.args, bt.cb, src, dst, &s.region)
		bt.hostRead = bt.hostRead || hostRead
		return s.doneLocked(bt, int64(n))
	}
	half := n / 2 &^ 4095
	ab, err := s.recordAuxLocked(a, s.entryWaitsLocked())
	if err != nil {
		return err
	}
	s.region = vk.BufferCopy{SrcOffset: srcOff + half, DstOffset: dstOff + half, Size: n - half}
	s.d.vd.CmdCopyBuffer(&s.args, ab.cb, src, dst, &s.region)
	ab.hostRead = hostRead
	ab.ops++
	ab.bytes += int64(n - half)
	if !s.flushAuxLocked(a) {
		return nil // reported by Synchronize
	}
	s.region = vk.BufferCopy{SrcOffset: srcOff, DstOffset: dstOff, Size: half}
	s.d.vd.CmdCopyBuffer(&s.args, bt.cb, src, dst, &s.region)
	bt.hostRead = bt.hostRead || hostRead
	if err := s.doneLocked(bt, int64(half)); err != nil {
		return err
	}
	_, err = s.joinAuxLocked(a, lane)
	return err
}
