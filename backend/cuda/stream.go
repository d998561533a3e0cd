package cuda

import (
	"context"
	"sync"
	"unsafe"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/backend/cuda/internal/cu"
	"github.com/anygpu/gpu/errors"
)

// NewStream creates a non-blocking stream.
func (d *device) NewStream() (backend.Stream, error) {
	var h cu.Stream
	err := d.do("new stream", func(*cu.Frame) cu.Result {
		var r cu.Result
		h, r = d.lib.StreamCreate(cu.StreamNonBlocking)
		return r
	})
	if err != nil {
		return nil, err
	}
	return track(d, d.streams, newStream(d, h)), nil
}

// stream is a non-blocking CUstream. Its mutex serialises enqueues, so a
// multi-chunk Write is not interleaved with other work on the stream, and
// guards the launch parameter block it reuses.
type stream struct {
	dev *device
	h   cu.Stream

	mu     sync.Mutex
	fr     cu.Frame // argument memory of the driver calls made under mu
	params paramBlock
	mm     matMulStream // cuBLASLt's workspace and arguments (matmul.go)
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

// enqueue runs call with the stream locked and the device's context current
// on the thread, and checks its result as operation what.
func (s *stream) enqueue(op, what string, call func(fr *cu.Frame) cu.Result) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	d := s.dev
	if err := d.enter(&s.fr, op); err != nil {
		return err
	}
	r := call(&s.fr)
	d.leave()
	return d.check(r, what)
}

// The root package passes a stream only buffers, host buffers, kernels and
// events of its own device, with offsets and sizes in range and n > 0.

// Write copies src to device memory. Up to directMax bytes go through the
// driver, which stages pageable memory itself before it returns; larger
// copies through the device's pinned staging chunks. Either way src may be
// reused as soon as Write returns.
func (s *stream) Write(dst backend.Buffer, off int64, src []byte) error {
	p, n := dst.(*buffer).ptr+cu.DevicePtr(off), int64(len(src))
	return s.pageable("write", n, func() error { return s.writeStaged(p, src) },
		func() cu.Result { return s.dev.lib.MemcpyHtoDAsync(p, unsafe.Pointer(&src[0]), n, s.h) })
}

// Read copies device memory into dst. Up to directMax bytes go through the
// driver; larger reads through pinned chunks, and then Read returns once dst
// holds the data (the stream has reached this point).
func (s *stream) Read(dst []byte, src backend.Buffer, off int64) error {
	p, n := src.(*buffer).ptr+cu.DevicePtr(off), int64(len(dst))
	return s.pageable("read", n, func() error { return s.readStaged(dst, p) },
		func() cu.Result { return s.dev.lib.MemcpyDtoHAsync(unsafe.Pointer(&dst[0]), p, n, s.h) })
}

// pageable moves n bytes between pageable memory and the device: up to
// directMax through the driver (direct), else through the staging chunks
// (staged), with the stream locked for the whole transfer.
func (s *stream) pageable(op string, n int64, staged func() error, direct func() cu.Result) error {
	if n > directMax {
		s.mu.Lock()
		defer s.mu.Unlock()
		return staged()
	}
	return s.enqueue(op, op+" "+byteSize(n), func(*cu.Frame) cu.Result { return direct() })
}

// WriteHost copies from pinned host memory, asynchronously.
func (s *stream) WriteHost(dst backend.Buffer, off int64, src backend.HostBuffer, srcOff, n int64) error {
	b, h := dst.(*buffer), src.(*hostBuffer)
	return s.enqueue("write host", "write host "+byteSize(n), func(fr *cu.Frame) cu.Result {
		return s.dev.lib.MemcpyHtoDAsyncPinned(fr, b.ptr+cu.DevicePtr(off), unsafe.Add(h.ptr, srcOff), n, s.h)
	})
}

// ReadHost copies into pinned host memory, asynchronously.
func (s *stream) ReadHost(dst backend.HostBuffer, dstOff int64, src backend.Buffer, srcOff, n int64) error {
	h, b := dst.(*hostBuffer), src.(*buffer)
	return s.enqueue("read host", "read host "+byteSize(n), func(fr *cu.Frame) cu.Result {
		return s.dev.lib.MemcpyDtoHAsyncPinned(fr, unsafe.Add(h.ptr, dstOff), b.ptr+cu.DevicePtr(srcOff), n, s.h)
	})
}

// Copy is cuMemcpyDtoDAsync.
func (s *stream) Copy(dst backend.Buffer, dstOff int64, src backend.Buffer, srcOff, n int64) error {
	db, sb := dst.(*buffer), src.(*buffer)
	return s.enqueue("copy", "copy "+byteSize(n), func(fr *cu.Frame) cu.Result {
		return s.dev.lib.MemcpyDtoDAsync(fr, db.ptr+cu.DevicePtr(dstOff), sb.ptr+cu.DevicePtr(srcOff), n, s.h)
	})
}

// Fill is cuMemsetD32Async.
func (s *stream) Fill(dst backend.Buffer, off, n int64, v uint32) error {
	b := dst.(*buffer)
	return s.enqueue("fill", "fill "+byteSize(n), func(fr *cu.Frame) cu.Result {
		return s.dev.lib.MemsetD32Async(fr, b.ptr+cu.DevicePtr(off), v, n/4, s.h)
	})
}

// Launch is cuLaunchKernel, each argument passed as a pointer to its value
// in the stream's reused parameter block.
func (s *stream) Launch(k backend.Kernel, grid, block backend.Dim3, args []backend.Arg) error {
	kern := k.(*kernel)
	s.mu.Lock()
	if s.dev.broken() || !s.params.packFast(args, kern) {
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
// refused (a GPU with a sticky error, arguments that do not fit the
// kernel's parameters), worded; s.mu is not held.
//
//go:noinline
func (s *stream) launchRefused(kern *kernel, args []backend.Arg) error {
	s.mu.Lock()
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

// Record enqueues a timing event.
func (s *stream) Record() (backend.Event, error) {
	const op = "record event"
	s.mu.Lock()
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
	e := ev.(*event)
	return s.enqueue("wait", "wait", func(fr *cu.Frame) cu.Result { return s.dev.lib.StreamWaitEvent(fr, s.h, e.h) })
}

// Synchronize waits for the stream with cuStreamSynchronize; with a context
// that can end, on a goroutine of its own, so that it returns when the
// context ends (device.wait).
func (s *stream) Synchronize(ctx context.Context) error {
	d, h := s.dev, s.h
	return d.wait(ctx, "synchronize",
		func(fr *cu.Frame) cu.Result { return d.lib.StreamQuery(fr, h) },
		func(fr *cu.Frame) cu.Result { return d.lib.StreamSynchronize(fr, h) })
}

// Close destroys the stream (work already enqueued still completes).
func (s *stream) Close() error {
	d := s.dev
	err := release(d, d.streams, s, "close stream", func() cu.Result { return d.lib.StreamDestroy(s.h) })
	s.closeMatMul()
	return err
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
	var r cu.Result
	if err := d.bound(op, func(fr *cu.Frame) { r = query(fr) }); err != nil {
		return err
	}
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
