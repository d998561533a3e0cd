package cuda

import (
	"context"
	"sync"
	"unsafe"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/backend/cuda/internal/cu"
	"github.com/anygpu/gpu/errors"
)

// stream is a non-blocking CUstream. Its mutex serialises enqueues, so a
// multi-chunk Write is not interleaved with other work on the stream, and
// guards the launch parameter block it reuses.
type stream struct {
	dev *device
	h   cu.Stream

	mu     sync.Mutex
	closed bool
	fr     cu.Frame // argument memory of the driver calls made under mu
	params paramBlock
}

var (
	_ backend.Stream       = (*stream)(nil)
	_ backend.HostCopier   = (*stream)(nil)
	_ backend.PeerCopier   = (*stream)(nil)
	_ backend.NativeHandle = (*stream)(nil)
)

func newStream(d *device, h cu.Stream) *stream {
	s := &stream{dev: d, h: h}
	s.params.init()
	return s
}

// NativeHandle is the CUstream.
func (s *stream) NativeHandle() uintptr { return uintptr(s.h) }

func (s *stream) closedErr(op string) error {
	return &errors.Error{Backend: Name, Op: op, Category: errors.Closed, Msg: "stream is closed", Hint: "create a new stream"}
}

// lock takes the stream for an enqueue; the caller unlocks s.mu.
func (s *stream) lock(op string) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return s.closedErr(op)
	}
	return nil
}

// enqueue runs call with the stream locked and the device's context current
// on the thread, and checks its result as operation what.
func (s *stream) enqueue(op, what string, call func(fr *cu.Frame) cu.Result) error {
	if err := s.lock(op); err != nil {
		return err
	}
	defer s.mu.Unlock()
	d := s.dev
	if err := d.enter(&s.fr, op); err != nil {
		return err
	}
	r := call(&s.fr)
	d.leave()
	return d.check(r, what)
}

func bufferOf(op string, b backend.Buffer) (*buffer, error) {
	cb, ok := b.(*buffer)
	if !ok {
		return nil, foreign(op, b)
	}
	return cb, nil
}

// Write copies src to device memory. Up to directMax bytes go through the
// driver, which stages pageable memory itself before it returns; larger
// copies through the device's pinned staging chunks. Either way src may be
// reused as soon as Write returns.
func (s *stream) Write(dst backend.Buffer, off int64, src []byte) error {
	const op = "write"
	b, err := bufferOf(op, dst)
	if err != nil {
		return err
	}
	n := int64(len(src))
	if n == 0 {
		return nil
	}
	if n > directMax {
		if err := s.lock(op); err != nil {
			return err
		}
		defer s.mu.Unlock()
		return s.writeStaged(b.ptr+cu.DevicePtr(off), src)
	}
	return s.enqueue(op, "write "+byteSize(n), func(*cu.Frame) cu.Result {
		return s.dev.lib.MemcpyHtoDAsync(b.ptr+cu.DevicePtr(off), unsafe.Pointer(&src[0]), n, s.h)
	})
}

// Read copies device memory into dst. Up to directMax bytes go through the
// driver; larger reads through pinned chunks, and then Read returns once dst
// holds the data (the stream has reached this point).
func (s *stream) Read(dst []byte, src backend.Buffer, off int64) error {
	const op = "read"
	b, err := bufferOf(op, src)
	if err != nil {
		return err
	}
	n := int64(len(dst))
	if n == 0 {
		return nil
	}
	if n > directMax {
		if err := s.lock(op); err != nil {
			return err
		}
		defer s.mu.Unlock()
		return s.readStaged(dst, b.ptr+cu.DevicePtr(off))
	}
	return s.enqueue(op, "read "+byteSize(n), func(*cu.Frame) cu.Result {
		return s.dev.lib.MemcpyDtoHAsync(unsafe.Pointer(&dst[0]), b.ptr+cu.DevicePtr(off), n, s.h)
	})
}

// WriteHost copies from pinned host memory, asynchronously.
func (s *stream) WriteHost(dst backend.Buffer, off int64, src backend.HostBuffer, srcOff, n int64) error {
	const op = "write host"
	b, err := bufferOf(op, dst)
	if err != nil {
		return err
	}
	h, ok := src.(*hostBuffer)
	if !ok {
		return foreign(op, src)
	}
	return s.enqueue(op, "write host "+byteSize(n), func(fr *cu.Frame) cu.Result {
		return s.dev.lib.MemcpyHtoDAsyncPinned(fr, b.ptr+cu.DevicePtr(off), unsafe.Add(h.ptr, srcOff), n, s.h)
	})
}

// ReadHost copies into pinned host memory, asynchronously.
func (s *stream) ReadHost(dst backend.HostBuffer, dstOff int64, src backend.Buffer, srcOff, n int64) error {
	const op = "read host"
	b, err := bufferOf(op, src)
	if err != nil {
		return err
	}
	h, ok := dst.(*hostBuffer)
	if !ok {
		return foreign(op, dst)
	}
	return s.enqueue(op, "read host "+byteSize(n), func(fr *cu.Frame) cu.Result {
		return s.dev.lib.MemcpyDtoHAsyncPinned(fr, unsafe.Add(h.ptr, dstOff), b.ptr+cu.DevicePtr(srcOff), n, s.h)
	})
}

// Copy is cuMemcpyDtoDAsync.
func (s *stream) Copy(dst backend.Buffer, dstOff int64, src backend.Buffer, srcOff, n int64) error {
	const op = "copy"
	db, err := bufferOf(op, dst)
	if err != nil {
		return err
	}
	sb, err := bufferOf(op, src)
	if err != nil {
		return err
	}
	return s.enqueue(op, "copy "+byteSize(n), func(fr *cu.Frame) cu.Result {
		return s.dev.lib.MemcpyDtoDAsync(fr, db.ptr+cu.DevicePtr(dstOff), sb.ptr+cu.DevicePtr(srcOff), n, s.h)
	})
}

// CopyPeer copies from a buffer of another Device: on the same GPU a plain
// device copy, across GPUs cuMemcpyPeerAsync (direct over NVLink or PCIe
// where peer access is possible, else staged by the driver). It is ordered
// on this stream only: the work that produced src must be complete (or
// ordered) before the copy is enqueued.
func (s *stream) CopyPeer(dst backend.Buffer, dstOff int64, src backend.Buffer, srcOff, n int64) error {
	const op = "copy peer"
	db, err := bufferOf(op, dst)
	if err != nil {
		return err
	}
	sb, err := bufferOf(op, src)
	if err != nil {
		return err
	}
	if sb.dev.broken() {
		return lostErr(sb.dev.ord, op)
	}
	return s.enqueue(op, "copy peer "+byteSize(n), func(fr *cu.Frame) cu.Result {
		d := s.dev
		if sb.dev.ctx == d.ctx {
			return d.lib.MemcpyDtoDAsync(fr, db.ptr+cu.DevicePtr(dstOff), sb.ptr+cu.DevicePtr(srcOff), n, s.h)
		}
		d.enablePeer(sb.dev)
		return d.lib.MemcpyPeerAsync(fr, db.ptr+cu.DevicePtr(dstOff), d.ctx, sb.ptr+cu.DevicePtr(srcOff), sb.dev.ctx, n, s.h)
	})
}

// Fill is cuMemsetD32Async.
func (s *stream) Fill(dst backend.Buffer, off, n int64, v uint32) error {
	const op = "fill"
	b, err := bufferOf(op, dst)
	if err != nil {
		return err
	}
	return s.enqueue(op, "fill "+byteSize(n), func(fr *cu.Frame) cu.Result {
		return s.dev.lib.MemsetD32Async(fr, b.ptr+cu.DevicePtr(off), v, n/4, s.h)
	})
}

// Launch is cuLaunchKernel, each argument passed as a pointer to its value
// in the stream's reused parameter block.
func (s *stream) Launch(k backend.Kernel, grid, block backend.Dim3, args []backend.Arg) error {
	kern, ok := k.(*kernel)
	if !ok {
		return foreign("launch", k)
	}
	s.mu.Lock()
	if s.closed || s.dev.broken() || !s.params.packFast(args, kern) {
		s.mu.Unlock()
		return s.launchRefused(kern, args)
	}
	// Optimistic: the thread almost always has the context current already
	// (enter binds it for good), so launch first and bind only if the
	// driver says the thread has no context or another one (launchAgain).
	// One foreign call per launch instead of two (see doc.go).
	r := s.dev.lib.LaunchKernel(&s.fr, kern.fn, uint32(grid.X), uint32(grid.Y), uint32(grid.Z),
		uint32(block.X), uint32(block.Y), uint32(block.Z), 0, s.h, unsafe.Pointer(&s.params.ptrs[0]))
	if r != cu.Success {
		err := s.launchAgain(r, kern, grid, block)
		s.mu.Unlock()
		return err
	}
	s.mu.Unlock()
	return nil
}

// launchRefused is the error of a launch that Launch's compact checks
// refused (a closed stream, a GPU with a sticky error, arguments that do
// not fit), worded; s.mu is not held.
//
//go:noinline
func (s *stream) launchRefused(kern *kernel, args []backend.Arg) error {
	if err := s.lock("launch"); err != nil {
		return err
	}
	defer s.mu.Unlock()
	if s.dev.broken() {
		return lostErr(s.dev.ord, "launch "+kern.name)
	}
	if err := s.params.packChecked(args, kern); err != nil {
		return err
	}
	return errors.E(errors.Internal, Name, "launch "+kern.name, "launch refused by its checks, but no check names a reason")
}

// launchAgain handles a launch the driver refused with r: if the thread had
// no context or another one it binds the device's and launches again (such
// a failed launch enqueues nothing: TestLaunchForeignContext), else, or if
// that fails too, it returns the error. s.mu is held and the parameter
// block packed.
//
//go:noinline
func (s *stream) launchAgain(r cu.Result, kern *kernel, grid, block backend.Dim3) error {
	d := s.dev
	if rebind(r) {
		if err := d.enter(&s.fr, "launch"); err != nil {
			return err
		}
		r = d.lib.LaunchKernel(&s.fr, kern.fn, uint32(grid.X), uint32(grid.Y), uint32(grid.Z),
			uint32(block.X), uint32(block.Y), uint32(block.Z), 0, s.h, unsafe.Pointer(&s.params.ptrs[0]))
		d.leave()
	}
	return d.check(r, "launch "+kern.name)
}

// rebind reports whether a call failed because the calling thread had no
// context current, or a context other than the one of the call's handles.
func rebind(r cu.Result) bool {
	return r == cu.ErrorInvalidContext || r == cu.ErrorInvalidHandle || r == cu.ErrorContextIsDestroyed
}

// Record enqueues a timing event.
func (s *stream) Record() (backend.Event, error) {
	const op = "record event"
	if err := s.lock(op); err != nil {
		return nil, err
	}
	defer s.mu.Unlock()
	d := s.dev
	if err := d.enter(&s.fr, op); err != nil {
		return nil, err
	}
	e, r := d.takeEvent()
	if r == cu.Success {
		if r = d.lib.EventRecord(&s.fr, e, s.h); r != cu.Success {
			_ = d.lib.EventDestroy(e)
		}
	}
	d.leave()
	if err := d.check(r, op); err != nil {
		return nil, err
	}
	return &event{dev: d, h: e}, nil
}

// Wait is cuStreamWaitEvent.
func (s *stream) Wait(ev backend.Event) error {
	const op = "wait"
	e, ok := ev.(*event)
	if !ok {
		return foreign(op, ev)
	}
	return s.enqueue(op, op, func(fr *cu.Frame) cu.Result { return s.dev.lib.StreamWaitEvent(fr, s.h, e.h) })
}

// Synchronize waits for the stream with cuStreamSynchronize; with a context
// that can end, on a goroutine of its own, so that it returns when the
// context ends (device.wait).
func (s *stream) Synchronize(ctx context.Context) error {
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	if closed {
		return s.closedErr("synchronize")
	}
	d, h := s.dev, s.h
	return d.wait(ctx, "synchronize",
		func(fr *cu.Frame) cu.Result { return d.lib.StreamQuery(fr, h) },
		func(fr *cu.Frame) cu.Result { return d.lib.StreamSynchronize(fr, h) })
}

// Close destroys the stream (work already enqueued still completes).
func (s *stream) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	s.mu.Unlock()
	d := s.dev
	d.mu.Lock()
	_, live := d.streams[s]
	delete(d.streams, s)
	d.mu.Unlock()
	if !live || d.broken() {
		return nil
	}
	return d.do("close stream", func(*cu.Frame) cu.Result { return d.lib.StreamDestroy(s.h) })
}

// destroy releases the stream during Device.Close; the context is current.
func (s *stream) destroy() {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	_ = s.dev.lib.StreamDestroy(s.h)
}

// wait waits until query reports completion. With a context that cannot
// end (no Done channel) it blocks in the driver (block) on the calling
// goroutine. Otherwise, unless query says the work is done already, block
// runs on a goroutine of its own while wait selects on its result and on
// ctx: the driver wakes the waiter as soon as the work completes, and a
// cancelled ctx returns at once (the helper goroutine ends when the work
// does; an error it meets, such as a sticky fault, is still recorded).
// Polling with sleeps between queries, as this did before, overslept the
// work by up to the last pause: H2D of 256 MiB through gpu bench, whose
// context is signal.NotifyContext's, measured 42.4-43.4 GB/s against
// 45.9-47.6 for the same binary with a context.Background (H200).
func (d *device) wait(ctx context.Context, op string, query, block func(*cu.Frame) cu.Result) error {
	if ctx.Done() == nil {
		return d.do(op, block)
	}
	if err := ctx.Err(); err != nil {
		return errors.Wrap(err, Name, op)
	}
	fr := framePool.Get().(*cu.Frame)
	if err := d.enter(fr, op); err != nil {
		framePool.Put(fr)
		return err
	}
	r := query(fr)
	d.leave()
	framePool.Put(fr)
	switch r {
	case cu.Success:
		return nil
	case cu.ErrorNotReady:
	default:
		return d.check(r, op)
	}
	done := make(chan error, 1)
	go func() { done <- d.do(op, block) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return errors.Wrap(ctx.Err(), Name, op)
	}
}
