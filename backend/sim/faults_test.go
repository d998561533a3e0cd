package sim_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	gpu "github.com/anygpu/gpu"
	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/backend/backendtest"
	"github.com/anygpu/gpu/backend/sim"
	"github.com/anygpu/gpu/errors"
)

// saxpy is a small Go kernel: y[i] = a*x[i] + y[i] for i < n.
var saxpy = gpu.Source{
	Name: "saxpy",
	Go: map[string]gpu.GoKernel{"saxpy": func(g gpu.Group, args []gpu.KernelArg) {
		n, a := args[0].Int(), args[1].F32()
		x, y := args[2].Float32s(), args[3].Float32s()
		lo, hi := g.Span(n)
		for i := lo; i < hi; i++ {
			y[i] = a*x[i] + y[i]
		}
	}},
	Params: map[string][]gpu.ArgKind{"saxpy": {gpu.KindI32, gpu.KindF32, gpu.KindBuffer, gpu.KindBuffer}},
}

// runSaxpy computes y = 2x + 1 over n elements on dev and checks the result.
func runSaxpy(t *testing.T, dev *gpu.Device, n int) {
	t.Helper()
	require.NoError(t, saxpyOn(dev, n))
}

// saxpyOn computes y = 2x + 1 over n elements on a new stream of dev and
// checks the result; it is safe to call from any goroutine.
func saxpyOn(dev *gpu.Device, n int) error {
	ctx := context.Background()
	xs, ys := make([]float32, n), make([]float32, n)
	for i := range xs {
		xs[i], ys[i] = float32(i), 1
	}
	s, err := dev.NewStream()
	if err != nil {
		return err
	}
	defer s.Close()
	x, err := gpu.AllocSlice[float32](dev, n)
	if err != nil {
		return err
	}
	defer x.Close()
	y, err := gpu.AllocSlice[float32](dev, n)
	if err != nil {
		return err
	}
	defer y.Close()
	if err := gpu.Upload(s, x, xs); err != nil {
		return err
	}
	if err := gpu.Upload(s, y, ys); err != nil {
		return err
	}
	mod, err := dev.Compile(ctx, saxpy)
	if err != nil {
		return err
	}
	defer mod.Close()
	k, err := mod.Kernel("saxpy")
	if err != nil {
		return err
	}
	const block = 256
	if err := s.Launch(k, gpu.D1((n+block-1)/block), gpu.D1(block), gpu.I32(int32(n)), gpu.F32(2), gpu.Buf(x), gpu.Buf(y)); err != nil {
		return err
	}
	return backendtest.CheckFloats(ctx, s, y, n, func(i int) float32 { return 2*float32(i) + 1 })
}

func TestKernelsCompute(t *testing.T) {
	for _, fake := range []string{"cuda:h100", "cuda:t4", "vulkan:rx7900xtx", "opengl:llvmpipe", "webgpu:lavapipe", "metal:m3-pro"} {
		t.Run(fake, func(t *testing.T) {
			cleanEnv(t)
			// Named: the default order passes over software renderers.
			name, _, _ := strings.Cut(fake, ":")
			dev := open(t, gpu.WithFake(fake), gpu.WithBackends(name), gpu.WithFallback(false))
			require.True(t, dev.Simulated())
			runSaxpy(t, dev, 10000)
			assert.Equal(t, int64(1), dev.Stats().KernelLaunches)
		})
	}
}

func TestSourceWithoutGo(t *testing.T) {
	cleanEnv(t)
	dev := open(t, gpu.WithFake("cuda:h100"))
	_, err := dev.Compile(context.Background(), gpu.Source{Name: "cu", CUDA: `extern "C" __global__ void k() {}`})
	require.Error(t, err)
	assert.True(t, errors.Is(err, errors.NotSupported), "%v", err)
	assert.Contains(t, err.Error(), "Go")
}

// nativeError returns the first *errors.Error of err's chain.
func nativeError(t *testing.T, err error) *errors.Error {
	t.Helper()
	var e *errors.Error
	require.True(t, errors.As(err, &e), "%v is not an *errors.Error", err)
	return e
}

// allocN allocates n buffers of size bytes, failing the test on an error.
func allocN(t *testing.T, dev *gpu.Device, n int, size int64) []*gpu.Buffer {
	t.Helper()
	var out []*gpu.Buffer
	for i := 0; i < n; i++ {
		b, err := dev.Alloc(size)
		require.NoError(t, err, "allocation %d", i+1)
		out = append(out, b)
	}
	return out
}

// TestOneShotOOMIsRetried: a one-shot fault fails the backend allocation
// once; the root package trims its pools and retries, and the retry succeeds.
func TestOneShotOOMIsRetried(t *testing.T) {
	tests := []struct {
		fake        string
		allocs      int
		wantRetries int64
	}{
		{"cuda:h100+oom@3", 2, 0},
		{"cuda:h100+oom@3", 3, 1},
		{"cuda:h100+oom@3", 6, 1},
		{"cuda:h100+oom%2", 4, 3}, // attempts 2, 4 and 6 fail; each retry (3, 5, 7) succeeds
		{"vulkan:rtx4090+oom@1", 1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.fake, func(t *testing.T) {
			cleanEnv(t)
			dev := open(t, gpu.WithFake(tt.fake))
			bufs := allocN(t, dev, tt.allocs, 1<<10)
			assert.Len(t, bufs, tt.allocs)
			st := dev.Stats()
			assert.Equal(t, tt.wantRetries, st.OOMRetries)
			assert.Equal(t, int64(tt.allocs), st.Allocations)
		})
	}
}

// TestMemoryLimitIsPersistent: a memory limit fails every allocation past it;
// the root's retry fails too, unless trimming its pool frees enough.
func TestMemoryLimitIsPersistent(t *testing.T) {
	cleanEnv(t)
	dev := open(t, gpu.WithFake("cuda:h100+memlimit=1MiB"))
	const half = 512 << 10
	bufs := allocN(t, dev, 2, half)

	_, err := dev.Alloc(half)
	require.Error(t, err)
	assert.True(t, errors.Is(err, errors.OutOfMemory), "%v", err)
	assert.True(t, errors.IsRetryable(err))
	e := nativeError(t, err)
	assert.Equal(t, "cuda", e.Backend)
	assert.Equal(t, "CUDA_ERROR_OUT_OF_MEMORY", e.Name)
	assert.Equal(t, int64(2), e.Code)
	assert.Contains(t, err.Error(), "memlimit=1MiB")
	assert.Equal(t, int64(1), dev.Stats().OOMRetries)

	free, _, err := dev.MemInfo()
	require.NoError(t, err)
	assert.Equal(t, int64(0), free)

	// A closed buffer stays in the pool, still counted against the limit,
	// until the retry's trim frees it.
	require.NoError(t, bufs[1].Close())
	trims := dev.Pool().Stats().Trims
	b, err := dev.Alloc(256 << 10)
	require.NoError(t, err)
	defer b.Close()
	assert.Equal(t, int64(2), dev.Stats().OOMRetries)
	assert.Greater(t, dev.Pool().Stats().Trims, trims)
	free, _, err = dev.MemInfo()
	require.NoError(t, err)
	assert.Equal(t, int64(256<<10), free)
}

// TestAllocationLargerThanThePreset: what the preset does not have fails with
// the backend's out-of-memory error, whatever the host has.
func TestAllocationLargerThanThePreset(t *testing.T) {
	cleanEnv(t)
	dev := open(t, gpu.WithFake("cuda:t4"))
	_, err := dev.Alloc(dev.Info().MemoryBytes + 1)
	require.Error(t, err)
	assert.True(t, errors.Is(err, errors.OutOfMemory), "%v", err)
	assert.Equal(t, "CUDA_ERROR_OUT_OF_MEMORY", nativeError(t, err).Name)
	assert.Contains(t, err.Error(), "host")
}

func TestCompileFault(t *testing.T) {
	tests := []struct {
		fake, backend string
		wantName      string
		wantLog       string
	}{
		{"cuda:h100+nocompile", "cuda", "NVRTC_ERROR_COMPILATION", `saxpy.cu(7): error: identifier "undefined_symbol" is undefined`},
		{"vulkan:rtx4090+nocompile", "vulkan", "", "has not been defined"},
		{"opengl:rtx4090+nocompile", "opengl", "", `error C1503: undefined variable "undefined_symbol"`},
		{"opengl:llvmpipe+nocompile", "opengl", "", "error: `undefined_symbol' undeclared"},
		{"webgpu:rtx4090+nocompile", "webgpu", "WGPUErrorType_Validation", "no definition in scope for identifier"},
		{"metal:m2-max+nocompile", "metal", "MTLLibraryErrorCompileFailure", "program_source:7:24: error: use of undeclared identifier"},
	}
	for _, tt := range tests {
		t.Run(tt.fake, func(t *testing.T) {
			cleanEnv(t)
			dev := open(t, gpu.WithFake(tt.fake), gpu.WithBackends(tt.backend))
			_, err := dev.Compile(context.Background(), saxpy)
			require.Error(t, err)
			assert.True(t, errors.Is(err, errors.Compilation), "%v", err)
			assert.False(t, errors.IsFatal(err))
			log := errors.LogOf(err)
			assert.NotEmpty(t, log)
			assert.Contains(t, log, tt.wantLog)
			assert.Equal(t, tt.wantName, nativeError(t, err).Name)
			assert.Contains(t, err.Error(), "nocompile")

			// A failed compile leaves the device usable.
			b, err := dev.Alloc(64)
			require.NoError(t, err)
			require.NoError(t, b.Close())
		})
	}
}

// TestDeviceLost: lose@2 lets two launches run; the third fails with a fatal
// DeviceLost error, and the device fails fast from then on.
func TestDeviceLost(t *testing.T) {
	cleanEnv(t)
	ctx := context.Background()
	dev := open(t, gpu.WithFake("cuda:h100+lose@2"))
	x, err := gpu.FromSlice(ctx, dev, []float32{1, 2, 3, 4})
	require.NoError(t, err)
	y, err := gpu.FromSlice(ctx, dev, []float32{1, 1, 1, 1})
	require.NoError(t, err)
	mod, err := dev.Compile(ctx, saxpy)
	require.NoError(t, err)
	k, err := mod.Kernel("saxpy")
	require.NoError(t, err)
	s := dev.DefaultStream()
	launch := func() error {
		return s.Launch(k, gpu.D1(1), gpu.D1(4), gpu.I32(4), gpu.F32(1), gpu.Buf(x), gpu.Buf(y))
	}

	require.NoError(t, launch())
	require.NoError(t, launch())
	require.NoError(t, s.Synchronize(ctx))
	got, err := gpu.ToSlice[float32](ctx, y)
	require.NoError(t, err)
	assert.Equal(t, []float32{3, 5, 7, 9}, got, "the two launches before the loss ran")

	err = launch()
	require.Error(t, err, "the third launch")
	assert.True(t, errors.IsFatal(err))
	assert.Equal(t, errors.DeviceLost, errors.CategoryOf(err))
	e := nativeError(t, err)
	assert.Equal(t, "CUDA_ERROR_LAUNCH_FAILED", e.Name)
	assert.Equal(t, int64(719), e.Code)
	assert.Contains(t, err.Error(), "lose@2")

	_, err = dev.Alloc(1 << 10)
	require.Error(t, err)
	assert.Equal(t, errors.DeviceLost, errors.CategoryOf(err))
	assert.True(t, errors.IsFatal(err))
	_, err = dev.Compile(ctx, saxpy)
	assert.Equal(t, errors.DeviceLost, errors.CategoryOf(err))
	assert.Equal(t, errors.DeviceLost, errors.CategoryOf(s.Synchronize(ctx)))
	assert.Equal(t, errors.DeviceLost, errors.CategoryOf(launch()))
	assert.Positive(t, dev.Errors().Count(errors.DeviceLost))
}

// openDriver opens ordinal of a driver from sim.NewDriver through the root
// package.
func openDriver(t *testing.T, drv backend.Driver, ordinal int) *gpu.Device {
	t.Helper()
	dev, err := gpu.OpenDriver(context.Background(), drv, ordinal)
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, dev.Close()) })
	return dev
}

func TestNativeErrorsPerBackend(t *testing.T) {
	tests := []struct {
		backend           string
		oomName, oomHost  string
		oomCode, hostCode int64
		lostName          string
	}{
		{"cuda", "CUDA_ERROR_OUT_OF_MEMORY", "CUDA_ERROR_OUT_OF_MEMORY", 2, 2, "CUDA_ERROR_LAUNCH_FAILED"},
		{"vulkan", "VK_ERROR_OUT_OF_DEVICE_MEMORY", "VK_ERROR_OUT_OF_HOST_MEMORY", -2, -1, "VK_ERROR_DEVICE_LOST"},
		{"opengl", "GL_OUT_OF_MEMORY", "GL_OUT_OF_MEMORY", 0x0505, 0x0505, "GL_CONTEXT_LOST"},
		{"webgpu", "WGPUErrorType_OutOfMemory", "WGPUErrorType_OutOfMemory", 3, 3, "WGPUDeviceLostReason_Unknown"},
		{"metal", "", "", 0, 0, "MTLCommandBufferErrorAccessRevoked"},
	}
	for _, tt := range tests {
		t.Run(tt.backend, func(t *testing.T) {
			drv, err := sim.NewDriver(tt.backend, nil, sim.Faults{FailAllocEvery: 1, LoseAfterLaunches: 1})
			require.NoError(t, err)
			dev := openDriver(t, drv, 0)
			assert.Equal(t, tt.backend, dev.Backend())

			_, err = dev.Alloc(1 << 10)
			require.Error(t, err)
			assert.True(t, errors.Is(err, errors.OutOfMemory), "%v", err)
			e := nativeError(t, err)
			assert.Equal(t, tt.backend, e.Backend)
			assert.Equal(t, tt.oomName, e.Name)
			assert.Equal(t, tt.oomCode, e.Code)
			assert.True(t, e.Retryable)

			_, err = dev.AllocHost(1 << 10)
			require.Error(t, err)
			e = nativeError(t, err)
			assert.Equal(t, tt.oomHost, e.Name)
			assert.Equal(t, tt.hostCode, e.Code)

			// A second device of the same driver, to lose: faults count per
			// opened device.
			drv, err = sim.NewDriver(tt.backend, nil, sim.Faults{LoseAfterLaunches: 1})
			require.NoError(t, err)
			dev = openDriver(t, drv, 0)
			mod, err := dev.Compile(context.Background(), nop)
			require.NoError(t, err)
			k, err := mod.Kernel("nop")
			require.NoError(t, err)
			s := dev.DefaultStream()
			require.NoError(t, s.Launch(k, gpu.D1(1), gpu.D1(1)))
			err = s.Launch(k, gpu.D1(1), gpu.D1(1))
			require.Error(t, err)
			e = nativeError(t, err)
			assert.Equal(t, tt.lostName, e.Name)
			assert.Equal(t, errors.DeviceLost, e.Category)
			assert.True(t, e.Fatal)
		})
	}
}

// nop is a kernel without arguments.
var nop = gpu.Source{
	Name:   "nop",
	Go:     map[string]gpu.GoKernel{"nop": func(gpu.Group, []gpu.KernelArg) {}},
	Params: map[string][]gpu.ArgKind{"nop": {}},
}

// TestLostDeviceFailsFast drives a lost device through the SPI directly:
// every operation fails with the backend's fatal device-lost error.
func TestLostDeviceFailsFast(t *testing.T) {
	ctx := context.Background()
	drv, err := sim.NewDriver("vulkan", []string{"rtx4090+lose@1"}, sim.Faults{})
	require.NoError(t, err)
	dev, err := drv.Open(ctx, 0)
	require.NoError(t, err)
	defer func() { assert.NoError(t, dev.Close()) }()

	buf, err := dev.Alloc(256)
	require.NoError(t, err)
	host, err := dev.AllocHost(256)
	require.NoError(t, err)
	s, err := dev.NewStream()
	require.NoError(t, err)
	defer func() { assert.NoError(t, s.Close()) }()
	ev, err := s.Record()
	require.NoError(t, err)
	mod, err := dev.Compile(ctx, saxpy, backend.CompileOptions{})
	require.NoError(t, err)
	k, err := mod.Kernel("saxpy")
	require.NoError(t, err)
	args := []backend.Arg{{Kind: backend.ArgI32, Bits: 0}, {Kind: backend.ArgF32}, {Kind: backend.ArgBuffer, Buffer: buf}, {Kind: backend.ArgBuffer, Buffer: buf}}
	grid, block := backend.Dim3{X: 1, Y: 1, Z: 1}, backend.Dim3{X: 64, Y: 1, Z: 1} // normalized, as the root package passes them
	require.NoError(t, s.Launch(k, grid, block, args), "launch 1")
	require.NoError(t, s.Synchronize(ctx))

	first := s.Launch(k, grid, block, args)
	require.Error(t, first, "launch 2 loses the device")

	hc, ok := s.(backend.HostCopier)
	require.True(t, ok)
	ops := map[string]func() error{
		"launch":      func() error { return s.Launch(k, grid, block, args) },
		"alloc":       func() error { _, err := dev.Alloc(64); return err },
		"alloc host":  func() error { _, err := dev.AllocHost(64); return err },
		"new stream":  func() error { _, err := dev.NewStream(); return err },
		"compile":     func() error { _, err := dev.Compile(ctx, saxpy, backend.CompileOptions{}); return err },
		"mem info":    func() error { _, _, err := dev.(backend.MemInfoer).MemInfo(); return err },
		"write":       func() error { return s.Write(buf, 0, make([]byte, 4)) },
		"read":        func() error { return s.Read(make([]byte, 4), buf, 0) },
		"copy":        func() error { return s.Copy(buf, 0, buf, 128, 64) },
		"fill":        func() error { return s.Fill(buf, 0, 64, 7) },
		"record":      func() error { _, err := s.Record(); return err },
		"wait":        func() error { return s.Wait(ev) },
		"synchronize": func() error { return s.Synchronize(ctx) },
		"write host":  func() error { return hc.WriteHost(buf, 0, host, 0, 64) },
		"read host":   func() error { return hc.ReadHost(host, 0, buf, 0, 64) },
	}
	for name, op := range ops {
		t.Run(name, func(t *testing.T) {
			err := op()
			require.Error(t, err)
			assert.True(t, errors.IsFatal(err), "%v", err)
			assert.Equal(t, errors.DeviceLost, errors.CategoryOf(err))
			e := nativeError(t, err)
			assert.Equal(t, "VK_ERROR_DEVICE_LOST", e.Name)
			assert.Equal(t, int64(-4), e.Code)
			assert.Equal(t, "vulkan", e.Backend)
		})
	}
	assert.NoError(t, buf.Close(), "buffers of a lost device still free")
	assert.NoError(t, host.Close())
}

// TestFailAllocAtCountsHostAllocations: oom@N counts Alloc and AllocHost
// together, and fails only the Nth.
func TestFailAllocAtCountsHostAllocations(t *testing.T) {
	drv, err := sim.NewDriver("cuda", []string{"h100"}, sim.Faults{FailAllocAt: 2})
	require.NoError(t, err)
	dev, err := drv.Open(context.Background(), 0)
	require.NoError(t, err)
	defer dev.Close()

	steps := []struct {
		host    bool
		wantErr bool
	}{{false, false}, {true, true}, {true, false}, {false, false}}
	for i, st := range steps {
		var err error
		if st.host {
			var b backend.HostBuffer
			if b, err = dev.AllocHost(4096); err == nil {
				defer b.Close()
			}
		} else {
			var b backend.Buffer
			if b, err = dev.Alloc(4096); err == nil {
				defer b.Close()
			}
		}
		if st.wantErr {
			require.Error(t, err, "allocation %d", i+1)
			assert.True(t, errors.Is(err, errors.OutOfMemory))
			assert.Contains(t, err.Error(), "oom@2")
		} else {
			require.NoError(t, err, "allocation %d", i+1)
		}
	}
}
