package cuda

import (
	"context"
	"math"
	"runtime"
	"testing"
	"time"
	"unsafe"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/backend/backendtest"
	"github.com/anygpu/gpu/backend/cuda/internal/cu"
	"github.com/anygpu/gpu/kernels"
)

// worker is the threading design measured against binding on every call:
// one goroutine per device, locked to its OS thread with the context current
// for good, receiving work through a channel.
type worker struct {
	reqs chan *workReq
	quit chan struct{}
}

type workReq struct {
	op     int // 0: cuStreamQuery, 1: cuLaunchKernel
	stream cu.Stream
	fn     cu.Function
	params unsafe.Pointer
	done   chan cu.Result
}

func startWorker(d *device) *worker {
	w := &worker{reqs: make(chan *workReq), quit: make(chan struct{})}
	ready := make(chan struct{})
	go func() {
		fr := cu.NewFrame()
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		d.lib.CtxSetCurrent(fr, d.ctx)
		close(ready)
		for {
			select {
			case r := <-w.reqs:
				switch r.op {
				case 0:
					r.done <- d.lib.StreamQuery(fr, r.stream)
				case 1:
					r.done <- d.lib.LaunchKernel(fr, r.fn, 1, 1, 1, 32, 1, 1, 0, r.stream, r.params)
				}
			case <-w.quit:
				return
			}
		}
	}()
	<-ready
	return w
}

func (w *worker) stop() { close(w.quit) }

// BenchmarkThreading measures what making the context current costs per
// driver call, on a call that does almost nothing (cuStreamQuery of an idle
// stream): bind = LockOSThread + cuCtxSetCurrent + call + UnlockOSThread on
// the caller's goroutine; worker = a round trip to the device's locked
// worker goroutine; raw = the call alone on a thread already bound.
func BenchmarkThreading(b *testing.B) {
	d := openRaw(b)
	bs, err := d.NewStream()
	if err != nil {
		b.Fatal(err)
	}
	s := bs.(*stream)
	defer s.Close()
	fr := cu.NewFrame()
	b.Run("raw", func(b *testing.B) {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		d.lib.CtxSetCurrent(fr, d.ctx)
		for b.Loop() {
			d.lib.StreamQuery(fr, s.h)
		}
	})
	b.Run("bind", func(b *testing.B) {
		for b.Loop() {
			if err := d.enter(fr, "q"); err != nil {
				b.Fatal(err)
			}
			d.lib.StreamQuery(fr, s.h)
			d.leave()
		}
	})
	b.Run("worker", func(b *testing.B) {
		w := startWorker(d)
		defer w.stop()
		r := &workReq{stream: s.h, done: make(chan cu.Result, 1)}
		for b.Loop() {
			w.reqs <- r
			<-r.done
		}
	})
	b.Run("bind-get", func(b *testing.B) {
		defer func(v bool) { checkCurrent = v }(checkCurrent)
		checkCurrent = true
		for b.Loop() {
			if err := d.enter(fr, "q"); err != nil {
				b.Fatal(err)
			}
			d.lib.StreamQuery(fr, s.h)
			d.leave()
		}
	})
	b.Run("setcurrent", func(b *testing.B) {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		for b.Loop() {
			d.lib.CtxSetCurrent(fr, d.ctx)
		}
	})
	b.Run("getcurrent", func(b *testing.B) {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		d.lib.CtxSetCurrent(fr, d.ctx)
		for b.Loop() {
			d.lib.CtxGetCurrent(fr)
		}
	})
	b.Run("bind-parallel", func(b *testing.B) {
		b.RunParallel(func(pb *testing.PB) {
			fr := cu.NewFrame()
			for pb.Next() {
				if err := d.enter(fr, "q"); err != nil {
					b.Error(err)
					return
				}
				d.lib.StreamQuery(fr, s.h)
				d.leave()
			}
		})
	})
	b.Run("worker-parallel", func(b *testing.B) {
		w := startWorker(d)
		defer w.stop()
		b.RunParallel(func(pb *testing.PB) {
			r := &workReq{stream: s.h, done: make(chan cu.Result, 1)}
			for pb.Next() {
				w.reqs <- r
				<-r.done
			}
		})
	})
}

// BenchmarkLaunchThreading launches an empty kernel back to back with each
// threading design (the GPU's launch rate bounds both).
func BenchmarkLaunchThreading(b *testing.B) {
	d := openRaw(b)
	m, err := d.Compile(context.Background(), backend.Source{Name: "empty", CUDA: `extern "C" __global__ void empty(int* p) {}`}, backend.CompileOptions{})
	if err != nil {
		b.Fatal(err)
	}
	kk, _ := m.Kernel("empty")
	k := kk.(*kernel)
	bs, _ := d.NewStream()
	s := bs.(*stream)
	defer s.Close()
	fr := cu.NewFrame()
	buf, _ := d.Alloc(4)
	s.params.pack([]backend.Arg{{Kind: backend.ArgBuffer, Buffer: buf}}, k)
	params := unsafe.Pointer(&s.params.ptrs[0])
	sync := func(b *testing.B) {
		if err := s.Synchronize(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("raw", func(b *testing.B) {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		d.lib.CtxSetCurrent(fr, d.ctx)
		for b.Loop() {
			d.lib.LaunchKernel(fr, k.fn, 1, 1, 1, 32, 1, 1, 0, s.h, params)
		}
		sync(b)
	})
	for _, check := range []bool{false, true} {
		name := "bind"
		if check {
			name = "bind-get"
		}
		b.Run(name, func(b *testing.B) {
			defer func(v bool) { checkCurrent = v }(checkCurrent)
			checkCurrent = check
			for b.Loop() {
				d.enter(fr, "launch")
				d.lib.LaunchKernel(fr, k.fn, 1, 1, 1, 32, 1, 1, 0, s.h, params)
				d.leave()
			}
			sync(b)
		})
	}
	b.Run("worker", func(b *testing.B) {
		w := startWorker(d)
		defer w.stop()
		r := &workReq{op: 1, stream: s.h, fn: k.fn, params: params, done: make(chan cu.Result, 1)}
		for b.Loop() {
			w.reqs <- r
			<-r.done
		}
		sync(b)
	})
	b.Run("public", func(b *testing.B) { // through package gpu: gpu bench's launch_us (fill, grid 1, block 1)
		backendtest.OpenBench(b, Driver{}).LaunchThroughput(b)
	})
	b.Run("api", func(b *testing.B) { // the backend's Launch
		for b.Loop() {
			if err := s.Launch(k, backend.Dim3{X: 1, Y: 1, Z: 1}, backend.Dim3{X: 32, Y: 1, Z: 1}, []backend.Arg{{Kind: backend.ArgBuffer, Buffer: buf}}); err != nil {
				b.Fatal(err)
			}
		}
		sync(b)
	})
}

// BenchmarkLaunchEnqueue times bursts of 128 fill launches (grid 1, block
// 1) that fit the stream's queue, each burst after a Synchronize and timed
// without it: the CPU cost of one launch alone, without the GPU's pace.
// launch_loop.c's c_enqueue_us is the same measurement in C. raw is one
// purego call per launch; public is gpu.Stream.Launch.
func BenchmarkLaunchEnqueue(b *testing.B) {
	const burst = 128
	dev := openGPU(b)
	ctx := context.Background()
	mod, err := dev.Compile(ctx, kernels.Source())
	if err != nil {
		b.Fatal(err)
	}
	fill, _ := mod.Kernel(kernels.OpFill)
	y, _ := dev.Alloc(4)
	st := dev.DefaultStream()
	one := func() error { return st.Launch(fill, gpu.D1(1), gpu.D1(1), gpu.Buf(y), gpu.U32(1), gpu.F32(1.5)) }
	bursts := func(b *testing.B, launch func() error) {
		for b.Loop() {
			b.StopTimer()
			if err := st.Synchronize(ctx); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			for range burst {
				if err := launch(); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.StopTimer()
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*burst)/1e3, "us/launch")
		_ = st.Synchronize(ctx)
	}
	b.Run("public", func(b *testing.B) { bursts(b, one) })
	b.Run("raw", func(b *testing.B) {
		d := openRaw(b)
		m, err := d.Compile(ctx, kernels.Source(), backend.CompileOptions{})
		if err != nil {
			b.Fatal(err)
		}
		kk, _ := m.Kernel(kernels.OpFill)
		k := kk.(*kernel)
		bs, _ := d.NewStream()
		s := bs.(*stream)
		defer s.Close()
		buf, _ := d.Alloc(4)
		s.params.pack([]backend.Arg{{Kind: backend.ArgBuffer, Buffer: buf}, {Kind: backend.ArgU32, Bits: 1}, {Kind: backend.ArgF32, Bits: uint64(math.Float32bits(1.5))}}, k)
		params := unsafe.Pointer(&s.params.ptrs[0])
		fr := cu.NewFrame()
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		d.lib.CtxSetCurrent(fr, d.ctx)
		for b.Loop() {
			b.StopTimer()
			if r := d.lib.StreamSynchronize(fr, s.h); r != cu.Success {
				b.Fatal(r)
			}
			b.StartTimer()
			for range burst {
				d.lib.LaunchKernel(fr, k.fn, 1, 1, 1, 1, 1, 1, 0, s.h, params)
			}
		}
		b.StopTimer()
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*burst)/1e3, "us/launch")
		_ = s.Synchronize(ctx)
	})
}

// BenchmarkKernels times the built-in kernels at the sizes of gpu bench, and
// saxpy at several grid sizes.
func BenchmarkKernels(b *testing.B) {
	dev := openGPU(b)
	ctx := context.Background()
	mod, err := dev.Compile(ctx, kernels.Source())
	if err != nil {
		b.Fatal(err)
	}
	defer mod.Close()
	st := dev.DefaultStream()
	const n = 64 << 20
	x, _ := gpu.AllocSlice[float32](dev, n)
	y, _ := gpu.AllocSlice[float32](dev, n)
	defer x.Close()
	defer y.Close()
	_ = st.Fill(x, 0, 4*n, 0x3f800000)
	_ = st.Fill(y, 0, 4*n, 0)
	timeIt := func(b *testing.B, bytesPer float64, unit string, launch func() error) {
		if err := launch(); err != nil { // warm-up
			b.Fatal(err)
		}
		if err := st.Synchronize(ctx); err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		iters := 0
		for b.Loop() {
			if err := launch(); err != nil {
				b.Fatal(err)
			}
			iters++
		}
		if err := st.Synchronize(ctx); err != nil {
			b.Fatal(err)
		}
		per := time.Since(start).Seconds() / float64(iters)
		b.ReportMetric(bytesPer/per/1e9, unit)
	}
	for _, mode := range []string{"2", "0", "1"} {
		mm, err := dev.Compile(ctx, kernels.Source(), gpu.Define("ANYGPU_CUDA_EW_MODE", mode))
		if err != nil {
			b.Fatal(err)
		}
		defer mm.Close()
		axpy, _ := mm.Kernel(kernels.OpAxpy)
		for _, g := range []struct {
			name string
			grid int
		}{{"grid=n/256", n / 256}, {"grid=n/1024", n / 1024}, {"grid=SMs*8", dev.Info().Units * 8}} {
			b.Run("saxpy/mode="+mode+"/"+g.name, func(b *testing.B) {
				timeIt(b, 12*n, "GB/s", func() error {
					return st.Launch(axpy, gpu.D1(g.grid), gpu.D1(256), gpu.Buf(y), gpu.Buf(x), gpu.U32(n), gpu.F32(0.5))
				})
			})
		}
	}
	red, _ := mod.Kernel(kernels.OpReduceSum)
	partial, _ := gpu.AllocSlice[float32](dev, 1024)
	total, _ := gpu.AllocSlice[float32](dev, 1)
	defer partial.Close()
	defer total.Close()
	b.Run("reduce", func(b *testing.B) {
		timeIt(b, 4*n, "GB/s", func() error {
			if err := st.Launch(red, gpu.D1(1024), gpu.D1(256), gpu.Buf(partial), gpu.Buf(x), gpu.U32(n)); err != nil {
				return err
			}
			return st.Launch(red, gpu.D1(1), gpu.D1(256), gpu.Buf(total), gpu.Buf(partial), gpu.U32(1024))
		})
	})
	sg, _ := mod.Kernel(kernels.OpSgemm)
	const m = 4096
	a, _ := gpu.AllocSlice[float32](dev, m*m)
	bb, _ := gpu.AllocSlice[float32](dev, m*m)
	c, _ := gpu.AllocSlice[float32](dev, m*m)
	defer a.Close()
	defer bb.Close()
	defer c.Close()
	_ = st.Fill(a, 0, 4*m*m, 0x3f000000)
	_ = st.Fill(bb, 0, 4*m*m, 0x3f000000)
	b.Run("sgemm4096", func(b *testing.B) {
		timeIt(b, 2*m*m*m/1e3, "TFLOPS", func() error {
			return st.Launch(sg, gpu.D2(m/16, m/16), gpu.D2(16, 16), gpu.Buf(c), gpu.Buf(a), gpu.Buf(bb), gpu.U32(m), gpu.U32(m), gpu.U32(m), gpu.F32(1), gpu.F32(0))
		})
		got, err := gpu.ToSlice[float32](ctx, c)
		if err != nil {
			b.Fatal(err)
		}
		if got[12345] != m*0.25 {
			b.Fatalf("sgemm of halves: C = %v, want %v", got[12345], m*0.25)
		}
	})
}

// BenchmarkAllocRaw is cuMemAlloc + cuMemFree of 1 MiB, the figure the
// pool's hit path is compared with.
func BenchmarkAllocRaw(b *testing.B) {
	d := openRaw(b)
	for b.Loop() {
		buf, err := d.Alloc(1 << 20)
		if err != nil {
			b.Fatal(err)
		}
		buf.Close()
	}
}
