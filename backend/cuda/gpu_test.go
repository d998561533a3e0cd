package cuda

// Tests that need an NVIDIA GPU. They skip without one, unless
// ANYGPU_TEST_REQUIRE names cuda.

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/backend/backendtest"
	"github.com/anygpu/gpu/backend/cuda/internal/cu"
	"github.com/anygpu/gpu/errors"
	"github.com/anygpu/gpu/kernels"
	"github.com/anygpu/gpu/nvrtc"
	"github.com/anygpu/gpu/profiling"
	"github.com/stretchr/testify/require"
)

func requireGPU(t testing.TB) {
	t.Helper()
	backendtest.SkipUnlessAvailable(t, Driver{})
}

func openGPU(t testing.TB, opts ...gpu.Option) *gpu.Device {
	t.Helper()
	requireGPU(t)
	dev, err := gpu.OpenDriver(context.Background(), Driver{}, 0, opts...)
	require.NoError(t, err)
	t.Cleanup(func() { _ = dev.Close() })
	return dev
}

// openRaw opens the backend device directly, for tests of internals.
func openRaw(t testing.TB) *device {
	t.Helper()
	requireGPU(t)
	d, err := Driver{}.Open(context.Background(), 0)
	require.NoError(t, err)
	t.Cleanup(func() { _ = d.Close() })
	return d.(*device)
}

func TestDeviceInfoReal(t *testing.T) {
	dev := openGPU(t)
	i := dev.Info()
	t.Logf("%s: CC %d.%d, %d SMs @ %d MHz, %.1f GiB, %d-bit @ %d MHz = %.0f GB/s, L2 %d MiB, %d copy engines, ECC %v, UUID %s, PCI %s, driver %s, CUDA %s",
		i.Name, i.ComputeMajor, i.ComputeMinor, i.Units, i.ClockMHz, float64(i.MemoryBytes)/(1<<30), i.MemoryBusBits, i.MemoryClockMHz,
		i.MemoryBandwidthGBps, i.L2CacheBytes>>20, i.AsyncEngines, i.ECC, i.UUID, i.PCIBus, i.DriverVersion, i.APIVersion)
	t.Logf("features %v extra %v", i.Features, i.Extra)
	require.Regexp(t, `^GPU-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`, i.UUID)
	require.Regexp(t, `^[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-9]$`, i.PCIBus)
	require.Positive(t, i.ComputeMajor)
	require.Positive(t, i.MemoryBandwidthGBps)
	require.Positive(t, i.SharedMemPerUnit)
	require.Positive(t, i.RegistersPerUnit)
	require.Equal(t, 32, i.WarpSize)
	free, total, err := dev.MemInfo()
	require.NoError(t, err)
	require.Positive(t, free)
	require.LessOrEqual(t, free, total)
	t.Logf("memory: %d MiB free of %d MiB", free>>20, total>>20)
}

// TestHammer drives one device from 64 goroutines at once: their own
// streams and the shared default stream, small and staged transfers,
// kernels, events across streams.
func TestHammer(t *testing.T) {
	dev := openGPU(t)
	ctx := context.Background()
	mod, err := dev.Compile(ctx, kernels.Source())
	require.NoError(t, err)
	defer mod.Close()
	axpy, err := mod.Kernel(kernels.OpAxpy)
	require.NoError(t, err)
	const workers, rounds = 64, 12
	backendtest.RunConcurrently(t, workers, func(w int) error {
		if err := hammer(ctx, dev, axpy, w, rounds); err != nil {
			return fmt.Errorf("worker %d: %w", w, err)
		}
		return nil
	})
	require.NoError(t, dev.Synchronize(ctx))
	t.Logf("stats: %+v", dev.Stats())
}

func hammer(ctx context.Context, dev *gpu.Device, axpy *gpu.Kernel, w, rounds int) error {
	st := dev.DefaultStream()
	if w%4 != 0 {
		s, err := dev.NewStream()
		if err != nil {
			return err
		}
		defer s.Close()
		st = s
	}
	other, err := dev.NewStream()
	if err != nil {
		return err
	}
	defer other.Close()
	n := 4096 + 37*w
	if w%8 == 1 {
		n = (3 << 20) / 4 // staged transfers (> 1 MiB)
	}
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(w + i%3)
	}
	for r := 0; r < rounds; r++ {
		bx, err := gpu.AllocSlice[float32](dev, n)
		if err != nil {
			return err
		}
		by, err := gpu.AllocSlice[float32](dev, n)
		if err != nil {
			bx.Close()
			return err
		}
		err = func() error {
			defer bx.Close()
			defer by.Close()
			if err := gpu.Upload(st, bx, x); err != nil {
				return err
			}
			if err := st.Fill(by, 0, int64(4*n), 0); err != nil {
				return err
			}
			grid := gpu.D1((n + 255) / 256)
			for k := 0; k < 3; k++ {
				if err := st.Launch(axpy, grid, gpu.D1(256), gpu.Buf(by), gpu.Buf(bx), gpu.U32(uint32(n)), gpu.F32(1)); err != nil {
					return err
				}
			}
			ev, err := st.Record()
			if err != nil {
				return err
			}
			defer ev.Close()
			if err := other.Wait(ev); err != nil { // read on the other stream, after the kernels
				return err
			}
			if err := backendtest.CheckFloats(ctx, other, by, n, func(i int) float32 { return 3 * x[i] }); err != nil {
				return fmt.Errorf("round %d: %w", r, err)
			}
			if _, _, err := dev.MemInfo(); err != nil {
				return err
			}
			return st.Synchronize(ctx)
		}()
		if err != nil {
			return err
		}
	}
	return nil
}

// TestFaultRecovery: an out-of-bounds kernel is a fatal execution error;
// the device then fails fast with DeviceLost, and so does opening the GPU
// again in that process (CUDA keeps a sticky error for the process's
// lifetime). The fault happens in a child process; this process, and any
// new one, still works.
func TestFaultRecovery(t *testing.T) {
	if os.Getenv("ANYGPU_CUDA_FAULT_HELPER") != "" {
		faultHelper(t)
		return
	}
	requireGPU(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestFaultRecovery$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), "ANYGPU_CUDA_FAULT_HELPER=1")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "the faulting process:\n%s", out)
	for _, line := range regexp.MustCompile(`helper: .*`).FindAll(out, -1) {
		t.Logf("%s", line)
	}
	dev := openGPU(t)
	checkDevice(t, dev)
}

const faultKernel = `extern "C" __global__ void oob(float* x, unsigned n) { ((volatile float*)((unsigned long long)n << 2))[threadIdx.x] = 1.0f; }`

func faultHelper(t *testing.T) {
	ctx := context.Background()
	a, err := gpu.OpenDriver(ctx, Driver{}, 0)
	require.NoError(t, err)
	checkDevice(t, a)
	// The address comes from a run-time value and the store is volatile: a
	// store through a null-based pointer is undefined behaviour that NVVM
	// deletes (see TestNullStoreIsDeleted).
	src := gpu.Source{Name: "oob", CUDA: faultKernel, Params: map[string][]gpu.ArgKind{"oob": {gpu.KindBuffer, gpu.KindU32}}}
	mod, err := a.Compile(ctx, src)
	require.NoError(t, err)
	k, err := mod.Kernel("oob")
	require.NoError(t, err)
	x, err := a.Alloc(64)
	require.NoError(t, err)
	st := a.DefaultStream()
	require.NoError(t, st.Launch(k, gpu.D1(1), gpu.D1(32), gpu.Buf(x), gpu.U32(1<<20)))
	err = st.Synchronize(ctx)
	require.Error(t, err)
	fmt.Printf("helper: fault: %v\n", err)
	require.Equal(t, errors.Execution, errors.CategoryOf(err))
	require.True(t, errors.IsFatal(err))
	require.Contains(t, err.Error(), "CUDA_ERROR_ILLEGAL_ADDRESS")
	start := time.Now()
	_, err = a.Alloc(64)
	require.Equal(t, errors.DeviceLost, errors.CategoryOf(err), "%v", err)
	require.True(t, errors.IsFatal(err))
	require.Less(t, time.Since(start), 50*time.Millisecond, "fails fast")
	fmt.Printf("helper: then: %v\n", err)
	_, err = gpu.OpenDriver(ctx, Driver{}, 0)
	require.Equal(t, errors.DeviceLost, errors.CategoryOf(err), "%v", err)
	require.True(t, errors.IsFatal(err))
	require.Contains(t, err.Error(), "CUDA_ERROR_ILLEGAL_ADDRESS")
	fmt.Printf("helper: reopen in the same process: %v\n", err)
	require.NoError(t, a.Close())
}

// checkDevice runs a small workload on d.
func checkDevice(t *testing.T, d *gpu.Device) {
	t.Helper()
	ctx := context.Background()
	b, err := gpu.FromSlice(ctx, d, []float32{1, 2, 3})
	require.NoError(t, err)
	defer b.Close()
	m, err := d.Compile(ctx, kernels.Source())
	require.NoError(t, err)
	defer m.Close()
	sc, err := m.Kernel(kernels.OpScale)
	require.NoError(t, err)
	require.NoError(t, d.DefaultStream().Launch(sc, gpu.D1(1), gpu.D1(32), gpu.Buf(b), gpu.Buf(b), gpu.U32(3), gpu.F32(2)))
	got, err := gpu.ToSlice[float32](ctx, b)
	require.NoError(t, err)
	require.Equal(t, []float32{2, 4, 6}, got)
}

// occupancySource has kernels of many register counts (through
// --maxrregcount) and static shared memory sizes.
const occupancySource = `
#define HEAVY(NAME, SMEM) extern "C" __global__ void NAME(float* out, const float* in, unsigned n) { \
	__shared__ float sm[SMEM]; \
	float acc[48]; \
	unsigned t = blockIdx.x * blockDim.x + threadIdx.x; \
	_Pragma("unroll") for (int i = 0; i < 48; i++) acc[i] = in[(t + i * 977u) % n]; \
	_Pragma("unroll") for (int r = 0; r < 3; r++) { \
		_Pragma("unroll") for (int i = 0; i < 48; i++) acc[i] = fmaf(acc[i], acc[(i + r + 1) % 48], 1.0f); } \
	sm[threadIdx.x % SMEM] = acc[0]; __syncthreads(); \
	float s = sm[(threadIdx.x + 1) % SMEM]; \
	_Pragma("unroll") for (int i = 0; i < 48; i++) s += acc[i]; \
	out[t] = s; }
HEAVY(heavy_s1, 1)
HEAVY(heavy_s256, 256)
HEAVY(heavy_s2048, 2048)
HEAVY(heavy_s6000, 6000)
HEAVY(heavy_s11000, 11000)
extern "C" __global__ void light(float* out, const float* in, unsigned n) {
	unsigned t = blockIdx.x * blockDim.x + threadIdx.x; if (t < n) out[t] = in[t];
}
`

// TestOccupancy compares profiling.Occupancy with
// cuOccupancyMaxActiveBlocksPerMultiprocessor, and SuggestBlockSize with
// cuOccupancyMaxPotentialBlockSize, over kernels of different register and
// shared memory use, every block size from 32 to 1024, and several dynamic
// shared memory sizes, with and without the opt-in to more than 48 KiB.
func TestOccupancy(t *testing.T) {
	d := openRaw(t)
	limits := profiling.LimitsFrom(d.info)
	names := []string{"heavy_s1", "heavy_s256", "heavy_s2048", "heavy_s6000", "heavy_s11000", "light"}
	dyns := []int{0, 512, 4096, 16384, 40000}
	var compared, mismatches, skipped, suggested int
	regsSeen := map[int]bool{}
	for _, maxRegs := range []int{0, 24, 32, 40, 48, 64, 80, 96, 128, 168, 255} {
		var flags []string
		if maxRegs > 0 {
			flags = []string{"--maxrregcount=" + strconv.Itoa(maxRegs)}
		}
		m, err := d.Compile(context.Background(), backend.Source{Name: fmt.Sprintf("occ%d", maxRegs), CUDA: occupancySource},
			backend.CompileOptions{Flags: flags})
		require.NoError(t, err)
		for _, name := range names {
			kk, err := m.Kernel(name)
			require.NoError(t, err)
			k := kk.(*kernel)
			for _, optIn := range []bool{false, true} {
				ds := dyns
				if optIn {
					// Opt in to 100 KiB of dynamic shared memory.
					if err := d.do("opt in", func(*cu.Frame) cu.Result { return d.lib.FuncSetAttribute(k.fn, cu.FuncMaxDynamicSharedSize, 100<<10) }); err != nil {
						t.Logf("opt-in refused for %s: %v", name, err)
						continue
					}
					ds = []int{0, 30000, 60000, 100 << 10}
				}
				attrs, err := k.readAttributes()
				require.NoError(t, err)
				regsSeen[attrs.Registers] = true
				ka := profiling.AttrsFrom(attrs)
				for bs := 32; bs <= 1024; bs += 32 {
					for _, dyn := range ds {
						if dyn > attrs.MaxDynamicShared {
							skipped++
							continue
						}
						var want int
						err := d.do("occupancy", func(*cu.Frame) cu.Result {
							var r cu.Result
							want, r = d.lib.OccupancyMaxActiveBlocksPerMultiprocessor(k.fn, bs, dyn)
							return r
						})
						if err != nil {
							skipped++
							continue
						}
						got, err := profiling.Occupancy(limits, ka, bs, dyn)
						gotBlocks := got.BlocksPerSM
						if err != nil {
							gotBlocks = -1
						}
						compared++
						if gotBlocks != want {
							mismatches++
							if mismatches <= 20 {
								t.Errorf("%s (maxrreg %d, %d regs, %d B static, opt-in %v) block %d dyn %d: profiling says %d blocks/SM (%v), the driver %d",
									name, maxRegs, attrs.Registers, attrs.SharedMemBytes, optIn, bs, dyn, gotBlocks, err, want)
							}
						}
					}
				}
				for _, dyn := range []int{0, 4096, 16384} {
					if dyn > attrs.MaxDynamicShared {
						continue
					}
					var wantGrid, wantBlock int
					if err := d.do("suggest", func(*cu.Frame) cu.Result {
						var r cu.Result
						wantGrid, wantBlock, r = d.lib.OccupancyMaxPotentialBlockSize(k.fn, dyn, 0)
						return r
					}); err != nil {
						continue
					}
					grid, block, err := profiling.SuggestBlockSize(limits, ka, func(int) int { return dyn }, 0)
					require.NoError(t, err)
					suggested++
					require.Equal(t, [2]int{wantGrid, wantBlock}, [2]int{grid, block}, "SuggestBlockSize of %s (%d regs, opt-in %v) dyn %d", name, attrs.Registers, optIn, dyn)
				}
			}
		}
		require.NoError(t, m.Close())
	}
	t.Logf("occupancy: %d configurations compared, %d mismatches (%.2f%% match), %d skipped; SuggestBlockSize: %d compared; register counts seen %v",
		compared, mismatches, 100*float64(compared-mismatches)/float64(max(compared, 1)), skipped, suggested, sortedInts(regsSeen))
	require.GreaterOrEqual(t, compared, 2000)
	require.Zero(t, mismatches)
}

func sortedInts(m map[int]bool) []int {
	var out []int
	for k := range m {
		out = append(out, k)
	}
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

// TestCompileOptionsReal checks that CompileOptions reach NVRTC, that a
// PTX target works, and the launch checks against the driver's parameter
// information.
func TestCompileOptionsReal(t *testing.T) {
	dev := openGPU(t)
	ctx := context.Background()
	src := gpu.Source{Name: "opts", CUDA: `
#ifndef VALUE
#error VALUE is not defined
#endif
extern "C" __global__ void put(float* x, unsigned n) { if (threadIdx.x < n) x[threadIdx.x] = VALUE * sqrtf(2.0f); }
`}
	b, err := gpu.AllocSlice[float32](dev, 4)
	require.NoError(t, err)
	defer b.Close()
	for _, tc := range []struct {
		name string
		opts []gpu.CompileOption
	}{
		{"define", []gpu.CompileOption{gpu.Define("VALUE", "3.0f")}},
		{"fast math", []gpu.CompileOption{gpu.Define("VALUE", "3.0f"), gpu.FastMath()}},
		{"debug", []gpu.CompileOption{gpu.Define("VALUE", "3.0f"), gpu.DebugInfo()}},
		{"PTX for the driver to JIT", []gpu.CompileOption{gpu.Define("VALUE", "3.0f"), gpu.Arch("compute_" + strconv.Itoa(dev.Info().ComputeMajor*10+dev.Info().ComputeMinor))}},
		{"flags", []gpu.CompileOption{gpu.Define("VALUE", "3.0f"), gpu.CompilerFlags("--maxrregcount=32", "-std=c++17")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := dev.Compile(ctx, src, tc.opts...)
			require.NoError(t, err)
			defer m.Close()
			k, err := m.Kernel("put")
			require.NoError(t, err)
			a, err := k.Attributes()
			require.NoError(t, err)
			require.Positive(t, a.Registers)
			require.NoError(t, dev.DefaultStream().Launch(k, gpu.D1(1), gpu.D1(32), gpu.Buf(b), gpu.U32(4)))
			got, err := gpu.ToSlice[float32](ctx, b)
			require.NoError(t, err)
			require.InDelta(t, 3*math.Sqrt2, got[0], 1e-5)
		})
	}
	_, err = dev.Compile(ctx, src)
	require.Equal(t, errors.Compilation, errors.CategoryOf(err))
	require.Contains(t, errors.LogOf(err), "VALUE is not defined")

	m, err := dev.Compile(ctx, src, gpu.Define("VALUE", "1"))
	require.NoError(t, err)
	defer m.Close()
	_, err = m.Kernel("nope")
	require.Equal(t, errors.InvalidArgument, errors.CategoryOf(err))
	k, err := m.Kernel("put")
	require.NoError(t, err)
	// No Params in the Source: the driver's parameter information catches a
	// wrong argument list (CUDA 12.4+).
	err = dev.DefaultStream().Launch(k, gpu.D1(1), gpu.D1(1), gpu.Buf(b))
	if d, _ := loadDriver(); d != nil && d.lib.Has(cu.SymFuncGetParamInfo) {
		require.Equal(t, errors.InvalidArgument, errors.CategoryOf(err), "%v", err)
		err = dev.DefaultStream().Launch(k, gpu.D1(1), gpu.D1(1), gpu.Buf(b), gpu.F64(1))
		require.Equal(t, errors.InvalidArgument, errors.CategoryOf(err), "8 bytes for a 4-byte parameter is refused too")
	} else {
		t.Log("the driver has no cuFuncGetParamInfo: argument lists are not checked")
	}
	require.NoError(t, dev.Synchronize(ctx))
}

// TestBuiltinAttributes logs the resources of the built-in kernels; sgemm
// must not spill.
func TestBuiltinAttributes(t *testing.T) {
	p := profiling.New()
	dev := openGPU(t, gpu.WithProfiler(p))
	m, err := dev.Compile(context.Background(), kernels.Source())
	require.NoError(t, err)
	defer m.Close()
	for _, op := range kernels.Ops() {
		k, err := m.Kernel(op)
		require.NoError(t, err)
		a, err := k.Attributes()
		require.NoError(t, err)
		t.Logf("%-10s %3d registers, %5d B shared, %3d B local, max %4d threads", op, a.Registers, a.SharedMemBytes, a.LocalMemBytes, a.MaxThreadsPerBlock)
		if op == kernels.OpSgemm {
			require.Zero(t, a.LocalMemBytes, "sgemm spills registers")
			require.GreaterOrEqual(t, a.MaxThreadsPerBlock, 256)
		}
	}
	// The profiler reports each launch's theoretical occupancy.
	const n = 1 << 16
	x, err := gpu.AllocSlice[float32](dev, n)
	require.NoError(t, err)
	defer x.Close()
	axpy, _ := m.Kernel(kernels.OpAxpy)
	sg, _ := m.Kernel(kernels.OpSgemm)
	st := dev.DefaultStream()
	require.NoError(t, st.Launch(axpy, gpu.D1(n/256), gpu.D1(256), gpu.Buf(x), gpu.Buf(x), gpu.U32(n), gpu.F32(1)))
	require.NoError(t, st.Launch(sg, gpu.D2(16, 16), gpu.D2(16, 16), gpu.Buf(x), gpu.Buf(x), gpu.Buf(x), gpu.U32(128), gpu.U32(128), gpu.U32(0), gpu.F32(1), gpu.F32(0)))
	require.NoError(t, st.Synchronize(context.Background()))
	seen := 0
	for _, r := range dev.Profiler().Records() {
		if r.Kind == profiling.KindKernel {
			t.Logf("profiled %s: occupancy %.0f%%", r.Name, 100*r.Occupancy)
			require.Positive(t, r.Occupancy, r.Name)
			seen++
		}
	}
	require.Equal(t, 2, seen)
}

// TestKernelCacheNewProcess compiles the built-in kernels in two new
// processes sharing a cache directory: the first compiles, the second hits.
func TestKernelCacheNewProcess(t *testing.T) {
	if os.Getenv("ANYGPU_CUDA_COMPILE_HELPER") != "" {
		compileHelper(t)
		return
	}
	requireGPU(t)
	dir := t.TempDir()
	run := func() (total, compile time.Duration, cached bool) {
		cmd := exec.Command(os.Args[0], "-test.run=^TestKernelCacheNewProcess$", "-test.v", "-test.count=1")
		cmd.Env = append(os.Environ(), "ANYGPU_CUDA_COMPILE_HELPER=1", "ANYGPU_CACHE_DIR="+dir)
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
		m := regexp.MustCompile(`helper: total=(\d+) compile=(\d+) cached=(\w+)`).FindSubmatch(out)
		require.NotNil(t, m, "%s", out)
		t.Logf("%s", regexp.MustCompile(`helper: .*`).Find(out))
		a, _ := strconv.ParseInt(string(m[1]), 10, 64)
		b, _ := strconv.ParseInt(string(m[2]), 10, 64)
		return time.Duration(a), time.Duration(b), string(m[3]) == "true"
	}
	coldTotal, coldCompile, c1 := run()
	warmTotal, warmCompile, c2 := run()
	require.False(t, c1)
	require.True(t, c2)
	t.Logf("built-in kernels in a new process: cold %v (NVRTC %v), warm %v (cache read %v): %.0fx faster (%.0fx compile vs cache read)",
		coldTotal, coldCompile, warmTotal, warmCompile, float64(coldTotal)/float64(warmTotal), float64(coldCompile)/float64(max(warmCompile, 1)))
}

func compileHelper(t *testing.T) {
	d, err := Driver{}.Open(context.Background(), 0)
	require.NoError(t, err)
	defer d.Close()
	dev := d.(*device)
	src := kernels.Source()
	start := time.Now()
	res, err := compileCUDA(context.Background(), src, backend.CompileOptions{}, nil, dev.arch, dev.lib.Version)
	require.NoError(t, err)
	compiled := time.Since(start)
	m, err := dev.Compile(context.Background(), src, backend.CompileOptions{}) // a memory hit now: measures the module load
	require.NoError(t, err)
	_, err = m.Kernel(kernels.OpAxpy)
	require.NoError(t, err)
	total := time.Since(start)
	fmt.Printf("helper: total=%d compile=%d cached=%v (NVRTC loaded %v, compile or cache lookup %v, module load %v, CUBIN %d bytes)\n",
		int64(total), int64(res.Duration), res.Cached, nvrtc.Loaded(), compiled, total-compiled, len(res.CUBIN))
}

// TestCopyPeer copies between two Devices: of one GPU (a device copy), and
// of two GPUs when the machine has them.
func TestCopyPeer(t *testing.T) {
	a := openGPU(t)
	devs, err := Driver{}.Probe(context.Background())
	require.NoError(t, err)
	ordinal := 0
	if len(devs) > 1 {
		ordinal = 1
	}
	b, err := gpu.OpenDriver(context.Background(), Driver{}, ordinal)
	require.NoError(t, err)
	defer b.Close()
	ctx := context.Background()
	data := bytes.Repeat([]byte{1, 2, 3, 4, 5}, 1<<18)
	src, err := b.Alloc(int64(len(data)))
	require.NoError(t, err)
	defer src.Close()
	require.NoError(t, b.DefaultStream().Write(src, 0, data))
	require.NoError(t, b.DefaultStream().Synchronize(ctx))
	dst, err := a.Alloc(int64(len(data)))
	require.NoError(t, err)
	defer dst.Close()
	require.NoError(t, a.DefaultStream().Copy(dst, 0, src, 0, int64(len(data))))
	got := make([]byte, len(data))
	_, err = dst.ReadAt(got, 0)
	require.NoError(t, err)
	require.True(t, bytes.Equal(data, got))
	require.Zero(t, a.Stats().Fallbacks, "a peer copy, not staged through the host")
	t.Logf("peer copy from device %d to device 0 (%d devices)", ordinal, len(devs))
}

// TestPageableSizes round-trips sizes around the staging chunk boundaries.
func TestPageableSizes(t *testing.T) {
	dev := openGPU(t)
	ctx := context.Background()
	for _, n := range []int{directMax, directMax + 1, stageChunk - 1, stageChunk, stageChunk + 1, 2*stageChunk + 3, 5*stageChunk + 7} {
		data := make([]byte, n)
		for i := range data {
			data[i] = byte(i*31 + i>>13)
		}
		b, err := dev.Alloc(int64(n) + 8)
		require.NoError(t, err)
		st := dev.DefaultStream()
		require.NoError(t, st.Write(b, 3, data))
		clear(data[:n/2]) // Write's source is reusable at once
		got := make([]byte, n)
		require.NoError(t, st.Read(got, b, 3))
		require.NoError(t, st.Synchronize(ctx))
		for i := 0; i < n/2; i++ {
			data[i] = byte(i*31 + i>>13)
		}
		require.True(t, bytes.Equal(data, got), "n=%d", n)
		require.NoError(t, b.Close())
	}
}

func TestCUDADialectSignatures(t *testing.T) {
	// The CUDA dialect declares every op with Params' arity.
	src := kernels.Source().CUDA
	for op, kinds := range kernels.Params {
		re := regexp.MustCompile(`extern "C" __global__ void (?:__launch_bounds__\(\d+\) )?` + op + `\(([^)]*)\)`)
		m := re.FindStringSubmatch(src)
		require.NotNil(t, m, "op %s", op)
		params := strings.Split(m[1], ",")
		require.Len(t, params, len(kinds), "op %s: %s", op, m[1])
		for i, k := range kinds {
			p := strings.TrimSpace(params[i])
			switch k {
			case backend.ArgBuffer:
				require.Contains(t, p, "float*", "op %s param %d", op, i)
			case backend.ArgU32:
				require.True(t, strings.HasPrefix(p, "unsigned "), "op %s param %d: %s", op, i, p)
			case backend.ArgF32:
				require.True(t, strings.HasPrefix(p, "float "), "op %s param %d: %s", op, i, p)
			}
		}
	}
}

// TestNullStoreIsDeleted shows why the conformance suite's CUDA fault kernel
// does not fault: NVVM treats a store through a null-based pointer as
// undefined behaviour and removes it, while the same store through an
// address computed from a parameter stays.
func TestNullStoreIsDeleted(t *testing.T) {
	requireGPU(t)
	d := openRaw(t)
	for _, tc := range []struct{ name, src string }{
		{"backendtest's", `extern "C" __global__ void fault(float* x, unsigned n) { ((float*)0)[threadIdx.x + n] = 1.0f; }`},
		{"proposed", strings.ReplaceAll(faultKernel, "oob", "fault")},
	} {
		r, err := compileCUDA(context.Background(), backend.Source{Name: "fault", CUDA: tc.src}, backend.CompileOptions{}, nil, d.arch, d.lib.Version)
		require.NoError(t, err)
		body := r.PTX[strings.Index(r.PTX, ".entry"):]
		t.Logf("%s fault kernel: stores in its PTX: %d\n%s", tc.name, strings.Count(body, "st."), body)
	}
}

// TestCompileTiming splits a cold compile of the built-in kernels (a new
// define each time, so no cache answers) into NVRTC and module load, with a
// context that cannot end (compiled inline) and one that can (compiled on
// another goroutine, so that Compile can return when it ends).
func TestCompileTiming(t *testing.T) {
	d := openRaw(t)
	for i := 0; i < 4; i++ {
		ctx := context.Background()
		how := "inline"
		if i >= 2 {
			c, cancel := context.WithCancel(ctx)
			defer cancel()
			ctx, how = c, "goroutine"
		}
		opts := backend.CompileOptions{Defines: map[string]string{"ANYGPU_TIMING_STAMP": strconv.FormatInt(time.Now().UnixNano(), 10)}}
		start := time.Now()
		r, err := compileCUDA(ctx, kernels.Source(), opts, nil, d.arch, d.lib.Version)
		require.NoError(t, err)
		compiled := time.Since(start)
		m, err := d.Compile(ctx, kernels.Source(), opts)
		require.NoError(t, err)
		total := time.Since(start)
		require.NoError(t, m.Close())
		t.Logf("cold compile %d (%s): NVRTC %v (cached %v), then Compile (cache hit + module load) %v; CUBIN %d bytes, PTX %d bytes",
			i, how, compiled, r.Cached, total-compiled, len(r.CUBIN), len(r.PTX))
	}
}
