package cuda

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"unsafe"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/backend/cuda/internal/cu"
	"github.com/anygpu/gpu/backend/cuda/internal/fakecuda"
	"github.com/anygpu/gpu/errors"
	"github.com/stretchr/testify/require"
)

// TestProbeWithoutDriver points ANYGPU_CUDA_LIBRARY at things that are not
// a CUDA driver: Probe and Open report Unavailable with a reason and a hint,
// and the root package's report shows it.
func TestProbeWithoutDriver(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("Linux library names")
	}
	dir := t.TempDir()
	text := filepath.Join(dir, "libcuda.so.1")
	require.NoError(t, os.WriteFile(text, []byte("#!/bin/sh\n"), 0o644))
	for _, tc := range []struct{ name, path, want string }{
		{"no library", filepath.Join(dir, "missing", "libcuda.so.1"), "missing"},
		{"empty directory", dir, dir},
		{"not a library", text, text},
		{"a library lacking the symbols (libc)", "libc.so.6", "lacks cuInit"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(EnvLibrary, tc.path)
			ctx := context.Background()
			devs, err := Driver{}.Probe(ctx)
			require.Empty(t, devs)
			require.Error(t, err)
			require.Equal(t, errors.Unavailable, errors.CategoryOf(err))
			require.Contains(t, err.Error(), tc.want)
			require.NotEmpty(t, errors.Hint(err))
			_, err = Driver{}.Open(ctx, 0)
			require.Equal(t, errors.Unavailable, errors.CategoryOf(err))

			st, ok := gpu.Probe(ctx).Backend(Name)
			require.True(t, ok)
			require.Equal(t, gpu.Unavailable, st.State)
			require.Contains(t, st.Reason, tc.want)
			require.NotEmpty(t, st.Hint)
		})
	}
}

// fakeDriver builds the stand-in libcuda (skipping without a C compiler) and
// returns a copy of it under a new name: each copy is loaded afresh.
func fakeDriver(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	path, err := fakecuda.Build(dir)
	if err != nil {
		t.Skipf("cannot build the fake driver: %v", err)
	}
	return path
}

func TestProbeFakeDriver(t *testing.T) {
	ctx := context.Background()
	t.Run("stub library", func(t *testing.T) {
		t.Setenv(EnvLibrary, fakeDriver(t))
		t.Setenv("FAKECUDA_INIT", "34")
		_, err := Driver{}.Probe(ctx)
		require.Equal(t, errors.Unavailable, errors.CategoryOf(err))
		require.Contains(t, err.Error(), "CUDA_ERROR_STUB_LIBRARY")
		require.Contains(t, errors.Hint(err), "stub")
	})
	t.Run("cuInit fails: no device", func(t *testing.T) {
		t.Setenv(EnvLibrary, fakeDriver(t))
		t.Setenv("FAKECUDA_INIT", "100")
		_, err := Driver{}.Probe(ctx)
		require.Equal(t, errors.Unavailable, errors.CategoryOf(err))
		require.Contains(t, err.Error(), "CUDA_ERROR_NO_DEVICE")
	})
	t.Run("cuInit fails: not initialized", func(t *testing.T) {
		t.Setenv(EnvLibrary, fakeDriver(t))
		t.Setenv("FAKECUDA_INIT", "3")
		_, err := Driver{}.Probe(ctx)
		require.Equal(t, errors.Unavailable, errors.CategoryOf(err), "%v", err)
		require.Contains(t, err.Error(), "CUDA_ERROR_NOT_INITIALIZED")
		require.False(t, errors.IsFatal(err))
	})
	t.Run("cuInit fails: deinitialized (fatal code)", func(t *testing.T) {
		t.Setenv(EnvLibrary, fakeDriver(t))
		t.Setenv("FAKECUDA_INIT", "4")
		_, err := Driver{}.Probe(ctx)
		require.Equal(t, errors.Unavailable, errors.CategoryOf(err), "%v", err)
		require.False(t, errors.IsFatal(err), "a probe error never marks a device lost")
	})
	t.Run("too old a driver", func(t *testing.T) {
		t.Setenv(EnvLibrary, fakeDriver(t))
		t.Setenv("FAKECUDA_VERSION", "10020")
		_, err := Driver{}.Probe(ctx)
		require.Equal(t, errors.Unavailable, errors.CategoryOf(err))
		require.Contains(t, err.Error(), "10.2")
		require.Contains(t, errors.Hint(err), "update")
	})
	t.Run("no devices", func(t *testing.T) {
		t.Setenv(EnvLibrary, fakeDriver(t))
		t.Setenv("FAKECUDA_COUNT", "0")
		devs, err := Driver{}.Probe(ctx)
		require.NoError(t, err)
		require.Empty(t, devs)
		st, _ := gpu.Probe(ctx).Backend(Name)
		require.Equal(t, gpu.NoDevices, st.State)
	})
	t.Run("one device", func(t *testing.T) {
		t.Setenv(EnvLibrary, fakeDriver(t))
		devs, err := Driver{}.Probe(ctx)
		require.NoError(t, err)
		require.Len(t, devs, 1)
		d := devs[0]
		require.Equal(t, "Fake H200", d.Name)
		require.Equal(t, 132, d.Units)
		require.Equal(t, 9, d.ComputeMajor)
		require.Equal(t, "0000:3B:00.0", d.PCIBus)
		require.Equal(t, "GPU-00112233-4455-6677-8899-aabbccddeeff", d.UUID)
		require.Equal(t, "13.0", d.APIVersion)
		dev, err := Driver{}.Open(ctx, 0)
		require.NoError(t, err)
		require.NoError(t, dev.Close())
		// A context the driver will not give: a clean error.
		t.Setenv("FAKECUDA_RETAIN", "801")
		_, err = Driver{}.Open(ctx, 0)
		require.Error(t, err)
		require.Equal(t, errors.NotSupported, errors.CategoryOf(err), "%v", err)
		_, err = Driver{}.Open(ctx, 1)
		require.Equal(t, errors.InvalidArgument, errors.CategoryOf(err))
	})
}

func TestBuildInfo(t *testing.T) {
	info := buildInfo(0, rawInfo{
		name: "NVIDIA H200", totalMem: 150109880320, driverAPI: 13000, kernelDriver: "580.159.04",
		pci: "0000:3B:00.0", hasUUID: true, uuid: [16]byte{0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12},
		attrs: fakecuda.Attributes,
	})
	require.Equal(t, backend.DeviceInfo{
		Backend: "cuda", Ordinal: 0, Name: "NVIDIA H200", Vendor: "NVIDIA", Type: backend.TypeDiscreteGPU,
		UUID: "GPU-deadbeef-0102-0304-0506-0708090a0b0c", PCIBus: "0000:3B:00.0",
		DriverVersion: "580.159.04", APIVersion: "13.0", ComputeMajor: 9, ComputeMinor: 0,
		Units: 132, ClockMHz: 1980, MemoryBytes: 150109880320, MemoryClockMHz: 3201, MemoryBusBits: 6016,
		MemoryBandwidthGBps: 2 * 3201e6 * 6016 / 8 / 1e9, L2CacheBytes: 62914560,
		MaxThreadsPerBlock: 1024, MaxBlockDim: backend.Dim3{X: 1024, Y: 1024, Z: 64},
		MaxGridDim: backend.Dim3{X: 2147483647, Y: 65535, Z: 65535}, MaxThreadsPerUnit: 2048, MaxBlocksPerUnit: 32,
		WarpSize: 32, RegistersPerBlock: 65536, RegistersPerUnit: 65536, SharedMemPerBlock: 49152,
		SharedMemPerBlockOptin: 232448, SharedMemPerUnit: 233472, ReservedSharedPerBlock: 1024,
		AsyncEngines: 3, ECC: true, UnifiedAddressing: true, ConcurrentKernels: true,
		FP16: true, BF16: true, FP8: true, FP64: true, TimestampPeriodNs: 500,
		Features: []string{"sm_90", "managed_memory", "cooperative_launch", "cluster_launch", "memory_pools", "map_host_memory"},
		Extra: map[string]string{"compute_capability": "9.0", "compute_mode": "default", "total_constant_memory": "65536",
			"max_persisting_l2": "0", "kernel_exec_timeout": "false", "multi_gpu_board": "false", "tcc_driver": "false",
			"cuda_driver_api": "13.0"},
	}, info)
	require.InDelta(t, 4814, info.MemoryBandwidthGBps, 1, "2 × 3201 MHz × 6016 bits / 8")

	// Data types by compute capability.
	for _, tc := range []struct {
		major, minor        int
		fp16, bf16, fp8, ig bool
	}{{5, 2, false, false, false, false}, {6, 0, true, false, false, false}, {7, 5, true, false, false, false},
		{8, 0, true, true, false, false}, {8, 7, true, true, false, true}, {8, 9, true, true, true, false}, {10, 0, true, true, true, false}} {
		attrs := map[cu.Attribute]int{cu.AttrComputeCapabilityMajor: tc.major, cu.AttrComputeCapabilityMinor: tc.minor}
		if tc.ig {
			attrs[cu.AttrIntegrated] = 1
		}
		i := buildInfo(1, rawInfo{attrs: attrs})
		require.Equal(t, tc.fp16, i.FP16, "%d.%d fp16", tc.major, tc.minor)
		require.Equal(t, tc.bf16, i.BF16, "%d.%d bf16", tc.major, tc.minor)
		require.Equal(t, tc.fp8, i.FP8, "%d.%d fp8", tc.major, tc.minor)
		if tc.ig {
			require.Equal(t, backend.TypeIntegratedGPU, i.Type)
			require.True(t, i.UnifiedMemory)
		}
		require.Empty(t, i.UUID)
	}
}

func TestKernelDriverVersion(t *testing.T) {
	require.Equal(t, "580.159.04", parseKernelDriverVersion("NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.159.04  Tue Oct 28 2025\nGCC version: gcc 12\n"))
	require.Equal(t, "535.104.05", parseKernelDriverVersion("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  535.104.05  Release Build\n"))
	require.Equal(t, "", parseKernelDriverVersion(""))
	require.Equal(t, "13.0", versionString(13000))
	require.Equal(t, "12.8", versionString(12080))
	require.Equal(t, "11.4", versionString(11040))
}

// TestPackArgs checks the portable ABI on CUDA: each parameter is passed as
// a pointer to its value in the stream's parameter block.
func TestPackArgs(t *testing.T) {
	// The block must be on the heap (in production it is part of a stream):
	// its pointers are addresses, which a moving stack would invalidate.
	p := new(paramBlock)
	heapSink = p
	p.init()
	k := &kernel{name: "k"}
	b := &buffer{ptr: 0x7f00_1234_5600}
	args := []backend.Arg{
		{Kind: backend.ArgBuffer, Buffer: b},
		{Kind: backend.ArgU32, Bits: 1000},
		{Kind: backend.ArgF32, Bits: uint64(0x3fc00000)},
		{Kind: backend.ArgI32, Bits: uint64(uint32(0xffffffff))},
		{Kind: backend.ArgF64, Bits: 0x400921fb54442d18},
		{Kind: backend.ArgI64, Bits: uint64(1) << 40},
		{Kind: backend.ArgU64, Bits: 7},
	}
	require.NoError(t, p.pack(args, k))
	at := func(i int) unsafe.Pointer { return *(*unsafe.Pointer)(unsafe.Pointer(&p.ptrs[i])) }
	require.Equal(t, uint64(0x7f00_1234_5600), *(*uint64)(at(0)), "a buffer is its CUdeviceptr")
	require.Equal(t, uint32(1000), *(*uint32)(at(1)))
	require.Equal(t, float32(1.5), *(*float32)(at(2)))
	require.Equal(t, int32(-1), *(*int32)(at(3)))
	require.Equal(t, 3.141592653589793, *(*float64)(at(4)))
	require.Equal(t, int64(1)<<40, *(*int64)(at(5)))
	require.Equal(t, uint64(7), *(*uint64)(at(6)))
	for i := range args {
		require.Equal(t, uintptr(unsafe.Pointer(&p.vals[i])), p.ptrs[i], "parameter %d points into the block", i)
	}

	// With parameter sizes from the driver, wrong counts and sizes are refused.
	k.params = []int{8, 4, 4, 4, 8, 8, 8}
	require.NoError(t, p.pack(args, k))
	err := p.pack(args[:3], k)
	require.Equal(t, errors.InvalidArgument, errors.CategoryOf(err))
	require.Contains(t, err.Error(), "takes 7 parameters, got 3")
	k.params = []int{8, 8, 4, 4, 8, 8, 8}
	err = p.pack(args, k)
	require.Contains(t, err.Error(), "parameter 1 of k takes 8 bytes")
	k.params = []int{8, 4, 4, 4, 4, 8, 8}
	err = p.pack(args, k)
	require.Contains(t, err.Error(), "parameter 4 of k takes 4 bytes, argument 4 (f64) has 8")
	k.params = []int{8, 1, 4, 2, 8, 8, 8}
	require.NoError(t, p.pack(args, k), "char and short parameters take 4-byte integers")
	k.params = nil
	err = p.pack(make([]backend.Arg, maxParams+1), k)
	require.Contains(t, err.Error(), "at most")
}

var heapSink *paramBlock

func TestParallelCopy(t *testing.T) {
	for _, n := range []int{0, 1, 1000, 1 << 20, 3<<20 + 17, 9<<20 + 5} {
		src := make([]byte, n)
		for i := range src {
			src[i] = byte(i*7 + i>>9)
		}
		dst := make([]byte, n)
		parallelCopy(dst, src)
		require.Equal(t, src, dst, "n=%d", n)
	}
}

func TestByteSize(t *testing.T) {
	require.Equal(t, "512 B", byteSize(512))
	require.Equal(t, "1.0 GiB", byteSize(1<<30))
	require.Equal(t, "256.0 MiB", byteSize(256<<20))
}

func TestDocMentionsEnv(t *testing.T) {
	b, err := os.ReadFile("doc.go")
	require.NoError(t, err)
	require.True(t, strings.Contains(string(b), EnvLibrary))
}

// BenchmarkLaunchHostPath measures the backend's own cost of a launch (lock,
// argument packing, binding the context, the call) against a fake driver
// whose functions return at once: what remains of a launch's host time
// besides the driver's.
func BenchmarkLaunchHostPath(b *testing.B) {
	dir := b.TempDir()
	path, err := fakecuda.Build(dir)
	if err != nil {
		b.Skipf("cannot build the fake driver: %v", err)
	}
	b.Setenv("FAKECUDA_DEFAULT", "0")
	lib, err := cu.Load(path)
	if err != nil {
		b.Fatal(err)
	}
	d := &device{lib: lib, ord: &ordinalState{}, buffers: map[*buffer]struct{}{}, streams: map[*stream]struct{}{}}
	s := newStream(d, 0)
	// A function the fake knows (its launch reads the function's limits).
	mod, r := lib.ModuleLoadData([]byte(".entry fill\n"))
	if r != cu.Success {
		b.Fatalf("cuModuleLoadData: %v", r)
	}
	defer lib.ModuleUnload(mod)
	fn, r := lib.ModuleGetFunction(mod, "fill")
	if r != cu.Success {
		b.Fatalf("cuModuleGetFunction: %v", r)
	}
	k := &kernel{name: "fill", fn: fn, params: []int{8, 4, 4}}
	buf := &buffer{dev: d, ptr: 0x1000, size: 4}
	args := []backend.Arg{{Kind: backend.ArgBuffer, Buffer: buf}, {Kind: backend.ArgU32, Bits: 1}, {Kind: backend.ArgF32, Bits: 0x3f800000}}
	one := backend.Dim3{X: 1, Y: 1, Z: 1}
	b.ReportAllocs()
	for b.Loop() {
		if err := s.Launch(k, one, one, args); err != nil {
			b.Fatal(err)
		}
	}
}
