//go:build linux

package opengl

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/backend/opengl/internal/gl"
	"github.com/anygpu/gpu/errors"
	"github.com/anygpu/gpu/internal/units"
)

// stream is an ordered queue onto the device's context. OpenGL has one
// command queue per context, so every stream of a device feeds the same
// queue, in the order the calls are made: streams never overlap on the GPU,
// and a Wait is satisfied by that order alone.
type stream struct {
	dev    *device
	seq    atomic.Uint64 // operations submitted
	synced atomic.Uint64 // seq at the last completed Synchronize

	errMu sync.Mutex
	err   error // first asynchronous error since the last Synchronize
}

var _ backend.Stream = (*stream)(nil)

// note keeps err, when it is the first since the last Synchronize, for
// Synchronize to return.
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
	s.seq.Add(1)
	return s.dev.submit(task{fn: fn, s: s})
}

// Write copies src into dst. Up to 1 MiB is copied and enqueued; from
// pipeMin bytes, where the driver maps buffers persistently, src goes
// through the staging ring (writeStaged); else a larger src is handed to
// glBufferSubData directly and Write returns once the driver has taken it,
// after the work queued before it was submitted.
func (s *stream) Write(dst backend.Buffer, off int64, src []byte) error {
	b := dst.(*buffer)
	if s.staged(len(src)) {
		return s.writeStaged(b, off, src)
	}
	write := func(data []byte) func(t *thread) error {
		return func(t *thread) error {
			if t.dev.gpuOnly() {
				t.upload(b.id, off, data)
			} else {
				t.gl.BindBuffer(gl.CopyWriteBuffer, b.id)
				t.gl.BufferSubData(gl.CopyWriteBuffer, off, data)
			}
			t.dirty = true
			return t.check("write")
		}
	}
	if len(src) <= stageLimit {
		return s.submit(write(append([]byte(nil), src...)))
	}
	s.seq.Add(1)
	return s.dev.call(write(src))
}

// Read enqueues a copy of src into dst (glGetBufferSubData; on OpenGL ES,
// which lacks it, glMapBufferRange for reading), which waits for the work
// before it: dst holds the data once the stream is synchronized. From
// pipeMin bytes, where the driver maps buffers persistently, it goes through
// the staging ring (readStaged) and dst holds the data when Read returns.
func (s *stream) Read(dst []byte, src backend.Buffer, off int64) error {
	b := src.(*buffer)
	if s.staged(len(dst)) {
		return s.readStaged(dst, b, off)
	}
	return s.submit(func(t *thread) error {
		t.gl.BindBuffer(gl.CopyReadBuffer, b.id)
		if !t.gl.ES {
			t.gl.GetBufferSubData(gl.CopyReadBuffer, off, dst)
			return t.check("read")
		}
		if !t.gl.ReadMapped(gl.CopyReadBuffer, off, dst) {
			return t.mapFailed("read", len(dst))
		}
		return t.check("read")
	})
}

// Copy enqueues a copy within the device (copyBuffers: a compute shader for
// the aligned bulk on hardware devices, glCopyBufferSubData otherwise).
func (s *stream) Copy(dst backend.Buffer, dstOff int64, src backend.Buffer, srcOff, n int64) error {
	d, r := dst.(*buffer), src.(*buffer)
	return s.submit(func(t *thread) error { return t.copyBuffers("copy", d.id, dstOff, r.id, srcOff, n, t.dev.shaderCopy) })
}

// Fill enqueues glClearBufferSubData with the 32-bit value v (GL_R32UI). On
// OpenGL ES, which lacks it, the range is mapped for writing and filled by
// the context's thread: the map waits for the work before it that uses the
// buffer.
func (s *stream) Fill(dst backend.Buffer, off, n int64, v uint32) error {
	b := dst.(*buffer)
	return s.submit(func(t *thread) error {
		t.gl.BindBuffer(gl.CopyWriteBuffer, b.id)
		if t.gl.ES {
			if !t.gl.FillMapped(gl.CopyWriteBuffer, off, n, v) {
				return t.mapFailed("fill", int(n))
			}
			return t.check("fill")
		}
		t.gl.ClearBufferSubData(gl.CopyWriteBuffer, off, n, v)
		t.dirty = true
		return t.check("fill")
	})
}

// mapFailed is the error of a glMapBufferRange (or glUnmapBuffer) that
// failed: the GL error it left, else an Internal error (an unmap that
// reports the contents lost leaves none).
func (t *thread) mapFailed(op string, n int) error {
	if err := t.check(op); err != nil {
		return err
	}
	return withHint(errors.E(errors.Internal, Name, op, "the driver did not map %s of the buffer (glMapBufferRange or glUnmapBuffer failed without a GL error)", units.ByteSize(int64(n))),
		"retry the transfer; if it repeats, "+reportIt)
}

// Record enqueues a timestamp query and a fence.
func (s *stream) Record() (backend.Event, error) {
	e := newEvent(s)
	if err := s.submit(func(t *thread) error { t.record(e, true); return nil }); err != nil {
		return nil, err
	}
	return e, nil
}

// Wait orders nothing: the device's streams share one queue, so everything
// enqueued after this call already runs after e (an event of this device).
func (s *stream) Wait(backend.Event) error { return nil }

// Synchronize waits for a fence enqueued behind the stream's work, then
// returns the first asynchronous error since the last Synchronize.
func (s *stream) Synchronize(ctx context.Context) error {
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

// Close releases nothing: the stream holds no GL object, and the root
// package has synchronized it.
func (s *stream) Close() error { return nil }

// Launch binds the buffer arguments at storage-buffer bindings 0..n-1 and
// the packed scalars (std140, backend.PackScalars) as a uniform block at
// binding n, dispatches grid, and orders the kernel's writes before the work
// after it (glMemoryBarrier).
func (s *stream) Launch(k backend.Kernel, grid, block backend.Dim3, args []backend.Arg) error {
	kern := k.(*kernel)
	op := kern.launchOp
	p, err := kern.program(block)
	if err != nil {
		return err
	}
	lim := s.dev.lim
	ids := make([]uint32, 0, len(args))
	for i, a := range args {
		if a.Kind != backend.ArgBuffer {
			continue
		}
		b := a.Buffer.(*buffer)
		if (b.size+15)&^15 > lim.maxBlock { // bound whole, with its padding (Alloc)
			return &errors.Error{Backend: Name, Op: op, Category: errors.InvalidArgument,
				Msg: fmt.Sprintf("argument %d is a %s buffer, larger than the largest shader storage block the driver binds, %s (GL_MAX_SHADER_STORAGE_BLOCK_SIZE)",
					i, units.ByteSize(b.size), units.ByteSize(lim.maxBlock)),
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
	f.BufferSubData(gl.UniformBuffer, t.uboOff, data)
	f.BindBufferRange(gl.UniformBuffer, binding, t.ubo, t.uboOff, size)
	t.uboOff += step
}
