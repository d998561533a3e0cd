package sim

import (
	"context"
	"fmt"
	"github.com/anygpu/gpu/internal/units"
	"sync"
	"sync/atomic"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/backend/cpu"
	"github.com/anygpu/gpu/errors"
)

// device is a simulated device: a CPU device (cpu.OpenInfo) that reports a
// preset's DeviceInfo, speaks the simulated backend's errors, and injects
// faults.
type device struct {
	backend string // the simulated backend: "cuda", ...
	preset  string
	faults  Faults
	info    backend.DeviceInfo
	inner   backend.Device

	allocs   atomic.Int64 // allocations attempted (Alloc and AllocHost)
	launches atomic.Int64 // launches attempted
	live     atomic.Int64 // bytes of open device buffers
	lost     atomic.Pointer[lostState]
}

// lostState records how the device was lost.
type lostState struct{ launch int64 }

var (
	_ backend.Device    = (*device)(nil)
	_ backend.MemInfoer = (*device)(nil)
)

func newDevice(info backend.DeviceInfo, presetName string, f Faults) *device {
	return &device{
		backend: info.Backend,
		preset:  presetName,
		faults:  f,
		info:    info,
		inner:   cpu.OpenInfo(info),
	}
}

// Info returns the preset's DeviceInfo.
func (d *device) Info() backend.DeviceInfo {
	info := d.info
	info.Extra = make(map[string]string, len(d.info.Extra))
	for k, v := range d.info.Extra {
		info.Extra[k] = v
	}
	info.Features = append([]string(nil), d.info.Features...)
	return info
}

// check fails fast once the device is lost.
func (d *device) check(op string) error {
	if st := d.lost.Load(); st != nil {
		return lostError(d.backend, op, fmt.Sprintf(
			"the device was lost at launch %d (simulated fault lose@%d) and fails every call until it is closed",
			st.launch, d.faults.LoseAfterLaunches))
	}
	return nil
}

// launch counts a launch and loses the device when the fault says so.
func (d *device) launch(op string) error {
	if err := d.check(op); err != nil {
		return err
	}
	n := d.launches.Add(1)
	if lim := d.faults.LoseAfterLaunches; lim > 0 && n > int64(lim) {
		d.lost.CompareAndSwap(nil, &lostState{launch: n})
		return d.check(op)
	}
	return nil
}

// allocFault counts an allocation and fails it when a one-shot or periodic
// out-of-memory fault says so.
func (d *device) allocFault(op string, host bool) error {
	n := d.allocs.Add(1)
	f := d.faults
	var why string
	switch {
	case f.FailAllocAt > 0 && n == int64(f.FailAllocAt):
		why = fmt.Sprintf("oom@%d", f.FailAllocAt)
	case f.FailAllocEvery > 0 && n%int64(f.FailAllocEvery) == 0:
		why = fmt.Sprintf("oom%%%d", f.FailAllocEvery)
	default:
		return nil
	}
	return oomError(d.backend, op, host, fmt.Sprintf("out of memory (simulated fault %s: allocation %d of this device)", why, n))
}

// reserve accounts size bytes of device memory against the memory limit.
func (d *device) reserve(op string, size int64) error {
	limit := d.faults.MemoryLimit
	for {
		cur := d.live.Load()
		if limit > 0 && cur+size > limit {
			return oomError(d.backend, op, false, fmt.Sprintf(
				"out of memory: %s requested, %s free of the %s the simulated device may use (fault memlimit=%s)",
				units.ByteSize(size), units.ByteSize(limit-cur), units.ByteSize(limit), formatSize(limit)))
		}
		if d.live.CompareAndSwap(cur, cur+size) {
			return nil
		}
	}
}

// Alloc allocates host memory that stands for device memory.
func (d *device) Alloc(size int64) (backend.Buffer, error) {
	op := "alloc " + units.ByteSize(size)
	if err := d.check(op); err != nil {
		return nil, err
	}
	if err := d.allocFault(op, false); err != nil {
		return nil, err
	}
	if err := d.reserve(op, size); err != nil {
		return nil, err
	}
	b, err := d.inner.Alloc(size)
	if err != nil {
		d.live.Add(-size)
		return nil, d.translate(err, op, false)
	}
	return &buffer{Buffer: b, dev: d, size: size}, nil
}

// AllocHost allocates host memory; it counts for FailAllocAt and
// FailAllocEvery but not for MemoryLimit.
func (d *device) AllocHost(size int64) (backend.HostBuffer, error) {
	op := "alloc host " + units.ByteSize(size)
	if err := d.check(op); err != nil {
		return nil, err
	}
	if err := d.allocFault(op, true); err != nil {
		return nil, err
	}
	b, err := d.inner.AllocHost(size)
	return b, d.translate(err, op, true)
}

// MemInfo reports the host's memory within the preset's total, and the
// memory limit's headroom when a limit is set.
func (d *device) MemInfo() (free, total int64, err error) {
	if err := d.check("mem info"); err != nil {
		return 0, 0, err
	}
	total = d.info.MemoryBytes
	free = total - d.live.Load()
	if m, ok := d.inner.(backend.MemInfoer); ok {
		f, _, err := m.MemInfo()
		if err != nil {
			return 0, 0, d.translate(err, "mem info", false)
		}
		free = min(free, f)
	}
	if lim := d.faults.MemoryLimit; lim > 0 {
		free = min(free, lim-d.live.Load())
	}
	return max(free, 0), total, nil
}

// NewStream creates a stream that executes on the CPU.
func (d *device) NewStream() (backend.Stream, error) {
	if err := d.check("new stream"); err != nil {
		return nil, err
	}
	s, err := d.inner.NewStream()
	if err != nil {
		return nil, d.translate(err, "new stream", false)
	}
	hc, _ := s.(backend.HostCopier)
	return &stream{dev: d, inner: s, hc: hc}, nil
}

// Compile compiles the Go dialect of src: simulated devices execute on the
// CPU whatever backend they present.
func (d *device) Compile(ctx context.Context, src backend.Source, opts backend.CompileOptions) (backend.Module, error) {
	op := fmt.Sprintf("compile %q", src.Name)
	if err := d.check(op); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, errors.Wrap(err, d.backend, op)
	}
	if d.faults.FailCompile {
		return nil, compileError(d.backend, op, src, d.info.Vendor)
	}
	if len(src.Go) == 0 {
		return nil, errors.E(errors.NotSupported, d.backend, op,
			"the source has no Go dialect (Source.Go): a simulated %s device executes kernels written in Go on the CPU", d.backend)
	}
	m, err := d.inner.Compile(ctx, src, opts)
	if err != nil {
		return nil, d.translate(err, op, false)
	}
	return m, nil
}

// Close closes the CPU device underneath, which waits for its streams.
func (d *device) Close() error { return d.translate(d.inner.Close(), "close", false) }

// translate makes an error of the CPU device underneath read as the simulated
// backend's: attributed to it, and out-of-memory reported with the backend's
// native code (the host refused the memory the simulated device stands for).
func (d *device) translate(err error, op string, host bool) error {
	if err == nil {
		return nil
	}
	if errors.CategoryOf(err) == errors.OutOfMemory {
		e := oomError(d.backend, op, host, fmt.Sprintf("out of memory: the host cannot hold the simulated allocation (%s)", reasonText(err)))
		e.Err = err
		return e
	}
	if e, ok := err.(*errors.Error); ok && (e.Backend == cpu.Name || e.Backend == "") {
		c := *e
		c.Backend = d.backend
		return &c
	}
	return err
}

// reasonText is an error's message without its backend and operation.
func reasonText(err error) string {
	if e, ok := err.(*errors.Error); ok && e.Msg != "" {
		return e.Msg
	}
	return err.Error()
}

// buffer is device memory of a simulated device: host memory, tracked for
// MemoryLimit. It exposes the host memory (backend.HostMemory) so the CPU
// streams and Go kernels underneath can use it.
type buffer struct {
	backend.Buffer
	dev  *device
	size int64
	once sync.Once
}

var (
	_ backend.Buffer       = (*buffer)(nil)
	_ backend.HostMemory   = (*buffer)(nil)
	_ backend.NativeHandle = (*buffer)(nil)
)

// Bytes is the host memory standing for the device memory.
func (b *buffer) Bytes() []byte {
	if h, ok := b.Buffer.(backend.HostMemory); ok {
		return h.Bytes()
	}
	return nil
}

// NativeHandle is the host address of the memory.
func (b *buffer) NativeHandle() uintptr {
	if h, ok := b.Buffer.(backend.NativeHandle); ok {
		return h.NativeHandle()
	}
	return 0
}

// Close frees the memory and gives its bytes back to the memory limit.
func (b *buffer) Close() error {
	var err error
	b.once.Do(func() {
		err = b.Buffer.Close()
		b.dev.live.Add(-b.size)
	})
	return b.dev.translate(err, "free", false)
}

// stream is a CPU stream of a simulated device that counts launches and
// fails fast once the device is lost.
type stream struct {
	dev   *device
	inner backend.Stream
	hc    backend.HostCopier // the inner stream's, if it has one
}

var (
	_ backend.Stream     = (*stream)(nil)
	_ backend.HostCopier = (*stream)(nil)
)

func (s *stream) Write(dst backend.Buffer, off int64, src []byte) error {
	const op = "write"
	if err := s.dev.check(op); err != nil {
		return err
	}
	return s.dev.translate(s.inner.Write(dst, off, src), op, false)
}

func (s *stream) Read(dst []byte, src backend.Buffer, off int64) error {
	const op = "read"
	if err := s.dev.check(op); err != nil {
		return err
	}
	return s.dev.translate(s.inner.Read(dst, src, off), op, false)
}

func (s *stream) Copy(dst backend.Buffer, dstOff int64, src backend.Buffer, srcOff, n int64) error {
	const op = "copy"
	if err := s.dev.check(op); err != nil {
		return err
	}
	return s.dev.translate(s.inner.Copy(dst, dstOff, src, srcOff, n), op, false)
}

func (s *stream) Fill(dst backend.Buffer, off, n int64, v uint32) error {
	const op = "fill"
	if err := s.dev.check(op); err != nil {
		return err
	}
	return s.dev.translate(s.inner.Fill(dst, off, n, v), op, false)
}

// Launch counts the launch against LoseAfterLaunches before running the Go
// kernel on the CPU.
func (s *stream) Launch(k backend.Kernel, grid, block backend.Dim3, args []backend.Arg) error {
	op := "launch " + k.Name()
	if err := s.dev.launch(op); err != nil {
		return err
	}
	return s.dev.translate(s.inner.Launch(k, grid, block, args), op, false)
}

func (s *stream) Record() (backend.Event, error) {
	const op = "record"
	if err := s.dev.check(op); err != nil {
		return nil, err
	}
	e, err := s.inner.Record()
	return e, s.dev.translate(err, op, false)
}

func (s *stream) Wait(e backend.Event) error {
	const op = "wait"
	if err := s.dev.check(op); err != nil {
		return err
	}
	return s.dev.translate(s.inner.Wait(e), op, false)
}

// Synchronize waits for the stream's work; on a lost device it returns the
// device-lost error at once, as every call of a CUDA context with a sticky
// error does.
func (s *stream) Synchronize(ctx context.Context) error {
	const op = "synchronize"
	if err := s.dev.check(op); err != nil {
		return err
	}
	return s.dev.translate(s.inner.Synchronize(ctx), op, false)
}

// Close releases the stream, lost device or not.
func (s *stream) Close() error { return s.dev.translate(s.inner.Close(), "close stream", false) }

// WriteHost copies from a host buffer without staging where the CPU stream
// can, else through Write.
func (s *stream) WriteHost(dst backend.Buffer, off int64, src backend.HostBuffer, srcOff, n int64) error {
	const op = "write host"
	if err := s.dev.check(op); err != nil {
		return err
	}
	if s.hc == nil {
		return s.dev.translate(s.inner.Write(dst, off, src.Bytes()[srcOff:srcOff+n]), op, false)
	}
	return s.dev.translate(s.hc.WriteHost(dst, off, src, srcOff, n), op, false)
}

// ReadHost copies into a host buffer without staging where the CPU stream
// can, else through Read.
func (s *stream) ReadHost(dst backend.HostBuffer, dstOff int64, src backend.Buffer, srcOff, n int64) error {
	const op = "read host"
	if err := s.dev.check(op); err != nil {
		return err
	}
	if s.hc == nil {
		return s.dev.translate(s.inner.Read(dst.Bytes()[dstOff:dstOff+n], src, srcOff), op, false)
	}
	return s.dev.translate(s.hc.ReadHost(dst, dstOff, src, srcOff, n), op, false)
}
