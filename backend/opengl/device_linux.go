//go:build linux

package opengl

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/backend/opengl/internal/egl"
	"github.com/anygpu/gpu/backend/opengl/internal/gl"
	"github.com/anygpu/gpu/errors"
	"github.com/anygpu/gpu/internal/memview"
)

const (
	// queueDepth is how many operations wait for the context's thread
	// before an enqueue blocks (back-pressure, like a GPU command queue).
	queueDepth = 4096
	// maxBatch is how many queued operations the thread runs between two
	// looks at the fences it tracks.
	maxBatch = 256
	// fenceWait is how long the idle thread blocks in glClientWaitSync on the
	// oldest pending fence before it looks for new work again.
	fenceWait = 200 * time.Microsecond
	// stageLimit is the largest Write that is copied and enqueued; larger
	// ones hand the caller's slice to the driver and return once it copied.
	stageLimit = 1 << 20
	// uniformRing is the size of the ring the scalar parameters of launches
	// are written to.
	uniformRing = 256 << 10
	// maxBindings bounds the storage-buffer bindings tracked per launch.
	maxBindings = 64
)

// task is one operation for the context's thread. Errors of a stream's task
// are kept for the stream's next Synchronize.
type task struct {
	fn func(t *thread) error
	s  *stream
}

// device is one OpenGL context, owned by one goroutine on a locked OS thread.
type device struct {
	info backend.DeviceInfo
	cand *candidate
	lim  *limits

	sendMu sync.RWMutex // senders hold it for reading; Close for writing
	closed bool
	work   chan task
	exited chan struct{}

	lost     atomic.Pointer[error] // set once the context is lost
	live     atomic.Int64          // bytes of open buffers
	eglCtx   egl.Context
	software bool
}

var (
	_ backend.Device       = (*device)(nil)
	_ backend.MemInfoer    = (*device)(nil)
	_ backend.NativeHandle = (*device)(nil)
)

// thread is the state only the context's goroutine touches.
type thread struct {
	dev     *device
	gl      *gl.Funcs
	pending []*event // recorded and not yet seen complete, in submission order
	queries []uint32 // free timestamp queries
	program uint32   // the current program
	ssbo    [maxBindings]uint32
	ubo     uint32
	uboOff  int64
	dirty   bool // commands issued since the last flush
	u32     uint32
	u64     uint64
}

func open(ctx context.Context, ordinal int) (backend.Device, error) {
	op := fmt.Sprintf("open device %d", ordinal)
	cands, err := candidates(ctx, op)
	if err != nil {
		return nil, err
	}
	if ordinal < 0 || ordinal >= len(cands) {
		return nil, &errors.Error{Backend: Name, Op: op, Category: errors.InvalidArgument,
			Msg:  fmt.Sprintf("device %d does not exist: the OpenGL backend has %d", ordinal, len(cands)),
			Hint: "list the devices with `gpu info` and check ANYGPU_DEVICE"}
	}
	c := cands[ordinal]
	d := &device{info: c.info, cand: c, software: c.software,
		work: make(chan task, queueDepth), exited: make(chan struct{})}
	ready := make(chan error, 1)
	go d.run(ready)
	if err := <-ready; err != nil {
		return nil, errors.Wrap(err, Name, op)
	}
	return d, nil
}

// run is the context's goroutine: it creates the context on its locked
// thread, serves the work queue, and destroys the context when the queue is
// closed.
func (d *device) run(ready chan<- error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	defer close(d.exited)
	c := d.cand
	ctx, err := c.newContext()
	if err != nil {
		ready <- &errors.Error{Category: errors.Initialization, Msg: err.Error(), Hint: hintOf(err, hintInstall)}
		return
	}
	defer c.destroyContext(ctx)
	f, err := gl.Load(c.lib.GetProcAddress)
	if err == nil {
		d.lim, err = readLimits(f)
	}
	if err != nil {
		ready <- &errors.Error{Category: errors.Initialization, Msg: err.Error(), Hint: hintOf(err, hintInstall)}
		return
	}
	d.eglCtx = ctx
	t := &thread{dev: d, gl: f}
	if d.lim.parallelCompile {
		f.MaxShaderCompilerThreads(0xFFFFFFFF) // as many as the driver likes
	}
	t.ubo = f.GenBuffer()
	f.BindBuffer(gl.UniformBuffer, t.ubo)
	f.BufferData(gl.UniformBuffer, uniformRing, nil, gl.DynamicDraw)
	if err := t.check("open: uniform buffer"); err != nil {
		ready <- err
		return
	}
	ready <- nil
	t.loop()
	// The queue is closed and drained: wait for the GPU, then wake every
	// event still waited on.
	f.Finish()
	t.poll()
	for _, e := range t.pending {
		t.complete(e)
	}
}

// hintOf returns the hint carried by a probeError, else def.
func hintOf(err error, def string) string {
	var pe *probeError
	if errors.As(err, &pe) && pe.hint != "" {
		return pe.hint
	}
	return def
}

// loop runs tasks in batches and tracks the fences of recorded events; it
// returns when the work queue is closed and empty.
func (t *thread) loop() {
	work := t.dev.work
	for {
		var tk task
		var ok bool
		if len(t.pending) == 0 {
			t.flush()
			tk, ok = <-work
		} else {
			select {
			case tk, ok = <-work:
			default:
				t.flush()
				t.gl.ClientWaitSync(t.pending[0].sync, gl.SyncFlushCommandsBit, uint64(fenceWait))
				t.poll()
				continue
			}
		}
		if !ok {
			return
		}
		t.exec(tk)
	batch:
		for i := 0; i < maxBatch; i++ {
			select {
			case tk, ok = <-work:
				if !ok {
					return
				}
				t.exec(tk)
			default:
				break batch
			}
		}
		t.flush()
		t.poll()
	}
}

func (t *thread) flush() {
	if t.dirty {
		t.gl.Flush()
		t.dirty = false
	}
}

// exec runs one task, turning a panic into an Internal error, and keeps a
// stream task's error for the stream.
func (t *thread) exec(tk task) {
	err := t.protect(tk.fn)
	if err != nil && tk.s != nil {
		tk.s.note(err)
	}
}

func (t *thread) protect(fn func(*thread) error) (err error) {
	defer func() {
		if v := recover(); v != nil {
			e := errors.E(errors.Internal, Name, "context thread", "panic: %v", v)
			e.Hint = "this is a bug in anygpu's OpenGL backend: please report it with the log (errors.LogOf)"
			e.Log = string(debug.Stack())
			err = e
		}
	}()
	return fn(t)
}

// check returns the first pending GL error as an error of op (clearing the
// others); a lost context marks the device lost.
func (t *thread) check(op string) error {
	code := t.gl.GetError()
	if code == gl.NoError {
		return nil
	}
	for i := 0; i < 16 && t.gl.GetError() != gl.NoError; i++ {
	}
	err := glError(code, op)
	if code == gl.ContextLost {
		t.dev.lost.CompareAndSwap(nil, &err)
	}
	return err
}

// poll completes, in order, the pending events whose fences have signaled.
func (t *thread) poll() {
	n := 0
	for _, e := range t.pending {
		r := t.gl.ClientWaitSync(e.sync, 0, 0)
		if r == gl.TimeoutExpired {
			break
		}
		if r == gl.WaitFailed && e.s != nil {
			e.s.note(t.check("wait for fence"))
		}
		t.complete(e)
		n++
	}
	if n > 0 {
		rest := copy(t.pending, t.pending[n:])
		clear(t.pending[rest:])
		t.pending = t.pending[:rest]
	}
}

// complete reads e's timestamp, recycles its query and fence, and marks it
// done.
func (t *thread) complete(e *event) {
	if e.query != 0 {
		t.gl.QueryResult64(e.query, gl.QueryResult, &t.u64)
		e.ts = t.u64
		t.queries = append(t.queries, e.query)
		e.query = 0
	}
	if e.sync != 0 {
		t.gl.DeleteSync(e.sync)
		e.sync = 0
	}
	e.done.Store(true)
	close(e.ch)
}

// submit hands tk to the context's thread.
func (d *device) submit(tk task) error {
	d.sendMu.RLock()
	defer d.sendMu.RUnlock()
	if d.closed {
		return errDeviceClosed
	}
	if p := d.lost.Load(); p != nil {
		return &errors.Error{Backend: Name, Category: errors.DeviceLost, Fatal: true, Err: *p,
			Msg: "the OpenGL context was lost", Hint: "close the Device and open a new one"}
	}
	d.work <- tk
	return nil
}

var errDeviceClosed = &errors.Error{Backend: Name, Category: errors.Closed, Msg: "device is closed", Hint: "do not use a device after Close"}

// call runs fn on the context's thread and waits for its result.
func (d *device) call(fn func(t *thread) error) error {
	reply := make(chan error, 1)
	err := d.submit(task{fn: func(t *thread) error {
		reply <- t.protect(fn)
		return nil
	}})
	if err != nil {
		return err
	}
	return <-reply // every queued task runs, also when the device closes
}

// Info describes the device (read when it was probed).
func (d *device) Info() backend.DeviceInfo { return d.info }

// NativeHandle returns the EGLContext.
func (d *device) NativeHandle() uintptr { return uintptr(d.eglCtx) }

// MemInfo reports video memory through GL_NVX_gpu_memory_info (NVIDIA), or
// the host's memory for software renderers.
func (d *device) MemInfo() (free, total int64, err error) {
	if d.software {
		return meminfo("MemAvailable"), d.info.MemoryBytes, nil
	}
	if !d.lim.exts["GL_NVX_gpu_memory_info"] {
		return 0, d.info.MemoryBytes, withHint(errors.E(errors.NotSupported, Name, "mem info",
			"the driver (%s) does not report free memory (no GL_NVX_gpu_memory_info)", d.info.Name), "the driver lacks GL_NVX_gpu_memory_info: watch memory with the vendor's tools (nvidia-smi, radeontop)")
	}
	err = d.call(func(t *thread) error {
		free = t.gl.GetInteger(gl.GPUMemoryInfoCurrentAvailableVidmemNVX) << 10
		total = t.gl.GetInteger(gl.GPUMemoryInfoDedicatedVidmemNVX) << 10
		return t.check("mem info")
	})
	return free, total, err
}

func oom(op string, size, avail int64, what string) error {
	return &errors.Error{Backend: Name, Op: op, Category: errors.OutOfMemory, Retryable: size <= avail,
		Msg:  fmt.Sprintf("out of memory: %s requested, %s %s", byteSize(size), byteSize(avail), what),
		Hint: "free buffers, trim the pools, or process the data in smaller batches"}
}

// Alloc creates a buffer object of size bytes (immutable storage where
// GL_ARB_buffer_storage is there). Buffers larger than the largest shader
// storage block can be copied, filled and transferred, but not passed to a
// kernel.
func (d *device) Alloc(size int64) (backend.Buffer, error) {
	op := "alloc " + byteSize(size)
	if size > d.info.MemoryBytes {
		return nil, oom(op, size, d.info.MemoryBytes, "is all the device has")
	}
	if d.software {
		if avail := meminfo("MemAvailable"); avail > 0 && size > avail {
			return nil, oom(op, size, avail, "of host memory is available to the software renderer")
		}
	}
	b := &buffer{dev: d, size: size}
	err := d.call(func(t *thread) error {
		f := t.gl
		b.id = f.GenBuffer()
		f.BindBuffer(gl.CopyWriteBuffer, b.id)
		if d.lim.bufferStorage {
			f.BufferStorage(gl.CopyWriteBuffer, size, nil, gl.DynamicStorageBit)
		} else {
			f.BufferData(gl.CopyWriteBuffer, size, nil, gl.DynamicCopy)
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
	d.live.Add(size)
	return b, nil
}

// AllocHost allocates 64-byte-aligned Go memory: OpenGL has no pinned host
// memory of its own; the driver stages transfers itself.
func (d *device) AllocHost(size int64) (backend.HostBuffer, error) {
	op := "alloc host " + byteSize(size)
	if avail := meminfo("MemAvailable"); avail > 0 && size > avail {
		return nil, oom(op, size, avail, "of host memory is available")
	}
	if size > int64(^uint(0)>>1) {
		return nil, oom(op, size, int64(^uint(0)>>1), "is the most this process can address")
	}
	return &hostBuffer{mem: memview.Aligned(int(size), 64)}, nil
}

// NewStream returns an ordered queue onto the device's one context.
func (d *device) NewStream() (backend.Stream, error) {
	d.sendMu.RLock()
	defer d.sendMu.RUnlock()
	if d.closed {
		return nil, errDeviceClosed
	}
	return &stream{dev: d}, nil
}

// Close runs the queued work, destroys the context and stops its thread.
func (d *device) Close() error {
	d.sendMu.Lock()
	if d.closed {
		d.sendMu.Unlock()
		return nil
	}
	d.closed = true
	close(d.work)
	d.sendMu.Unlock()
	<-d.exited
	return nil
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

// deleteProgram deletes a program and forgets it as the current one.
func (t *thread) deleteProgram(id uint32) {
	if t.program == id {
		t.gl.UseProgram(0)
		t.program = 0
	}
	t.gl.DeleteProgram(id)
}

// buffer is a GL buffer object.
type buffer struct {
	dev    *device
	id     uint32
	size   int64
	closed atomic.Bool
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
	if !b.closed.CompareAndSwap(false, true) {
		return nil
	}
	b.dev.live.Add(-b.size)
	id := b.id
	_ = b.dev.submit(task{fn: func(t *thread) error { t.deleteBuffer(id); return nil }}) // a closed device freed it
	return nil
}

// hostBuffer is host memory (see AllocHost).
type hostBuffer struct{ mem []byte }

var _ backend.HostBuffer = (*hostBuffer)(nil)

// Bytes is the host memory.
func (h *hostBuffer) Bytes() []byte { return h.mem }

// Close lets the memory go to the garbage collector.
func (h *hostBuffer) Close() error { h.mem = nil; return nil }

// ptr returns the address of b's first byte as an unsafe.Pointer.
func ptr(b []byte) unsafe.Pointer { return unsafe.Pointer(unsafe.SliceData(b)) }

// ptrU32 returns p as an unsafe.Pointer.
func ptrU32(p *uint32) unsafe.Pointer { return unsafe.Pointer(p) }

// byteSize formats a byte count the way error messages show it ("1.0 GiB").
func byteSize(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 5; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}
