//go:build linux

package opengl

import (
	"fmt"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/backend/opengl/internal/gl"
	"github.com/anygpu/gpu/errors"
	"github.com/anygpu/gpu/internal/hostmem"
	"github.com/anygpu/gpu/internal/memview"
	"github.com/anygpu/gpu/internal/units"
)

// stageLimit is the largest Write that is copied and enqueued; larger ones
// hand the caller's slice to the driver and return once it copied.
const stageLimit = 1 << 20

func oom(op string, size, avail int64, what string) error {
	return &errors.Error{Backend: Name, Op: op, Category: errors.OutOfMemory, Retryable: size <= avail,
		Msg:  fmt.Sprintf("out of memory: %s requested, %s %s", units.ByteSize(size), units.ByteSize(avail), what),
		Hint: "free buffers, trim the pools, or process the data in smaller batches"}
}

// Alloc creates a buffer object of size bytes (immutable storage where
// GL_ARB_buffer_storage is there; with no flags, so the GPU's own memory,
// where transfers are staged: see gpuOnly), padded to a multiple of 16 bytes: a
// kernel binds the whole buffer object, and generated kernels declare a
// buffer they move 4 floats at a time as an array of 16-byte vectors, whose
// last partial vector must lie inside the binding. Buffers larger than the
// largest shader storage block can be copied, filled and transferred, but
// not passed to a kernel.
func (d *device) Alloc(size int64) (backend.Buffer, error) {
	op := "alloc " + units.ByteSize(size)
	if size > d.info.MemoryBytes {
		return nil, oom(op, size, d.info.MemoryBytes, "is all the device has")
	}
	if d.software {
		if avail := hostmem.Available(); avail > 0 && size > avail {
			return nil, oom(op, size, avail, "of host memory is available to the software renderer")
		}
	}
	b := &buffer{dev: d, size: size}
	err := d.call(func(t *thread) error {
		f := t.gl
		b.id = f.GenBuffer()
		f.BindBuffer(gl.CopyWriteBuffer, b.id)
		padded := (size + 15) &^ 15
		if d.lim.bufferStorage {
			flags := uint32(gl.DynamicStorageBit)
			if d.gpuOnly() {
				flags = 0
			}
			f.BufferStorage(gl.CopyWriteBuffer, padded, flags)
		} else {
			f.BufferData(gl.CopyWriteBuffer, padded, gl.DynamicCopy)
		}
		if err := t.check(op); err != nil {
			t.deleteBuffer(b.id)
			b.id = 0
			return err
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return b, nil
}

// AllocHost allocates host memory for fast transfers: where the driver maps
// buffers persistently, a GL buffer in host memory (GL_CLIENT_STORAGE_BIT)
// mapped for as long as it lives, which WriteHost and ReadHost copy with the
// GPU; else 64-byte-aligned Go memory, which the driver stages itself.
func (d *device) AllocHost(size int64) (backend.HostBuffer, error) {
	op := "alloc host " + units.ByteSize(size)
	if avail := hostmem.Available(); avail > 0 && size > avail {
		return nil, oom(op, size, avail, "of host memory is available")
	}
	if size > int64(^uint(0)>>1) {
		return nil, oom(op, size, int64(^uint(0)>>1), "is the most this process can address")
	}
	if !d.lim.persistent || size == 0 {
		return &hostBuffer{mem: memview.Aligned(int(size), 64)}, nil
	}
	h := &hostBuffer{dev: d}
	err := d.call(func(t *thread) error {
		var err error
		h.id, h.mem, err = t.newMapped(op, size)
		return err
	})
	if err != nil {
		return nil, err
	}
	return h, nil
}

// gpuOnly reports whether buffers get immutable storage without
// GL_DYNAMIC_STORAGE_BIT: desktop OpenGL with glBufferStorage where
// transfers are staged (EnvStaging). The client never writes such a buffer
// (glBufferSubData is refused); Writes go through staging or the upload
// ring (thread.upload). Drivers may place buffers the client updates in
// host memory: on an H200, NVIDIA's copied between two such buffers at
// 40 GB/s, a host-memory figure.
func (d *device) gpuOnly() bool { return d.stage && d.lim.bufferStorage }

// uploadRing is the size of the buffer small Writes pass through where
// buffers are gpuOnly.
const uploadRing = 4 << 20

// upload copies data into buffer dst at off through the upload ring:
// glBufferSubData into the ring, then glCopyBufferSubData to dst. A full
// ring is orphaned (glBufferData), so a write never waits for the copies
// that still read the ring.
func (t *thread) upload(dst uint32, off int64, data []byte) {
	f := t.gl
	if t.up == 0 {
		t.up = f.GenBuffer()
		f.BindBuffer(gl.CopyReadBuffer, t.up)
		f.BufferData(gl.CopyReadBuffer, uploadRing, gl.StreamDraw)
	}
	f.BindBuffer(gl.CopyReadBuffer, t.up)
	f.BindBuffer(gl.CopyWriteBuffer, dst)
	for len(data) > 0 {
		n := int64(min(len(data), uploadRing))
		if t.upOff+n > uploadRing {
			f.BufferData(gl.CopyReadBuffer, uploadRing, gl.StreamDraw)
			t.upOff = 0
		}
		f.BufferSubData(gl.CopyReadBuffer, t.upOff, data[:n])
		f.CopyBufferSubData(gl.CopyReadBuffer, gl.CopyWriteBuffer, t.upOff, off, n)
		t.upOff += (n + 255) &^ 255
		data, off = data[n:], off+n
	}
}

// deleteBuffer deletes a buffer and forgets it in the binding cache (GL
// unbinds a deleted buffer, and may hand its name out again).
func (t *thread) deleteBuffer(id uint32) {
	for i, b := range t.ssbo {
		if b == id {
			t.ssbo[i] = 0
		}
	}
	t.gl.DeleteBuffer(id)
}

// buffer is a GL buffer object.
type buffer struct {
	dev  *device
	id   uint32
	size int64
}

var (
	_ backend.Buffer       = (*buffer)(nil)
	_ backend.NativeHandle = (*buffer)(nil)
)

// Size is the buffer's size in bytes.
func (b *buffer) Size() int64 { return b.size }

// NativeHandle returns the GL buffer name.
func (b *buffer) NativeHandle() uintptr { return uintptr(b.id) }

// Close deletes the buffer object after the work queued before it (GL keeps
// it alive while queued commands use it).
func (b *buffer) Close() error {
	id := b.id
	_ = b.dev.submit(task{fn: func(t *thread) error { t.deleteBuffer(id); return nil }}) // a closed device freed it
	return nil
}

// hostBuffer is host memory (see AllocHost): a persistently mapped GL
// buffer when id is not 0.
type hostBuffer struct {
	dev *device
	id  uint32
	mem []byte
}

var _ backend.HostBuffer = (*hostBuffer)(nil)

// Bytes is the host memory.
func (h *hostBuffer) Bytes() []byte { return h.mem }

// Close lets Go memory go to the garbage collector, or deletes the GL buffer
// after the work queued before it (which unmaps it).
func (h *hostBuffer) Close() error {
	h.mem = nil
	if id := h.id; id != 0 {
		h.id = 0
		_ = h.dev.submit(task{fn: func(t *thread) error { t.deleteBuffer(id); return nil }}) // a closed device freed it
	}
	return nil
}
