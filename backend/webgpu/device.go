//go:build cgo

package webgpu

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/backend/webgpu/internal/wgpuc"
	"github.com/anygpu/gpu/errors"
	"github.com/oliverbestmann/webgpu/wgpu"
)

// device is one WebGPU device and its queue. Every stream feeds the queue,
// so all work of a device runs in the order it was enqueued.
//
// Dispatches are recorded into one shared command encoder and compute pass
// per batch (see batch.go); every other operation is encoded into a command
// buffer of its own (so that a bad one fails alone, at once). Work is
// submitted in batches: to a queue known to be idle once the batch holds
// idleBatch operations or is idleLinger old, to a busy one after maxBatch
// operations, and at once when something waits for the work (Synchronize,
// an event, a write that must follow it). Whether the queue
// is idle is known from its work-done callbacks, which run inside a device
// poll; enqueuing polls at most once per pollEvery. Scalars of launches go
// into a uniform "arena" written, once per batch, just before the batch is
// submitted.
type device struct {
	info    backend.DeviceInfo
	adapter *wgpu.Adapter
	dev     *wgpu.Device
	queue   *wgpu.Queue
	sc      *wgpuc.Scopes
	sink    wgpuc.Sink // uncaptured errors and loss, filled by C callbacks
	limits  wgpu.Limits

	maxDim       uint32           // work groups per dispatch dimension
	maxBinding   uint64           // largest storage binding, a multiple of storageAlign
	storageAlign uint64           // storage binding offset alignment
	uniformAlign int              // uniform binding offset alignment
	timestamps   bool             // timing through timestamp queries; else the host clock
	subgroups    bool             // the device has WGSL's subgroups (subgroupFeature): Source.Subgroups runs
	d2dKernel    bool             // Copy moves vec4 blocks with the copy kernel (EnvD2D)
	uploadUsage  wgpu.BufferUsage // of upload buffers (EnvUpload)
	tsPeriod     float64

	// mu serialises the device's wgpu calls that change its state, and
	// guards everything below, the streams' fields included.
	mu     sync.Mutex
	closed bool
	cmds   []*wgpu.CommandBuffer // encoded, not yet submitted
	// params is the arena's contents, of which the first paramsSent bytes
	// were written to it; paramAt is where each block lies (paramsLocked).
	params     []byte
	paramsSent int
	paramAt    map[string]uint64
	arena      *wgpu.Buffer
	dirty      bool           // queue writes staged since the last submission
	seq        uint64         // submissions so far
	touched    []*stream      // streams with work in the pending batch
	toMap      []*pendingRead // downloads whose copy is in the pending batch
	reads      []*pendingRead // downloads waiting for their staging buffer's mapping
	readsDone  uint64         // downloads completed so far
	newEvts    []*event       // events recorded into the pending batch
	staging    stagingPool    // mappable buffers for downloads
	uploads    uploadPool     // mapped buffers for large writes
	tail       tailStamp      // the timestamp ending submissions of long work
	// stampTail: the pending batch holds long work (noteLongWorkLocked).
	stampTail bool
	internal  *internalKernels // fill, patch and byte-copy pipelines
	ts        timestampSlots
	hostEvts  atomic.Int64 // host-timed events not yet complete
	sinkSeen  uint64       // the sink's count when last collected
	polling   bool

	ops int // operations in the pending batch
	// batchStart is the host time (hostNow) of the pending batch's first
	// operation.
	batchStart time.Duration
	lastPoll   time.Duration // hostNow at the last device poll
	// The shared encoder of the pending batch's dispatches and its open
	// compute pass (nil when none), what is set in that pass, the
	// dispatches it holds, and the bind groups that left the cache while
	// it was open.
	enc      *wgpu.CommandEncoder
	pass     *wgpu.ComputePassEncoder
	lastPipe *wgpu.ComputePipeline
	lastBG   *wgpu.BindGroup
	encOps   []recorded
	encHeld  []*wgpu.BindGroup
	bgs      bindCache

	// completed is the highest submission known to be complete; it is set
	// from the queue's work-done callbacks, which run inside Poll.
	completed atomic.Uint64

	errMu     sync.Mutex
	uncapErrs []error // uncaptured errors not yet reported
	lostErr   atomic.Pointer[errors.Error]
	closing   atomic.Bool
}

var _ backend.Device = (*device)(nil)

const (
	// maxBatch is how many operations wait for a busy queue before they are
	// submitted anyway.
	maxBatch = 64
	// pollEvery is how often enqueuing work polls the device to learn
	// whether the queue went idle (and the pending batch should go). A
	// poll per operation costs more than the operation.
	pollEvery = 50 * time.Microsecond
	// idleBatch and idleLinger are how many operations, or how long, a
	// batch gathers before it goes to an idle queue (lingeredLocked).
	idleBatch  = 16
	idleLinger = 200 * time.Microsecond
	// closeWait bounds how long Close waits for outstanding work.
	closeWait = 30 * time.Second
)

func open(ctx context.Context, ordinal int) (backend.Device, error) {
	return runCtx(ctx, "open", func() (backend.Device, error) {
		list, err := enumerate()
		if err != nil {
			return nil, err
		}
		if len(list) == 0 {
			return nil, errNoAdapter("open")
		}
		if ordinal < 0 || ordinal >= len(list) {
			releaseAdapters(list, -1)
			return nil, errors.E(errors.InvalidArgument, Name, "open", "device %d does not exist: the WebGPU backend has %d adapters (0..%d)", ordinal, len(list), len(list)-1)
		}
		releaseAdapters(list, ordinal)
		d, err := newDevice(ordinal, list[ordinal])
		if err != nil {
			list[ordinal].adapter.Release()
			return nil, err
		}
		return d, nil
	}, func(d backend.Device) { _ = d.Close() })
}

func newDevice(ordinal int, e adapterEntry) (*device, error) {
	d := &device{adapter: e.adapter, sink: wgpuc.NewSink()}
	limits := requiredLimits(e.limits)
	var features []wgpu.FeatureName
	if e.has(wgpu.FeatureNameTimestampQuery) {
		features = append(features, wgpu.FeatureNameTimestampQuery)
	}
	if e.has(wgpu.FeatureNameShaderF16) {
		features = append(features, wgpu.FeatureNameShaderF16)
	}
	subgroups := subgroupFeature(e)
	if subgroups != 0 {
		features = append(features, subgroups)
	}
	readWrite := uploadReadWrite(e)
	if readWrite {
		features = append(features, wgpu.NativeFeatureMappablePrimaryBuffers)
	}
	d.uploadUsage = uploadUsage(readWrite)
	dev, status, msg := wgpuc.RequestDevice(e.adapter, limits, features, d.sink)
	fallback := ""
	if dev == nil {
		// Some drivers refuse limits their adapter reports: fall back to
		// WebGPU's defaults, which every adapter supports.
		fallback = condense(msg)
		limits = wgpu.DefaultLimits()
		dev, status, msg = wgpuc.RequestDevice(e.adapter, limits, features, d.sink)
	}
	if dev == nil {
		return nil, nativeErr(requestDeviceStatuses, uint32(max(status, wgpu.RequestDeviceStatusError)), "open", msg, errors.None)
	}
	d.dev = dev
	d.sc = wgpuc.NewScopes(dev)
	err := protect("open", func() error {
		d.queue = dev.GetQueue()
		d.limits = dev.GetLimits()
		return nil
	})
	if err != nil {
		d.release()
		return nil, err
	}
	l := d.limits
	d.maxDim = or32(l.MaxComputeWorkgroupsPerDimension, defaultMaxWorkgroupsDim)
	d.storageAlign = uint64(or32(l.MinStorageBufferOffsetAlignment, defaultOffsetAlignment))
	d.maxBinding = or64(l.MaxStorageBufferBindingSize, defaultMaxStorageBinding) / d.storageAlign * d.storageAlign
	d.uniformAlign = int(or32(l.MinUniformBufferOffsetAlignment, defaultOffsetAlignment))
	d.timestamps = e.has(wgpu.FeatureNameTimestampQuery) && !forceHostTiming
	d.subgroups = subgroups != 0
	d.info = deviceInfo(ordinal, e, l)
	if d.subgroups {
		d.info.Extra["subgroups"] = "on: kernels with subgroup operations run their Source.Subgroups WGSL (" + EnvSubgroups + "=off: subgroups of one)"
	}
	d.d2dKernel = d2dKernel(d.info.Type) && d.storageAlign%16 == 0
	d.info.Extra["d2d"] = d2dName(d.d2dKernel)
	d.info.Extra["upload"] = uploadName(readWrite)
	if fallback != "" {
		d.info.Extra["limits"] = "WebGPU defaults: the adapter refused its own limits (" + fallback + ")"
	}
	if d.timestamps {
		_ = protect("timestamp period", func() error {
			d.tsPeriod = float64(d.queue.GetTimestampPeriod())
			return nil
		})
		if d.tsPeriod <= 0 {
			d.tsPeriod = 1
		}
		d.info.TimestampPeriodNs = d.tsPeriod
	} else {
		d.info.Extra["timing"] = timingName(false)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	err = d.call("open", errors.Initialization, func() error {
		var err error
		d.arena, err = d.dev.TryCreateBuffer(&wgpu.BufferDescriptor{
			Label: "anygpu params", Size: uint64(arenaSize), Usage: wgpu.BufferUsageUniform | wgpu.BufferUsageCopyDst,
		})
		return err
	})
	if err == nil {
		d.internal, err = d.compileInternal()
	}
	if err != nil {
		d.releaseLocked()
		return nil, err
	}
	return d, nil
}

// arenaSize is the size of the uniform buffer holding the launches'
// parameter blocks (a variable for the tests, which make it small to see
// it fill).
var arenaSize = 1 << 20

// forceHostTiming makes new devices time events on the host clock even when
// the adapter has timestamp queries (tests of the fallback).
var forceHostTiming = false

func (d *device) Info() backend.DeviceInfo { return d.info }

// call runs fn, which calls the binding, inside typed error scopes (and
// panic protection) and returns the first error: a validation error becomes
// category vcat (Compilation also takes internal errors, which are mostly
// driver shader-compiler failures), out-of-memory stays OutOfMemory. An
// uncaptured error raised during fn is returned as fn's.
func (d *device) call(op string, vcat errors.Category, fn func() error) error {
	seq := d.sink.Seq()
	d.sc.Push()
	fnErr := protect(op, fn)
	ty, msg := d.sc.Pop()
	switch {
	case ty != 0:
		return d.typedErr(op, ty, msg, vcat)
	case fnErr != nil:
		if _, ok := fnErr.(*errors.Error); ok {
			return fnErr
		}
		// The binding's Try… calls capture validation errors, as text.
		return d.typedErr(op, wgpu.ErrorTypeValidation, fnErr.Error(), vcat)
	}
	if d.sink.Seq() == seq {
		return nil
	}
	// Errors raised outside the scopes during fn (internal errors: wgpu has
	// no scope filter for them) are fn's; the last one is the newest.
	errs := d.drainSink()
	if len(errs) == 0 {
		return nil
	}
	last := errs[len(errs)-1]
	d.errMu.Lock()
	for _, e := range errs[:len(errs)-1] {
		d.uncapErrs = append(d.uncapErrs, uncapturedErr(e))
	}
	d.errMu.Unlock()
	return d.typedErr(op, last.Type, last.Msg, vcat)
}

// typedErr is the error of type ty that wgpu reported with msg in op: a
// validation error has category vcat, and so have internal and unknown ones
// while compiling.
func (d *device) typedErr(op string, ty wgpu.ErrorType, msg string, vcat errors.Category) error {
	cat := errors.None
	switch ty {
	case wgpu.ErrorTypeValidation:
		cat = vcat
	case wgpu.ErrorTypeInternal, wgpu.ErrorTypeUnknown:
		if vcat == errors.Compilation {
			cat = vcat
		}
	}
	err := nativeErr(errorTypes, uint32(ty), op, msg, cat)
	if e, ok := err.(*errors.Error); ok && cat == errors.Compilation {
		e.Log = msg
	}
	return err
}

// drainSink takes the uncaptured errors the C callbacks queued, and records
// the device's loss.
func (d *device) drainSink() []wgpuc.UncapturedError {
	errs, reason, msg := d.sink.Take()
	if reason != 0 && !d.closing.Load() {
		err := nativeErr(deviceLostReasons, uint32(reason), "device lost", msg, errors.None)
		if e, ok := err.(*errors.Error); ok {
			e.Fatal = true
			if e.Category == errors.Closed {
				e.Category = errors.DeviceLost
			}
			d.lostErr.CompareAndSwap(nil, e)
		}
	}
	return errs
}

// uncapturedErr is the error of one uncaptured error.
func uncapturedErr(e wgpuc.UncapturedError) error {
	return nativeErr(errorTypes, uint32(e.Type), "uncaptured error", e.Msg, errors.None)
}

// collectAsync moves the uncaptured errors queued by the C callbacks into
// the list Synchronize reports from.
func (d *device) collectAsync() {
	errs := d.drainSink()
	if len(errs) == 0 {
		return
	}
	d.errMu.Lock()
	defer d.errMu.Unlock()
	for _, e := range errs {
		if len(d.uncapErrs) < 64 {
			d.uncapErrs = append(d.uncapErrs, uncapturedErr(e))
		}
	}
}

// asyncErr returns the device's loss, or the oldest uncaptured error not yet
// reported (which it removes).
func (d *device) asyncErr() error {
	d.collectAsync()
	if e := d.lostErr.Load(); e != nil {
		return e
	}
	d.errMu.Lock()
	defer d.errMu.Unlock()
	for len(d.uncapErrs) > 0 {
		err := d.uncapErrs[0]
		d.uncapErrs = d.uncapErrs[1:]
		if err != nil {
			return err
		}
	}
	return nil
}

var errDeviceClosed = &errors.Error{Backend: Name, Op: "device", Category: errors.Closed, Msg: "device is closed", Hint: "open a new Device"}

// usableLocked reports why the device cannot take work.
func (d *device) usableLocked() error {
	if d.closed {
		return errDeviceClosed
	}
	if e := d.lostErr.Load(); e != nil {
		return e
	}
	return nil
}

// flushLocked submits the pending batch: the arena's contents first (queue
// writes run before the command buffers of the same submission), then the
// command buffers. It then asks for the mappings of the batch's downloads
// and stamps the batch's streams and events with the submission.
func (d *device) flushLocked() error {
	_ = d.closeEncLocked()
	if len(d.cmds) == 0 && len(d.params) == d.paramsSent && !d.dirty && len(d.toMap) == 0 && len(d.newEvts) == 0 {
		return nil
	}
	tail := d.stampTail && d.encodeTailLocked()
	d.stampTail = false
	d.resolveLocked()
	err := d.call("submit", errors.Execution, func() error {
		if len(d.params) > d.paramsSent {
			if err := d.queue.TryWriteBuffer(d.arena, uint64(d.paramsSent), d.params[d.paramsSent:]); err != nil {
				d.resetParamsLocked()
				return err
			}
			d.paramsSent = len(d.params)
		}
		d.queue.Submit(d.cmds...)
		return nil
	})
	for i, cb := range d.cmds {
		cb.Release()
		d.cmds[i] = nil
	}
	d.cmds = d.cmds[:0]
	d.ops = 0
	d.dirty = false
	d.seq++
	seq := d.seq
	d.tail.seq = 0
	if tail && err == nil {
		d.tail.seq = seq
	}
	if err == nil {
		err = protect("submit", func() error {
			d.queue.OnSubmittedWorkDone(func(st wgpu.QueueWorkDoneStatus) {
				if st == wgpu.QueueWorkDoneStatusSuccess {
					for {
						c := d.completed.Load()
						if c >= seq || d.completed.CompareAndSwap(c, seq) {
							break
						}
					}
					return
				}
				if d.closing.Load() {
					return
				}
				e, ok := nativeErr(workDoneStatuses, uint32(st), "submit", "", errors.None).(*errors.Error)
				if ok && e.Fatal {
					d.lostErr.CompareAndSwap(nil, e)
				}
			})
			return nil
		})
	}
	for _, s := range d.touched {
		s.seq = seq
		s.pending = false
		if err != nil && s.err == nil {
			s.err = err
		}
	}
	clear(d.touched)
	d.touched = d.touched[:0]
	for _, e := range d.newEvts {
		e.seq = seq
	}
	clear(d.newEvts)
	d.newEvts = d.newEvts[:0]
	for _, r := range d.toMap {
		if err != nil {
			r.finishLocked(d, err)
			continue
		}
		r.mapLocked(d)
	}
	clear(d.toMap)
	d.toMap = d.toMap[:0]
	if err != nil {
		// The batch is lost; record the failure as the device's so that
		// every waiter sees it.
		d.errMu.Lock()
		d.uncapErrs = append(d.uncapErrs, err)
		d.errMu.Unlock()
	}
	return err
}

// afterWorkLocked runs after an operation joined the pending batch: it
// submits the batch when the queue is idle (so the work starts at once) or
// the batch is full. It polls to learn whether the queue went idle at most
// once per pollEvery: while the queue is busy, operations gather into one
// batch.
func (d *device) afterWorkLocked() {
	d.ops++
	now := hostNow()
	if d.ops == 1 {
		d.batchStart = now
	}
	if d.ops >= maxBatch || (d.completed.Load() >= d.seq && d.lingeredLocked(now)) {
		_ = d.flushLocked()
		return
	}
	if now-d.lastPoll < pollEvery {
		return
	}
	d.pollLocked()
	if d.completed.Load() >= d.seq && d.lingeredLocked(now) {
		_ = d.flushLocked()
	}
}

// lingeredLocked reports whether the pending batch may go to an idle queue:
// once it holds idleBatch operations or has waited idleLinger. A submission
// costs wgpu far more than a dispatch (on an H200, about 175 µs of host time
// against 10-20 µs), so a run of small launches (a model's decode step)
// submitted one by one as the queue drained was bound by submissions: GPT-2's
// WebGPU decode made ~200 submissions per token, 13.7 tokens/s. A batch
// holding long work (a large copy, which ends with its own timestamp) goes at
// once, as does anything that waits for the work (Synchronize, an event, a
// read).
func (d *device) lingeredLocked(now time.Duration) bool {
	return d.stampTail || d.ops >= idleBatch || now-d.batchStart >= idleLinger
}

// touchLocked notes that stream s has work in the pending batch.
func (d *device) touchLocked(s *stream) {
	if s != nil && !s.pending {
		s.pending = true
		d.touched = append(d.touched, s)
	}
}

// pollLocked lets wgpu run its callbacks (work done, buffer mapped) without
// blocking, then finishes the downloads whose data arrived.
func (d *device) pollLocked() {
	if d.dev == nil {
		return
	}
	d.lastPoll = hostNow()
	_ = protect("poll", func() error {
		d.dev.Poll(false, nil)
		return nil
	})
	d.finishReadsLocked()
	d.finishUploadsLocked()
	if n := d.sink.Seq(); n != d.sinkSeen {
		d.sinkSeen = n
		d.collectAsync()
	}
}

// wait polls the device until done (called with d.mu held) reports true, ctx
// ends (an error of category Timeout) or the device is lost or closed. It
// holds d.mu only while polling, so that other streams keep enqueuing: a
// blocking poll would hold back their submissions. It spins (polling and
// yielding) for the first spinFor after the last progress seen (a
// submission or a download completing), which covers most kernels and the
// chunks of a transfer at the cost of a busy core, then polls every
// millisecond.
func (d *device) wait(ctx context.Context, op string, done func() bool) error {
	start := time.Now()
	var seen [2]uint64
	for {
		d.mu.Lock()
		if d.closed {
			d.mu.Unlock()
			return errDeviceClosed
		}
		d.pollLocked()
		ok := done()
		if now := [2]uint64{d.completed.Load(), d.readsDone}; now != seen {
			// Progress (a submission or a download completed, as in a
			// chunked transfer): spin again.
			seen, start = now, time.Now()
		}
		d.mu.Unlock()
		if ok {
			return nil
		}
		if e := d.lostErr.Load(); e != nil {
			return e
		}
		if err := ctx.Err(); err != nil {
			return errors.Wrap(err, Name, op)
		}
		if time.Since(start) < spinFor {
			runtime.Gosched()
		} else {
			time.Sleep(time.Millisecond)
		}
	}
}

// spinFor is how long a wait polls without sleeping. (Sleeps shorter than a
// millisecond are not reliably shorter on Linux.)
const spinFor = 2 * time.Millisecond

// paramsLocked places a dispatch's parameter block in the arena and
// returns its offset. The arena keeps its blocks from one submission to
// the next, and a block equal to one already placed shares its place: the
// launches of a model's decode step repeat their scalars step after step,
// and so, with the same buffers, find their bind groups in the cache. New
// blocks are written to the arena with the pending batch (flushLocked);
// when it is full, the pending batch is submitted and the arena starts
// again from its beginning (queue writes run after the work submitted
// before them, so that work still reads the blocks it was given).
func (d *device) paramsLocked(block []byte) uint64 {
	if off, ok := d.paramAt[string(block)]; ok {
		return off
	}
	off := (len(d.params) + d.uniformAlign - 1) / d.uniformAlign * d.uniformAlign
	if off+len(block) > arenaSize {
		_ = d.flushLocked()
		d.resetParamsLocked()
		off = 0
	}
	for len(d.params) < off {
		d.params = append(d.params, 0)
	}
	d.params = append(d.params, block...)
	if d.paramAt == nil {
		d.paramAt = map[string]uint64{}
	}
	d.paramAt[string(block)] = uint64(off)
	return uint64(off)
}

// resetParamsLocked empties the arena: blocks are placed from its
// beginning again.
func (d *device) resetParamsLocked() {
	d.params = d.params[:0]
	d.paramsSent = 0
	clear(d.paramAt)
}

func (d *device) NewStream() (backend.Stream, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.usableLocked(); err != nil {
		return nil, err
	}
	return &stream{d: d}, nil
}

// Close waits (up to 30 s) for the device's work, the backend's own
// downloads included, then releases it. The root package calls it once.
func (d *device) Close() error {
	d.mu.Lock()
	_ = d.flushLocked()
	target := d.seq
	d.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), closeWait)
	defer cancel()
	_ = d.wait(ctx, "close", func() bool {
		return d.completed.Load() >= target && len(d.reads) == 0 && len(d.toMap) == 0
	})
	d.mu.Lock()
	defer d.mu.Unlock()
	d.releaseLocked()
	return nil
}

// releaseLocked releases everything the device holds.
func (d *device) releaseLocked() {
	d.closing.Store(true)
	d.closed = true
	for _, r := range append(d.reads, d.toMap...) {
		r.finishLocked(d, errDeviceClosed)
	}
	d.reads, d.toMap = nil, nil
	d.failEncLocked(errDeviceClosed)
	d.dropBindGroupsLocked(nil)
	for _, cb := range d.cmds {
		cb.Release()
	}
	d.cmds = nil
	if d.internal != nil {
		d.internal.release()
		d.internal = nil
	}
	d.ts.release()
	d.tail.release()
	d.staging.release()
	d.uploads.release()
	if d.arena != nil {
		d.arena.Release()
		d.arena = nil
	}
	d.release()
}

// release releases the device, its queue and its adapter.
func (d *device) release() {
	d.closing.Store(true)
	_ = protect("close", func() error {
		if d.queue != nil {
			d.queue.Release()
			d.queue = nil
		}
		if d.dev != nil {
			d.dev.Release()
			d.dev = nil
		}
		if d.adapter != nil {
			d.adapter.Release()
			d.adapter = nil
		}
		return nil
	})
	if d.sc != nil {
		d.sc.Free()
	}
}

// startHostPollerLocked makes sure a goroutine polls the device while
// host-timed events are outstanding, so that their completion is stamped
// close to when it happens.
func (d *device) startHostPollerLocked() {
	if d.polling {
		return
	}
	d.polling = true
	go func() {
		for i := 0; ; i++ {
			d.mu.Lock()
			if d.closed || d.hostEvts.Load() == 0 {
				d.polling = false
				d.mu.Unlock()
				return
			}
			d.pollLocked()
			d.mu.Unlock()
			time.Sleep(20 * time.Microsecond)
		}
	}()
}
