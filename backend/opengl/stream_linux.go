//go:build linux

package opengl

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/backend/opengl/internal/gl"
	"github.com/anygpu/gpu/errors"
)

// stream is an ordered queue onto the device's context. OpenGL has one
// command queue per context, so every stream of a device feeds the same
// queue, in the order the calls are made: streams never overlap on the GPU,
// and a Wait is satisfied by that order alone.
type stream struct {
	dev    *device
	closed atomic.Bool
	seq    atomic.Uint64 // operations submitted
	synced atomic.Uint64 // seq at the last completed Synchronize

	errMu sync.Mutex
	err   error // first asynchronous error since the last Synchronize
}

var (
	_ backend.Stream = (*stream)(nil)
)

var errStreamClosed = &errors.Error{Backend: Name, Category: errors.Closed, Msg: "stream is closed", Hint: "do not use a stream after Close"}

func (s *stream) note(err error) {
	if err == nil {
		return
	}
	s.errMu.Lock()
	if s.err == nil {
		s.err = err
	}
	s.errMu.Unlock()
}

// submit enqueues fn on the stream.
func (s *stream) submit(fn func(t *thread) error) error {
	if s.closed.Load() {
		return errStreamClosed
	}
	s.seq.Add(1)
	return s.dev.submit(task{fn: fn, s: s})
}

// buf returns b as a buffer of this stream's device.
func (s *stream) buf(b backend.Buffer, op string) (*buffer, error) {
	gb, ok := b.(*buffer)
	if !ok || gb == nil {
		return nil, withHint(errors.E(errors.InvalidArgument, Name, op, "buffer %T does not belong to the OpenGL backend", b), "pass buffers allocated on the stream's device")
	}
	if gb.dev != s.dev {
		return nil, withHint(errors.E(errors.InvalidArgument, Name, op, "the buffer belongs to another OpenGL device (context)"), "pass buffers allocated on the stream's device: each Device is its own OpenGL context")
	}
	return gb, nil
}

// Write copies src into dst. Up to 1 MiB is copied and enqueued; a larger
// src is handed to glBufferSubData directly and Write returns once the driver
// has taken it, after the work queued before it was submitted.
func (s *stream) Write(dst backend.Buffer, off int64, src []byte) error {
	b, err := s.buf(dst, "write")
	if err != nil {
		return err
	}
	n := int64(len(src))
	write := func(data []byte) func(t *thread) error {
		return func(t *thread) error {
			t.gl.BindBuffer(gl.CopyWriteBuffer, b.id)
			t.gl.BufferSubData(gl.CopyWriteBuffer, off, n, ptr(data))
			t.dirty = true
			return t.check("write")
		}
	}
	if n <= stageLimit {
		return s.submit(write(append([]byte(nil), src...)))
	}
	if s.closed.Load() {
		return errStreamClosed
	}
	s.seq.Add(1)
	return s.dev.call(write(src))
}

// Read enqueues a copy of src into dst (glGetBufferSubData, which waits for
// the work before it): dst holds the data once the stream is synchronized.
func (s *stream) Read(dst []byte, src backend.Buffer, off int64) error {
	b, err := s.buf(src, "read")
	if err != nil {
		return err
	}
	n := int64(len(dst))
	return s.submit(func(t *thread) error {
		t.gl.BindBuffer(gl.CopyReadBuffer, b.id)
		t.gl.GetBufferSubData(gl.CopyReadBuffer, off, n, ptr(dst))
		return t.check("read")
	})
}

// Copy enqueues glCopyBufferSubData.
func (s *stream) Copy(dst backend.Buffer, dstOff int64, src backend.Buffer, srcOff, n int64) error {
	d, err := s.buf(dst, "copy")
	if err != nil {
		return err
	}
	r, err := s.buf(src, "copy")
	if err != nil {
		return err
	}
	return s.submit(func(t *thread) error {
		t.gl.BindBuffer(gl.CopyReadBuffer, r.id)
		t.gl.BindBuffer(gl.CopyWriteBuffer, d.id)
		t.gl.CopyBufferSubData(gl.CopyReadBuffer, gl.CopyWriteBuffer, srcOff, dstOff, n)
		t.dirty = true
		return t.check("copy")
	})
}

// Fill enqueues glClearBufferSubData with the 32-bit value v (GL_R32UI).
func (s *stream) Fill(dst backend.Buffer, off, n int64, v uint32) error {
	b, err := s.buf(dst, "fill")
	if err != nil {
		return err
	}
	return s.submit(func(t *thread) error {
		t.u32 = v
		t.gl.BindBuffer(gl.CopyWriteBuffer, b.id)
		t.gl.ClearBufferSubData(gl.CopyWriteBuffer, off, n, ptrU32(&t.u32))
		t.dirty = true
		return t.check("fill")
	})
}

// Record enqueues a timestamp query and a fence.
func (s *stream) Record() (backend.Event, error) {
	e := newEvent(s)
	if err := s.submit(func(t *thread) error { t.record(e, true); return nil }); err != nil {
		return nil, err
	}
	return e, nil
}

// record issues e's timestamp query (when timed) and fence.
func (t *thread) record(e *event, timed bool) {
	if timed && t.dev.lim.timestampBits > 0 {
		if len(t.queries) == 0 {
			ids := make([]uint32, 64)
			t.gl.GenQueries(ids)
			t.queries = append(t.queries, ids...)
		}
		e.query = t.queries[len(t.queries)-1]
		t.queries = t.queries[:len(t.queries)-1]
		t.gl.QueryCounter(e.query, gl.Timestamp)
	}
	e.sync = t.gl.FenceSync()
	t.dirty = true
	if e.sync == 0 {
		if e.s != nil {
			e.s.note(t.check("record"))
		}
		t.complete(e)
		return
	}
	t.pending = append(t.pending, e)
}

// Wait orders nothing: the device's streams share one queue, so everything
// enqueued after this call already runs after e. It only checks that e is an
// event of this device.
func (s *stream) Wait(ev backend.Event) error {
	e, ok := ev.(*event)
	if !ok || e == nil {
		return withHint(errors.E(errors.InvalidArgument, Name, "wait", "event %T does not belong to the OpenGL backend", ev), "wait on events recorded on the stream's device")
	}
	if e.dev != s.dev {
		return withHint(errors.E(errors.InvalidArgument, Name, "wait", "the event belongs to another OpenGL device (context)"), "synchronize the other device's event on the host instead")
	}
	if s.closed.Load() {
		return errStreamClosed
	}
	return nil
}

// Synchronize waits for a fence enqueued behind the stream's work, then
// returns the first asynchronous error since the last Synchronize.
func (s *stream) Synchronize(ctx context.Context) error {
	if s.closed.Load() {
		return errStreamClosed
	}
	if seq := s.seq.Load(); seq != s.synced.Load() {
		e := newEvent(s)
		if err := s.submit(func(t *thread) error { t.record(e, false); return nil }); err != nil {
			return err
		}
		if err := e.wait(ctx, "synchronize"); err != nil {
			return err
		}
		s.synced.Store(seq)
	}
	s.errMu.Lock()
	err := s.err
	s.err = nil
	s.errMu.Unlock()
	return err
}

// Close stops the stream; the root package has synchronized it.
func (s *stream) Close() error {
	s.closed.Store(true)
	return nil
}

// event is a fence plus a GL_TIMESTAMP query, completed by the context's
// thread once the fence signals.
type event struct {
	dev  *device
	s    *stream
	ch   chan struct{} // closed when done
	done atomic.Bool
	// owned by the context's thread until done
	sync  uintptr
	query uint32
	ts    uint64 // GPU time in ns, valid when done and timed
	timed bool
}

var _ backend.Event = (*event)(nil)

func newEvent(s *stream) *event {
	return &event{dev: s.dev, s: s, ch: make(chan struct{}), timed: s.dev.lim.timestampBits > 0}
}

func (e *event) wait(ctx context.Context, op string) error {
	if e.done.Load() {
		return nil
	}
	select {
	case <-e.ch:
		return nil
	case <-ctx.Done():
		return errors.Wrap(ctx.Err(), Name, op)
	case <-e.dev.exited:
		select {
		case <-e.ch:
			return nil
		default:
			return errDeviceClosed
		}
	}
}

// Synchronize waits until the event completes or ctx ends.
func (e *event) Synchronize(ctx context.Context) error { return e.wait(ctx, "event synchronize") }

// Done reports whether the context's thread has seen the event complete; it
// makes no GL call.
func (e *event) Done() (bool, error) { return e.done.Load(), nil }

// Elapsed is the GPU time between the two events' timestamps.
func (e *event) Elapsed(start backend.Event) (time.Duration, error) {
	s, ok := start.(*event)
	if !ok || s == nil {
		return 0, withHint(errors.E(errors.InvalidArgument, Name, "elapsed", "event %T does not belong to the OpenGL backend", start), "time events recorded on the same device")
	}
	if s.dev != e.dev {
		return 0, withHint(errors.E(errors.InvalidArgument, Name, "elapsed", "events of two OpenGL contexts have no common clock"), "time events recorded on the same device")
	}
	if !s.done.Load() || !e.done.Load() {
		return 0, &errors.Error{Backend: Name, Op: "elapsed", Category: errors.InvalidArgument,
			Msg: "event has not completed yet", Hint: "synchronize both events before asking for the time between them"}
	}
	if !s.timed || !e.timed {
		return 0, &errors.Error{Backend: Name, Op: "elapsed", Category: errors.NotSupported,
			Msg: "the driver has no GL_TIMESTAMP counter", Hint: "time on the host instead"}
	}
	return time.Duration(int64(e.ts - s.ts)), nil
}

// Close releases nothing: the context's thread recycles the fence and query
// when the event completes.
func (e *event) Close() error { return nil }

// Launch binds the buffer arguments at storage-buffer bindings 0..n-1 and
// the packed scalars (std140, backend.PackScalars) as a uniform block at
// binding n, dispatches grid, and orders the kernel's writes before the work
// after it (glMemoryBarrier).
func (s *stream) Launch(k backend.Kernel, grid, block backend.Dim3, args []backend.Arg) error {
	kern, ok := k.(*kernel)
	if !ok || kern == nil {
		return withHint(errors.E(errors.InvalidArgument, Name, "launch", "kernel %T does not belong to the OpenGL backend", k), "launch kernels compiled on the stream's device")
	}
	op := kern.launchOp
	d := s.dev
	if kern.mod.dev != d {
		return withHint(errors.E(errors.InvalidArgument, Name, op, "the kernel was compiled for another OpenGL device (context)"), "compile the source on the stream's device: each Device is its own OpenGL context")
	}
	if kern.mod.closed.Load() {
		return withHint(errors.E(errors.Closed, Name, op, "module %q is closed", kern.mod.name), "compile the source again: kernels of a closed module cannot be launched")
	}
	p, err := kern.program(block)
	if err != nil {
		return err
	}
	lim := d.lim
	ids := make([]uint32, 0, len(args))
	for i, a := range args {
		if a.Kind != backend.ArgBuffer {
			continue
		}
		b, err := s.buf(a.Buffer, op)
		if err != nil {
			return err
		}
		if b.size > lim.maxBlock {
			return &errors.Error{Backend: Name, Op: op, Category: errors.InvalidArgument,
				Msg: fmt.Sprintf("argument %d is a %s buffer, larger than the largest shader storage block the driver binds, %s (GL_MAX_SHADER_STORAGE_BLOCK_SIZE)",
					i, byteSize(b.size), byteSize(lim.maxBlock)),
				Hint: "split the data over several buffers of at most that size (DeviceInfo.Extra[\"max_storage_block\"]), or use another backend"}
		}
		ids = append(ids, b.id)
	}
	if n := min(lim.maxSSBOs, maxBindings); len(ids) > n {
		return withHint(errors.E(errors.Launch, Name, op, "%d buffer arguments; the driver binds at most %d storage buffers in a compute shader (GL_MAX_COMPUTE_SHADER_STORAGE_BLOCKS)", len(ids), n), "pass fewer buffers (pack several arrays into one), or use another backend")
	}
	if p.ssbos > len(ids) {
		return withHint(errors.E(errors.InvalidArgument, Name, op, "the kernel uses storage-buffer binding %d but the launch passes %d buffers (bindings 0..%d)", p.ssbos-1, len(ids), len(ids)-1), "declare one storage block per buffer argument at bindings 0..n-1, in argument order")
	}
	params := backend.PackScalars(args, true)
	for _, u := range p.uniforms {
		if u.binding != len(ids) {
			return withHint(errors.E(errors.InvalidArgument, Name, op, "the kernel's uniform block is at binding %d; the portable ABI passes its scalars at binding %d, after its %d buffers", u.binding, len(ids), len(ids)), "declare the scalars as one std140 uniform block at binding n, after the n buffer arguments")
		}
		if u.size > int64(len(params)) {
			return withHint(errors.E(errors.InvalidArgument, Name, op, "the kernel's uniform block holds %d bytes, the launch's scalars %d (std140: 4-byte scalars 4-aligned, 8-byte ones 8-aligned)", u.size, len(params)), "pass every scalar the uniform block declares, in its order and with its type")
		}
	}
	if int64(len(params)) > min(lim.maxUBO, uniformRing) {
		return withHint(errors.E(errors.InvalidArgument, Name, op, "%d bytes of scalars exceed the largest uniform block, %d bytes", len(params), min(lim.maxUBO, uniformRing)), "pass large data in a buffer, not as scalars")
	}
	if len(p.uniforms) == 0 {
		params = nil
	}
	gx, gy, gz := uint32(grid.X), uint32(grid.Y), uint32(grid.Z)
	return s.submit(func(t *thread) error {
		f := t.gl
		if t.program != p.id {
			f.UseProgram(p.id)
			t.program = p.id
		}
		for i, id := range ids {
			if t.ssbo[i] != id {
				f.BindBufferBase(gl.ShaderStorageBuffer, uint32(i), id)
				t.ssbo[i] = id
			}
		}
		if len(params) > 0 {
			t.uniforms(uint32(len(ids)), params)
		}
		f.DispatchCompute(gx, gy, gz)
		f.MemoryBarrier(gl.ShaderStorageBarrier | gl.BufferUpdateBarrier)
		t.dirty = true
		return t.check(op)
	})
}

// uniforms writes data to the next slot of the uniform ring and binds it at
// binding.
func (t *thread) uniforms(binding uint32, data []byte) {
	size := int64(len(data))
	align := t.dev.lim.uboAlign
	step := (size + align - 1) / align * align
	if t.uboOff+step > uniformRing {
		t.uboOff = 0
	}
	f := t.gl
	f.BindBuffer(gl.UniformBuffer, t.ubo)
	f.BufferSubData(gl.UniformBuffer, t.uboOff, size, ptr(data))
	f.BindBufferRange(gl.UniformBuffer, binding, t.ubo, t.uboOff, size)
	t.uboOff += step
}
