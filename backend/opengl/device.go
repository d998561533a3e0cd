//go:build linux

package opengl

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/backend/opengl/internal/egl"
	"github.com/anygpu/gpu/backend/opengl/internal/gl"
	"github.com/anygpu/gpu/errors"
	"github.com/anygpu/gpu/internal/hostmem"
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
	closed bool         // the work queue is closed: a late sender gets Closed, not a panic
	work   chan task
	exited chan struct{}

	staging stagingRing // staging buffers of large transfers, made on first use
	stage   bool        // large transfers are staged (EnvStaging)
	// shaderCopy: Copy moves the aligned bulk with a compute shader (EnvCopy).
	shaderCopy bool
	// hostShaderCopy: copies to and from host and staging buffers use the
	// copy shader too (EnvHostCopy).
	hostShaderCopy bool

	lost     atomic.Pointer[error] // set once the context is lost
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
	// copyProg is the program of Copy's shader (copy.go), built on first
	// use; copyFailed: the driver did not build it.
	copyProg   uint32
	copyFailed bool
	// up is the upload ring (memory.go: upload), upOff its next free byte.
	up    uint32
	upOff int64
	u64   uint64 // a query result, read by GL into the heap
}

func open(ctx context.Context, ordinal int, api API) (backend.Device, error) {
	op := fmt.Sprintf("open device %d", ordinal)
	cands, err := candidates(ctx, op, api)
	if err != nil {
		return nil, err
	}
	if ordinal < 0 || ordinal >= len(cands) {
		return nil, &errors.Error{Backend: Name, Op: op, Category: errors.InvalidArgument,
			Msg:  fmt.Sprintf("device %d does not exist: the OpenGL backend has %d", ordinal, len(cands)),
			Hint: "list the devices with `gpu info` and check ANYGPU_DEVICE"}
	}
	c := cands[ordinal]
	d := &device{info: c.info, cand: c, software: c.software, stage: stagingWanted(os.Getenv(EnvStaging), c.software),
		shaderCopy:     shaderCopyWanted(os.Getenv(EnvCopy), c.software),
		hostShaderCopy: strings.EqualFold(strings.TrimSpace(os.Getenv(EnvHostCopy)), "shader"),
		work:           make(chan task, queueDepth), exited: make(chan struct{})}
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
	f, err := gl.Load(c.lib.GetProcAddress, c.es)
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
	f.BufferData(gl.UniformBuffer, uniformRing, gl.DynamicDraw)
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
				t.gl.ClientWaitSync(t.pending[0].sync, gl.SyncFlushCommandsBit, uint64(t.fenceWait()))
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
		return hostmem.Available(), d.info.MemoryBytes, nil
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

// NewStream returns an ordered queue onto the device's one context.
func (d *device) NewStream() (backend.Stream, error) { return &stream{dev: d}, nil }

// Close runs the queued work, destroys the context and stops its thread.
// The root package calls it once, after closing the device's streams.
func (d *device) Close() error {
	d.sendMu.Lock()
	d.closed = true
	close(d.work)
	d.sendMu.Unlock()
	<-d.exited
	return nil
}

// newContext makes a context of the candidate's API current on the calling
// thread, with no surface: OpenGL 4.3 core, or OpenGL ES 3.1 (which drivers
// may raise to 3.2, a compatible version). The display is initialised.
func (c *candidate) newContext() (egl.Context, error) {
	l := c.lib
	api, attribs := egl.OpenGLAPI, []int32{
		egl.ContextMajorVersion, wantMajor, egl.ContextMinorVersion, wantMinor,
		egl.ContextOpenGLProfileMask, egl.ContextOpenGLCoreProfile,
	}
	if c.es {
		api, attribs = egl.OpenGLESAPI, []int32{egl.ContextMajorVersion, wantESMajor, egl.ContextMinorVersion, wantESMinor}
	}
	if !l.BindAPI(api) { // per thread
		return 0, eglFail("eglBindAPI("+eglAPIName(c.es)+")", l.GetError())
	}
	ctx := l.CreateContext(c.dpy, c.config, egl.NoContext, attribs)
	if ctx == egl.NoContext {
		return 0, eglFail("eglCreateContext("+apiLabel(c.es)+")", l.GetError())
	}
	if !l.MakeCurrent(c.dpy, ctx) {
		code := l.GetError()
		l.DestroyContext(c.dpy, ctx)
		return 0, eglFail("eglMakeCurrent without a surface", code)
	}
	return ctx, nil
}

// destroyContext releases ctx from the calling thread and destroys it.
func (c *candidate) destroyContext(ctx egl.Context) {
	c.lib.MakeCurrent(c.dpy, egl.NoContext)
	c.lib.DestroyContext(c.dpy, ctx)
	c.lib.ReleaseThread()
}
