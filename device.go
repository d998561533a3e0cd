package gpu

import (
	"context"
	"fmt"
	"log/slog"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/errors"
	"github.com/anygpu/gpu/internal/units"
	"github.com/anygpu/gpu/profiling"
)

// Device is an opened device of some backend. All methods are safe for
// concurrent use. Close releases it; any use after Close returns an error of
// category Closed.
type Device struct {
	// What every launch reads, together at the start so that a launch
	// touches few cache lines (a driver call between launches evicts them).
	closed   atomic.Bool
	lost     atomic.Pointer[error] // the fatal error that made the device unusable
	prof     *profiler             // nil when profiling is off
	limits   launchLimits
	launches atomic.Int64 // kernel launches (Stats)

	name      string // "cuda:0"
	backend   string
	simulated bool

	graphLaunches atomic.Int64 // Graph.Launch calls (Stats)

	impl   backend.Device
	info   DeviceInfo
	logger *slog.Logger

	history errors.Recorder
	stats   counters

	pool     *Pool // device memory
	hostPool *Pool // pinned host memory

	mu      sync.Mutex
	streams map[*Stream]struct{}
	// gate orders the backend Close of the device's objects before the
	// device's own: see closeChild.
	gate     gate
	streamID int
	def      *Stream
	// idle are native streams of closed Streams from Streams, for reuse
	// (streampool.go).
	idle []backend.Stream
}

// launchLimits are the device limits Launch checks, copied from DeviceInfo.
type launchLimits struct {
	maxThreads        int
	maxBlock, maxGrid Dim3
}

func openDevice(ctx context.Context, c candidate, info DeviceInfo, o options) (*Device, error) {
	impl, err := c.driver.Open(ctx, info.Ordinal)
	if err != nil {
		return nil, errors.Wrap(err, c.name, fmt.Sprintf("open device %d", info.Ordinal))
	}
	ordinal := info.Ordinal
	info = impl.Info()
	info.Backend, info.Ordinal = c.name, ordinal
	d := &Device{
		name:      fmt.Sprintf("%s:%d", c.name, info.Ordinal),
		backend:   c.name,
		simulated: c.simulated,
		impl:      impl,
		info:      info,
		logger:    o.logger,
		streams:   map[*Stream]struct{}{},
		limits:    launchLimits{maxThreads: info.MaxThreadsPerBlock, maxBlock: info.MaxBlockDim, maxGrid: info.MaxGridDim},
	}
	pool := o.pool
	if !o.poolSet {
		pool = devicePool(info)
	}
	d.pool = newPool(pool, func(size int64) (closer, error) { return impl.Alloc(size) })
	d.hostPool = newPool(o.hostPool, func(size int64) (closer, error) { return impl.AllocHost(size) })
	if d.def, err = d.newStream(true); err != nil {
		_ = impl.Close()
		return nil, errors.Wrap(err, c.name, "open: default stream")
	}
	if o.profiler != nil {
		if d.prof, err = newProfiler(d, o.profiler); err != nil {
			_ = d.Close()
			return nil, err
		}
	}
	if err := d.pool.preallocate(); err != nil {
		d.logger.Warn("anygpu: pool preallocation failed", "device", d.name, "err", err)
	}
	if err := d.hostPool.preallocate(); err != nil {
		d.logger.Warn("anygpu: host pool preallocation failed", "device", d.name, "err", err)
	}
	d.logger.Debug("anygpu: device opened", "device", d.name, "model", info.Name, "type", info.Type.String(),
		"simulated", d.simulated, "peers", info.Peers)
	return d, nil
}

// Name is "backend:ordinal", e.g. "cuda:0" ("" for a nil device).
func (d *Device) Name() string {
	if d == nil {
		return ""
	}
	return d.name
}

// Backend is the name of the backend the device belongs to ("" for a nil
// device).
func (d *Device) Backend() string {
	if d == nil {
		return ""
	}
	return d.backend
}

// Simulated reports whether the device is a stand-in from ANYGPU_FAKE.
func (d *Device) Simulated() bool { return d != nil && d.simulated }

// Info describes the device (the zero DeviceInfo for a nil device).
func (d *Device) Info() DeviceInfo {
	if d == nil {
		return DeviceInfo{}
	}
	return d.info
}

// String is the device's name and model ("<nil>" for a nil device).
func (d *Device) String() string {
	if d == nil {
		return "<nil>"
	}
	return d.name + " (" + d.info.Name + ")"
}

// MemInfo returns the device's free and total memory in bytes.
func (d *Device) MemInfo() (free, total int64, err error) {
	if err := d.usable("mem info"); err != nil {
		return 0, 0, err
	}
	if m, ok := d.impl.(backend.MemInfoer); ok {
		free, total, err = m.MemInfo()
		return free, total, d.wrap(err, "mem info")
	}
	return 0, d.info.MemoryBytes, d.errorf(errors.NotSupported, "mem info", "the %s backend cannot report free memory", d.backend)
}

// Alloc allocates size bytes of device memory through the device pool.
// Contents are undefined. On out-of-memory the pool is trimmed and the
// allocation retried once before an OutOfMemory error is returned.
func (d *Device) Alloc(size int64) (*Buffer, error) {
	if err := d.usable("alloc"); err != nil {
		return nil, err
	}
	if size <= 0 {
		return nil, d.errorf(errors.InvalidArgument, "alloc", "size must be positive, got %d", size)
	}
	if max := d.info.MaxBufferBytes; max > 0 && size > max {
		return nil, d.record(&errors.Error{
			Backend: d.backend, Op: "alloc " + units.ByteSize(size), Category: errors.OutOfMemory,
			Msg:  "larger than the device's largest buffer, " + units.ByteSize(max),
			Hint: "split the data over several buffers",
		})
	}
	var start time.Time
	if d.prof != nil {
		start = time.Now()
	}
	impl, class, err := d.allocRetry(d.pool, size)
	if err != nil {
		return nil, d.wrap(err, "alloc "+units.ByteSize(size))
	}
	b := &Buffer{dev: d, impl: impl.(backend.Buffer), size: size, class: class}
	d.stats.alloc(size)
	if d.prof != nil {
		d.prof.host(profiling.KindAlloc, "", size, start)
	}
	return b, nil
}

// allocRetry allocates from p; on out-of-memory it trims both pools of the
// device and tries once more.
func (d *Device) allocRetry(p *Pool, size int64) (closer, int64, error) {
	impl, class, err := p.get(size)
	if err == nil || errors.CategoryOf(err) != errors.OutOfMemory {
		return impl, class, err
	}
	d.stats.oomRetries.Add(1)
	d.pool.Trim()
	d.hostPool.Trim()
	impl, class, err2 := p.get(size)
	if err2 != nil {
		return nil, 0, err2
	}
	return impl, class, nil
}

// AllocHost allocates size bytes of host memory the device transfers from
// fastest (pinned where the backend has it), through the host pool.
func (d *Device) AllocHost(size int64) (*HostBuffer, error) {
	if err := d.usable("alloc host"); err != nil {
		return nil, err
	}
	if size <= 0 {
		return nil, d.errorf(errors.InvalidArgument, "alloc host", "size must be positive, got %d", size)
	}
	impl, class, err := d.allocRetry(d.hostPool, size)
	if err != nil {
		return nil, d.wrap(err, "alloc host "+units.ByteSize(size))
	}
	d.stats.hostAllocs.Add(1)
	return &HostBuffer{dev: d, impl: impl.(backend.HostBuffer), size: size, class: class}, nil
}

// NewStream creates a stream: an ordered queue of work that runs
// concurrently with other streams.
func (d *Device) NewStream() (*Stream, error) {
	if err := d.usable("new stream"); err != nil {
		return nil, err
	}
	s, err := d.newStream(false)
	return s, d.wrap(err, "new stream")
}

func (d *Device) newStream(isDefault bool) (*Stream, error) {
	impl, err := d.impl.NewStream()
	if err != nil {
		return nil, err
	}
	return d.adoptStream(impl, isDefault, false), nil
}

// adoptStream makes impl a Stream of d.
func (d *Device) adoptStream(impl backend.Stream, isDefault, pooled bool) *Stream {
	d.mu.Lock()
	defer d.mu.Unlock()
	s := &Stream{dev: d, impl: impl, id: d.streamID, isDefault: isDefault, pooled: pooled, copiesArgs: launchCopiesArgs(impl)}
	d.streamID++
	d.streams[s] = struct{}{}
	return s
}

// DefaultStream is the stream Buffer's ReadAt, WriteAt, ReadFrom and WriteTo
// use. It lives as long as the device; closing it does nothing. It is nil for
// a nil device.
func (d *Device) DefaultStream() *Stream {
	if d == nil {
		return nil
	}
	return d.def
}

// Pool is the device memory pool (nil for a nil device).
func (d *Device) Pool() *Pool {
	if d == nil {
		return nil
	}
	return d.pool
}

// HostPool is the pinned host memory pool (nil for a nil device).
func (d *Device) HostPool() *Pool {
	if d == nil {
		return nil
	}
	return d.hostPool
}

// Errors returns the errors the device returned: recent ones and counts per
// category (none for a nil device).
func (d *Device) Errors() errors.History {
	if d == nil {
		return errors.History{}
	}
	return d.history.Snapshot()
}

// Synchronize waits until every stream of the device has finished its work,
// or ctx ends. It returns the streams' asynchronous errors, joined.
func (d *Device) Synchronize(ctx context.Context) error {
	if err := d.usable("synchronize"); err != nil {
		return err
	}
	if ctx == nil {
		return d.errorf(errors.InvalidArgument, "synchronize", "nil context")
	}
	var errs []error
	for _, s := range d.liveStreams() {
		if s.enter("synchronize") != nil {
			continue // closed meanwhile: Close synchronized it
		}
		if s.capture.Load() != nil {
			s.leave()
			continue // recording: its recorded work does not run (BeginCapture)
		}
		err := s.impl.Synchronize(ctx)
		s.leave()
		if err != nil {
			errs = append(errs, d.wrap(err, fmt.Sprintf("synchronize stream %d", s.id)))
		}
	}
	d.prof.collect()
	return errors.Join(errs...)
}

func (d *Device) liveStreams() []*Stream {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := make([]*Stream, 0, len(d.streams))
	for s := range d.streams {
		out = append(out, s)
	}
	return out
}

// Close waits for queued work (unless the device was lost), releases the
// streams, pools and the native device. Closing twice is not an error.
// Buffers, streams and modules of a closed device report Closed when used.
func (d *Device) Close() error {
	if d == nil || d.impl == nil || !d.closed.CompareAndSwap(false, true) {
		return nil
	}
	d.gate.drain() // objects' closes under way finish; later ones see d.closed
	var errs []error
	lost := d.lost.Load() != nil
	for _, s := range d.liveStreams() {
		// The device is marked closed: calls that enter from now on are
		// refused; wait for those under way.
		s.gate.drain()
		if err := s.discardCapture(); err != nil && !lost {
			errs = append(errs, err)
		}
		if !lost {
			if err := s.impl.Synchronize(context.Background()); err != nil {
				errs = append(errs, err)
			}
		}
		s.closed.Store(true)
		if err := s.impl.Close(); err != nil {
			errs = append(errs, err)
		}
	}
	d.mu.Lock()
	idle := d.idle
	d.idle = nil
	d.mu.Unlock()
	for _, impl := range idle {
		if err := impl.Close(); err != nil {
			errs = append(errs, err)
		}
	}
	d.prof.collect()
	d.prof.close()
	d.pool.Trim()
	d.hostPool.Trim()
	if err := d.impl.Close(); err != nil {
		errs = append(errs, err)
	}
	return errors.Wrap(errors.Join(errs...), d.backend, "close "+d.name)
}

// IsPeer reports whether d reaches other's memory directly: both belong to
// the same backend (both simulated or neither) and d's DeviceInfo.Peers lists
// other, or they are the same device. A Stream.Copy on a stream of d from a
// buffer of a peer moves over NVLink or PCIe without the host. Copies between
// devices that are not peers are staged through host memory: by the driver
// where the backend copies between its devices (CUDA), else by Stream.Copy
// itself, synchronously (counted in Stats.Fallbacks).
func (d *Device) IsPeer(other *Device) bool {
	if d == nil || other == nil || d.backend != other.backend || d.simulated != other.simulated {
		return false
	}
	if d.info.Ordinal == other.info.Ordinal {
		return true
	}
	return slices.Contains(d.info.Peers, other.info.Ordinal)
}

// RunNative runs f on the calling goroutine's OS thread, locked to it for
// the call, with the device's native context current where its backend binds
// one to threads (CUDA's primary context). It is for calling native libraries
// that act on the current context (NCCL, cuBLAS, through purego or cgo) with
// this device's memory and streams, whose handles Buffer.NativeHandle and
// Stream.NativeHandle give. f should call only such native code: an anygpu
// call inside f for another device may leave that device's context current.
// Backends without thread-bound contexts run f on the locked thread as it is.
// f's error is returned unchanged.
func (d *Device) RunNative(f func() error) error {
	const op = "run native"
	if err := d.usable(op); err != nil {
		return err
	}
	if f == nil {
		return d.errorf(errors.InvalidArgument, op, "nil function")
	}
	if nr, ok := d.impl.(backend.NativeRunner); ok {
		return nr.RunNative(f)
	}
	return runLocked(f)
}

// runLocked runs f with the goroutine locked to its OS thread.
func runLocked(f func() error) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	return f()
}
