package main

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"time"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/kernels"
	"github.com/anygpu/gpu/kernels/sgemm"
)

// The metric names gpu bench reports, in the order they are measured and
// shown. The peer scripts that measure PyTorch and CuPy use the same names,
// so their figures line up with ours in one table.
const (
	mH2DPinned   = "h2d_pinned_gbps"
	mD2HPinned   = "d2h_pinned_gbps"
	mH2DPageable = "h2d_pageable_gbps"
	mD2HPageable = "d2h_pageable_gbps"
	mD2D         = "d2d_gbps"
	mLaunch      = "launch_us"
	mSaxpy       = "saxpy_gbps"
	mReduce      = "reduce_gbps"
	mSgemm       = "sgemm_tflops"
	mAllocFree   = "alloc_free_us"
	mCompileCold = "compile_cold_ms"
	mCompileWarm = "compile_warm_ms"

	// mAllocFreePool is the pooled allocation (a pool hit), under the name
	// peers.py gives CuPy's pooled allocation; alloc_free_us is unpooled, as
	// peers.py's cudaMalloc+cudaFree is.
	mAllocFreePool = "alloc_free_us_pool"
)

// metric is one measurement. Metrics of the same group share resources,
// released when the next group starts.
type metric struct {
	name  string
	group string
	run   func(r *runner) (float64, error)
}

var metrics = []metric{
	{mH2DPinned, "transfer", (*runner).h2dPinned},
	{mD2HPinned, "transfer", (*runner).d2hPinned},
	{mH2DPageable, "transfer", (*runner).h2dPageable},
	{mD2HPageable, "transfer", (*runner).d2hPageable},
	{mD2D, "transfer", (*runner).d2d},
	{mLaunch, "launch", (*runner).launch},
	{mSaxpy, "vector", (*runner).saxpy},
	{mReduce, "vector", (*runner).reduce},
	{mSgemm, "sgemm", (*runner).sgemm},
	{mAllocFree, "alloc", (*runner).allocFreeUnpooled},
	{mAllocFreePool, "alloc", (*runner).allocFree},
	{mCompileCold, "compile", (*runner).compileCold},
	{mCompileWarm, "compile", (*runner).compileWarm},
}

// metricNames returns the names of the metrics, in order.
func metricNames() []string {
	out := make([]string, len(metrics))
	for i, m := range metrics {
		out[i] = m.name
	}
	return out
}

// Seeds of the data each metric uses.
const (
	seedPinned   = 1
	seedPageable = 2
	seedD2D      = 3
	seedX        = 11
	seedY        = 12
	seedA        = 21
	seedB        = 22
)

// runner measures the metrics on one device.
type runner struct {
	ctx    context.Context
	dev    *gpu.Device
	stream *gpu.Stream
	timer  *timer
	sz     sizes
	block  int // threads per group of 1-D launches

	source gpu.Source  // the built-in kernels: kernels.Source()
	mod    *gpu.Module // source compiled, on first use
	modErr error
	stamp  string // the define that makes compile_cold's source unique

	// transfer buffers
	dev1, dev2 *gpu.Buffer
	pinned     *gpu.HostBuffer
	pageable   []byte

	x []float32 // host data of saxpy and reduce

	release []func() // closes the current group's resources
}

func newRunner(ctx context.Context, dev *gpu.Device, sz sizes) (*runner, error) {
	st, err := dev.NewStream()
	if err != nil {
		return nil, err
	}
	block := 256
	if m := dev.Info().MaxThreadsPerBlock; m > 0 {
		block = min(block, m)
	}
	return &runner{
		ctx: ctx, dev: dev, stream: st, sz: sz, block: block, source: kernels.Source(),
		timer: &timer{ctx: ctx, stream: st, clock: clockEvents},
	}, nil
}

// endGroup releases the resources of the metrics run so far.
func (r *runner) endGroup() {
	_ = r.stream.Synchronize(r.ctx)
	for i := len(r.release) - 1; i >= 0; i-- {
		r.release[i]()
	}
	r.release = nil
	r.dev1, r.dev2, r.pinned, r.pageable, r.x = nil, nil, nil, nil, nil
}

func (r *runner) close() {
	r.endGroup()
	if r.mod != nil {
		_ = r.mod.Close()
	}
	_ = r.stream.Close()
}

// measure runs one metric, turning a panic into an error so that the other
// metrics still run.
func (r *runner) measure(m metric) (v float64, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	v, err = m.run(r)
	if err == nil && (v <= 0 || math.IsInf(v, 0) || math.IsNaN(v)) {
		err = fmt.Errorf("measured %v", v)
	}
	return v, err
}

func (r *runner) alloc(size int64) (*gpu.Buffer, error) {
	b, err := r.dev.Alloc(size)
	if err != nil {
		return nil, err
	}
	r.release = append(r.release, func() { _ = b.Close() })
	return b, nil
}

func (r *runner) upload(x []float32) (*gpu.Buffer, error) {
	b, err := gpu.FromSlice(r.ctx, r.dev, x)
	if err != nil {
		return nil, err
	}
	r.release = append(r.release, func() { _ = b.Close() })
	return b, nil
}

// kernel returns a built-in kernel, compiling the built-ins on first use.
func (r *runner) kernel(op string) (*gpu.Kernel, error) {
	if r.mod == nil && r.modErr == nil {
		r.mod, r.modErr = r.dev.Compile(r.ctx, r.source)
		if r.modErr != nil {
			r.modErr = fmt.Errorf("compile the built-in kernels: %w", r.modErr)
		}
	}
	if r.modErr != nil {
		return nil, r.modErr
	}
	return r.mod.Kernel(op)
}

// gridStride is the grid of a streaming 1-D kernel on a GPU: one group of
// 256 threads per 1024 elements, one float4 per thread, the shape PyTorch
// launches its element-wise kernels with (the built-ins loop grid-stride, so
// any grid is correct; on the H200 this shape is 1.00-1.01x torch add_, a
// grid of 8 groups per SM 0.94x, one thread per element 0.93x). On the CPU it
// is grid1.
func (r *runner) gridStride(n int) gpu.Dim3 {
	if r.dev.Info().Type == backend.TypeCPU {
		return r.grid1(n)
	}
	return r.grid1((n + 3) / 4)
}

// grid1 is the grid of a 1-D launch over n elements: one thread per element,
// as the conformance suite launches, clamped to the device's largest grid
// (the built-ins loop grid-stride).
func (r *runner) grid1(n int) gpu.Dim3 {
	g := (n + r.block - 1) / r.block
	if m := r.dev.Info().MaxGridDim.X; m > 0 {
		g = min(g, m)
	}
	return gpu.D1(max(g, 1))
}

func gbps(bytes float64, d time.Duration) float64 { return bytes / d.Seconds() / 1e9 }

// --- transfers ---

// transferBuffers allocates, on first use, two device buffers, a pinned host
// buffer and a pageable slice of TransferBytes each.
func (r *runner) transferBuffers() error {
	if r.dev1 != nil {
		return nil
	}
	n := r.sz.TransferBytes
	var err error
	if r.dev1, err = r.alloc(n); err != nil {
		return err
	}
	if r.dev2, err = r.alloc(n); err != nil {
		return err
	}
	h, err := r.dev.AllocHost(n)
	if err != nil {
		return err
	}
	r.release = append(r.release, func() { _ = h.Close() })
	r.pinned = h
	r.pageable = make([]byte, n)
	return nil
}

// readWords reads the little-endian words at the given word indices of b.
func (r *runner) readWords(b *gpu.Buffer, idx []int) ([]uint32, error) {
	raw := make([]byte, 4*len(idx))
	for j, i := range idx {
		if err := r.stream.Read(raw[4*j:4*j+4], b, int64(4*i)); err != nil {
			return nil, err
		}
	}
	if err := r.stream.Synchronize(r.ctx); err != nil {
		return nil, err
	}
	out := make([]uint32, len(idx))
	for j := range out {
		out[j] = binary.LittleEndian.Uint32(raw[4*j:])
	}
	return out, nil
}

// checkPattern verifies sampled words of got (device words, or host bytes
// when b is nil) against the pattern seed.
func (r *runner) checkPattern(what string, b *gpu.Buffer, host []byte, seed uint32) error {
	idx := samples(int(r.sz.TransferBytes/4), 64)
	var got []uint32
	if b != nil {
		var err error
		if got, err = r.readWords(b, idx); err != nil {
			return err
		}
	} else {
		for _, i := range idx {
			got = append(got, binary.LittleEndian.Uint32(host[4*i:]))
		}
	}
	for j, i := range idx {
		if want := word(seed, i); got[j] != want {
			return fmt.Errorf("%s delivered wrong data: word %d is %#08x, want %#08x", what, i, got[j], want)
		}
	}
	return nil
}

// h2dPinned: WriteHost of the whole pinned buffer, timed on the device.
func (r *runner) h2dPinned() (float64, error) {
	if err := r.transferBuffers(); err != nil {
		return 0, err
	}
	n := r.sz.TransferBytes
	fillPattern(r.pinned.Bytes(), seedPinned)
	d, err := repeat(r.ctx, r.sz.Reps, func() (time.Duration, error) {
		return r.timer.device(func() error { return r.stream.WriteHost(r.dev1, 0, r.pinned, 0, n) })
	})
	if err != nil {
		return 0, err
	}
	return gbps(float64(n), d), r.checkPattern("H2D (pinned)", r.dev1, nil, seedPinned)
}

// d2hPinned: ReadHost into the whole pinned buffer, timed on the device.
func (r *runner) d2hPinned() (float64, error) {
	if err := r.transferBuffers(); err != nil {
		return 0, err
	}
	n := r.sz.TransferBytes
	fillPattern(r.pinned.Bytes(), seedPinned)
	if err := r.stream.WriteHost(r.dev1, 0, r.pinned, 0, n); err != nil {
		return 0, err
	}
	if err := r.stream.Synchronize(r.ctx); err != nil {
		return 0, err
	}
	clear(r.pinned.Bytes())
	d, err := repeat(r.ctx, r.sz.Reps, func() (time.Duration, error) {
		return r.timer.device(func() error { return r.stream.ReadHost(r.pinned, 0, r.dev1, 0, n) })
	})
	if err != nil {
		return 0, err
	}
	return gbps(float64(n), d), r.checkPattern("D2H (pinned)", nil, r.pinned.Bytes(), seedPinned)
}

// h2dPageable: Write of a Go slice, wall clock to the end of a Synchronize
// (the staging through pinned chunks happens on the host, so device events
// would not see all of it).
func (r *runner) h2dPageable() (float64, error) {
	if err := r.transferBuffers(); err != nil {
		return 0, err
	}
	fillPattern(r.pageable, seedPageable)
	d, err := repeat(r.ctx, r.sz.Reps, func() (time.Duration, error) {
		return r.timer.wall(func() error { return r.stream.Write(r.dev1, 0, r.pageable) })
	})
	if err != nil {
		return 0, err
	}
	return gbps(float64(len(r.pageable)), d), r.checkPattern("H2D (pageable)", r.dev1, nil, seedPageable)
}

// d2hPageable: Read into a Go slice, wall clock to the end of a Synchronize.
func (r *runner) d2hPageable() (float64, error) {
	if err := r.transferBuffers(); err != nil {
		return 0, err
	}
	fillPattern(r.pageable, seedPageable)
	if err := r.stream.Write(r.dev1, 0, r.pageable); err != nil {
		return 0, err
	}
	if err := r.stream.Synchronize(r.ctx); err != nil {
		return 0, err
	}
	clear(r.pageable)
	d, err := repeat(r.ctx, r.sz.Reps, func() (time.Duration, error) {
		return r.timer.wall(func() error { return r.stream.Read(r.pageable, r.dev1, 0) })
	})
	if err != nil {
		return 0, err
	}
	return gbps(float64(len(r.pageable)), d), r.checkPattern("D2H (pageable)", nil, r.pageable, seedPageable)
}

// d2d: Copy between two device buffers, timed on the device; bytes copied
// (not read plus written) per second.
func (r *runner) d2d() (float64, error) {
	if err := r.transferBuffers(); err != nil {
		return 0, err
	}
	n := r.sz.TransferBytes
	fillPattern(r.pinned.Bytes(), seedD2D)
	if err := r.stream.WriteHost(r.dev1, 0, r.pinned, 0, n); err != nil {
		return 0, err
	}
	if err := r.stream.Fill(r.dev2, 0, n, 0); err != nil {
		return 0, err
	}
	d, err := repeat(r.ctx, r.sz.Reps, func() (time.Duration, error) {
		return r.timer.device(func() error { return r.stream.Copy(r.dev2, 0, r.dev1, 0, n) })
	})
	if err != nil {
		return 0, err
	}
	return gbps(float64(n), d), r.checkPattern("D2D", r.dev2, nil, seedD2D)
}

// --- launch overhead ---

// launch: Launches back-to-back launches of fill over one element (grid 1,
// block 1), then one Synchronize; the wall time of the whole, divided by the
// count, is the cost of one launch from enqueue to done with the queue kept
// full. The median of Rounds rounds is reported.
func (r *runner) launch() (float64, error) {
	k, err := r.kernel(kernels.OpFill)
	if err != nil {
		return 0, err
	}
	y, err := r.alloc(4)
	if err != nil {
		return 0, err
	}
	const want = 1.5
	one := func() error { return r.stream.Launch(k, gpu.D1(1), gpu.D1(1), gpu.Buf(y), gpu.U32(1), gpu.F32(want)) }
	for range r.sz.Launches { // warm-up: a whole round, so that the GPU's clocks have risen
		if err := one(); err != nil {
			return 0, err
		}
	}
	if err := r.stream.Synchronize(r.ctx); err != nil {
		return 0, err
	}
	ds := make([]time.Duration, 0, r.sz.Rounds)
	for range r.sz.Rounds {
		start := time.Now()
		for range r.sz.Launches {
			if err := one(); err != nil {
				return 0, err
			}
		}
		if err := r.stream.Synchronize(r.ctx); err != nil {
			return 0, err
		}
		ds = append(ds, time.Since(start)/time.Duration(r.sz.Launches))
	}
	got, err := r.readFloats(y, []int{0})
	if err != nil {
		return 0, err
	}
	if got[0] != want {
		return 0, fmt.Errorf("fill wrote %v, want %v", got[0], want)
	}
	return float64(median(ds)) / float64(time.Microsecond), nil
}

// readFloats reads the float32s at the given element indices of b.
func (r *runner) readFloats(b *gpu.Buffer, idx []int) ([]float32, error) {
	w, err := r.readWords(b, idx)
	if err != nil {
		return nil, err
	}
	out := make([]float32, len(w))
	for i, v := range w {
		out[i] = math.Float32frombits(v)
	}
	return out, nil
}

// --- vector kernels ---

// hostX is the x data of saxpy and reduce: Elements values in [0, 1).
func (r *runner) hostX() []float32 {
	if r.x == nil {
		r.x = floats(seedX, r.sz.Elements, 0, 1)
	}
	return r.x
}

// saxpy: one axpy launch over Elements floats (y = a·x + y), timed on the
// device; 12 bytes per element (read x, read y, write y). The result is
// checked after all runs against kernels.RefAxpy applied as many times.
func (r *runner) saxpy() (float64, error) {
	k, err := r.kernel(kernels.OpAxpy)
	if err != nil {
		return 0, err
	}
	n := r.sz.Elements
	bx, err := r.upload(r.hostX())
	if err != nil {
		return 0, err
	}
	by, err := r.upload(floats(seedY, n, 0, 1))
	if err != nil {
		return 0, err
	}
	const a = 0.5
	grid, block := r.gridStride(n), gpu.D1(r.block)
	d, err := repeat(r.ctx, r.sz.Reps, func() (time.Duration, error) {
		return r.timer.device(func() error {
			return r.stream.Launch(k, grid, block, gpu.Buf(by), gpu.Buf(bx), gpu.U32(uint32(n)), gpu.F32(a))
		})
	})
	if err != nil {
		return 0, err
	}
	// Every run added a·x once: warm-up plus Reps.
	steps := r.sz.Reps + 1
	idx := samples(n, 256)
	got, err := r.readFloats(by, idx)
	if err != nil {
		return 0, err
	}
	want := make([]float32, len(idx))
	for j, i := range idx {
		y, x := value(seedY, i, 0, 1), r.x[i]
		for range steps {
			y = kernels.RefAxpy([]float32{y}, []float32{x}, a)[0]
		}
		want[j] = y
	}
	// Fused and unfused a·x+y differ by an ULP a step.
	if err := kernels.CompareF32(got, want, uint32(4*steps), 0); err != nil {
		return 0, fmt.Errorf("axpy result is wrong: %w", err)
	}
	return gbps(12*float64(n), d), nil
}

// reduce: the two-pass reduce_sum of kernels' documentation over Elements
// floats (at most 1024 groups, then one group over the partial sums), both
// passes timed together on the device; 4 bytes per element. The total is
// checked against kernels.RefReduceSum with kernels.ReductionTolerance.
func (r *runner) reduce() (float64, error) {
	k, err := r.kernel(kernels.OpReduceSum)
	if err != nil {
		return 0, err
	}
	n := r.sz.Elements
	x := r.hostX()
	bx, err := r.upload(x)
	if err != nil {
		return 0, err
	}
	grid := r.grid1(n)
	grid.X = min(grid.X, 1024)
	partial, err := r.alloc(4 * int64(grid.X))
	if err != nil {
		return 0, err
	}
	total, err := r.alloc(4)
	if err != nil {
		return 0, err
	}
	block := gpu.D1(r.block)
	d, err := repeat(r.ctx, r.sz.Reps, func() (time.Duration, error) {
		return r.timer.device(func() error {
			if err := r.stream.Launch(k, grid, block, gpu.Buf(partial), gpu.Buf(bx), gpu.U32(uint32(n))); err != nil {
				return err
			}
			return r.stream.Launch(k, gpu.D1(1), block, gpu.Buf(total), gpu.Buf(partial), gpu.U32(uint32(grid.X)))
		})
	})
	if err != nil {
		return 0, err
	}
	got, err := r.readFloats(total, []int{0})
	if err != nil {
		return 0, err
	}
	want := kernels.RefReduceSum(x)
	if tol := kernels.ReductionTolerance(n)*math.Abs(want) + 1e-6; !(math.Abs(float64(got[0])-want) <= tol) { // a NaN fails too
		return 0, fmt.Errorf("reduce_sum of %d elements is %v, want %v (tolerance %.3g)", n, got[0], want, tol)
	}
	return gbps(4*float64(n), d), nil
}

// --- sgemm ---

// sgemm: one sgemm C = A·B (alpha 1, beta 0) of SgemmN³ as package
// kernels/sgemm launches it (the device's matrix library where its streams
// answer Stream.MatMul, cuBLASLt in exact FP32 on CUDA; else the built-in
// kernel and geometry kernels.ChooseSgemm picks from the DeviceInfo), timed
// on the device; 2·n³ flops. Sampled elements of C are checked against
// kernels.RefSgemm of their row and column.
func (r *runner) sgemm() (float64, error) {
	if _, err := r.kernel(kernels.OpSgemm); err != nil { // the built-ins compiled: r.mod
		return 0, err
	}
	l, err := sgemm.New(r.dev, r.mod)
	if err != nil {
		return 0, err
	}
	r.release = append(r.release, func() { _ = l.Close() })
	m := r.sz.SgemmN
	a, b := floats(seedA, m*m, -1, 1), floats(seedB, m*m, -1, 1)
	ba, err := r.upload(a)
	if err != nil {
		return 0, err
	}
	bb, err := r.upload(b)
	if err != nil {
		return 0, err
	}
	bc, err := r.alloc(4 * int64(m) * int64(m))
	if err != nil {
		return 0, err
	}
	d, err := repeat(r.ctx, r.sz.SgemmReps, func() (time.Duration, error) {
		return r.timer.device(func() error { return l.Sgemm(r.stream, bc, ba, bb, m, m, m, 1, 0) })
	})
	if err != nil {
		return 0, err
	}
	idx := samples(m*m, 16)
	got, err := r.readFloats(bc, idx)
	if err != nil {
		return 0, err
	}
	// As the conformance suite: a dot product of m terms of either sign,
	// compared against the magnitude of its terms.
	tol := kernels.ReductionTolerance(m)*math.Sqrt(float64(m)) + 1e-6
	col := make([]float32, m)
	for j, e := range idx {
		row, c := e/m, e%m
		for p := range col {
			col[p] = b[p*m+c]
		}
		want := kernels.RefSgemm([]float32{0}, a[row*m:(row+1)*m], col, 1, 1, m, 1, 0)[0]
		if !(math.Abs(float64(got[j])-float64(want)) <= tol) { // a NaN fails too
			return 0, fmt.Errorf("sgemm C[%d,%d] is %v, want %v (tolerance %.3g)", row, c, got[j], want, tol)
		}
	}
	return 2 * math.Pow(float64(m), 3) / d.Seconds() / 1e12, nil
}

// --- allocation ---

// allocFree: AllocPairs pairs of Device.Alloc(AllocBytes) and Buffer.Close,
// wall clock per pair, median of Rounds rounds. After the warm-up the size
// class is in the device pool, so this is the pool's hit path.
func (r *runner) allocFree() (float64, error) {
	return r.timeAllocPairs(false)
}

// allocFreeUnpooled: the same pairs, each followed by Pool().Trim(), so every
// Alloc misses the pool and reaches the backend's allocator and every Close
// frees: the figure to compare with a raw cudaMalloc+cudaFree.
func (r *runner) allocFreeUnpooled() (float64, error) {
	return r.timeAllocPairs(true)
}

func (r *runner) timeAllocPairs(trim bool) (float64, error) {
	pair := func() error {
		b, err := r.dev.Alloc(r.sz.AllocBytes)
		if err != nil {
			return err
		}
		err = b.Close()
		if trim {
			r.dev.Pool().Trim()
		}
		return err
	}
	for range 16 {
		if err := pair(); err != nil {
			return 0, err
		}
	}
	ds := make([]time.Duration, 0, r.sz.Rounds)
	for range r.sz.Rounds {
		start := time.Now()
		for range r.sz.AllocPairs {
			if err := pair(); err != nil {
				return 0, err
			}
		}
		ds = append(ds, time.Since(start)/time.Duration(r.sz.AllocPairs))
	}
	return float64(median(ds)) / float64(time.Microsecond), nil
}

// --- compilation ---

// compileOnce compiles the run's built-in kernels (r.source) with the run's unique define and
// looks up one entry point; it returns the wall time of both.
func (r *runner) compileOnce() (time.Duration, error) {
	start := time.Now()
	mod, err := r.dev.Compile(r.ctx, r.source, gpu.Define("ANYGPU_BENCH_STAMP", r.stamp))
	if err != nil {
		return 0, err
	}
	defer mod.Close()
	if _, err := mod.Kernel(kernels.OpAxpy); err != nil {
		return 0, err
	}
	return time.Since(start), nil
}

// compileCold: the first compile of the built-in kernels with a define no
// earlier compile used, so neither an in-memory nor an on-disk kernel cache
// of anygpu's can answer (as peers.py stamps its source). NVRTC 13 keeps a
// cache of its own, keyed so that a define the code does not use still hits
// it: on a machine that has compiled the built-ins before this measures
// NVRTC's front end (tens of ms), the first time the whole compile (over a
// second on an H200 machine). On the CPU backend compiling is only checking
// the Go kernel table.
func (r *runner) compileCold() (float64, error) {
	r.stamp = fmt.Sprint(time.Now().UnixNano())
	d, err := r.compileOnce()
	if err != nil {
		return 0, err
	}
	return float64(d) / float64(time.Millisecond), nil
}

// compileWarm: the same compile again, median of Reps (the kernel caches may
// answer).
func (r *runner) compileWarm() (float64, error) {
	if r.stamp == "" { // compile_cold did not run: make the cache warm first
		r.stamp = fmt.Sprint(time.Now().UnixNano())
		if _, err := r.compileOnce(); err != nil {
			return 0, err
		}
	}
	ds := make([]time.Duration, 0, r.sz.Reps)
	for range r.sz.Reps {
		d, err := r.compileOnce()
		if err != nil {
			return 0, err
		}
		ds = append(ds, d)
	}
	return float64(median(ds)) / float64(time.Millisecond), nil
}
