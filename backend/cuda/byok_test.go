package cuda

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/backend/cuda/internal/fakecuda"
	"github.com/anygpu/gpu/dlpack"
	"github.com/anygpu/gpu/errors"
	"github.com/anygpu/gpu/internal/fakenvrtc"
	"github.com/anygpu/gpu/nvrtc"
	"github.com/stretchr/testify/require"
)

// The tests of this file run the backend over the fake libcuda and the fake
// NVRTC (built with the C compiler; they skip without one): what reaches
// the driver and the compiler, read from the fakes' logs.

// fakeStack is a device over the fake driver and the fake NVRTC, with the
// files the fakes log to.
type fakeStack struct {
	dev       *gpu.Device
	cudaLog   string
	nvrtcLog  string
	cudaInc   string // the CUDA header directory NVRTC gets
	stampLine string // makes this test's sources unlike any other's
}

func openFake(t *testing.T, opts ...gpu.Option) *fakeStack {
	t.Helper()
	lib := fakeDriver(t)
	dir := t.TempDir()
	nv, err := fakenvrtc.Build(dir)
	if err != nil {
		t.Skipf("cannot build the fake NVRTC: %v", err)
	}
	s := &fakeStack{cudaLog: filepath.Join(dir, "cuda.log"), nvrtcLog: filepath.Join(dir, "nvrtc.log"),
		cudaInc: filepath.Join(dir, "cuda-include"), stampLine: fmt.Sprintf("// %s %d\n", t.Name(), time.Now().UnixNano())}
	require.NoError(t, os.MkdirAll(s.cudaInc, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(s.cudaInc, "cuda_fp16.h"), []byte("// half\n"), 0o644))
	t.Setenv(EnvLibrary, lib)
	t.Setenv(nvrtc.EnvLibrary, nv)
	t.Setenv(nvrtc.EnvInclude, s.cudaInc)
	t.Setenv("FAKECUDA_LOG", s.cudaLog)
	t.Setenv("FAKENVRTC_LOG", s.nvrtcLog)
	s.dev, err = gpu.OpenDriver(context.Background(), Driver{}, 0, opts...)
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.dev.Close() })
	return s
}

// TestUncachedCompileLogged: a program the kernel cache cannot vouch for
// (a computed #include) is compiled every time, by neither cache served,
// and the device's logger says why.
func TestUncachedCompileLogged(t *testing.T) {
	var logged bytes.Buffer
	s := openFake(t, gpu.WithLogger(slog.New(slog.NewTextHandler(&logged, nil))))
	src := gpu.Source{Name: "computed", CUDA: s.stampLine + "#define HDR <cuda_fp16.h>\n#include HDR\nextern \"C\" __global__ void k() {}\n"}
	for i := 0; i < 2; i++ {
		m, err := s.dev.Compile(context.Background(), src)
		require.NoError(t, err)
		require.NoError(t, m.Close())
	}
	require.Len(t, lines(t, s.nvrtcLog, "compile"), 2, "compiled each time")
	require.Len(t, lines(t, s.cudaLog, "load"), 2, "loaded each time")
	require.Contains(t, logged.String(), "compiled without the kernel cache")
	require.Contains(t, logged.String(), "computed #include HDR")
}

// lines returns the lines of a fake's log that start with prefix.
func lines(t *testing.T, path, prefix string) []string {
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil
	}
	require.NoError(t, err)
	var out []string
	for _, l := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(l, prefix) {
			out = append(out, l)
		}
	}
	return out
}

// TestKernelNamesOverFakes: C++ kernel names reach NVRTC as name
// expressions, either listed at Compile (one compile) or asked for later
// (one more compile per name), and the lowered name is what the driver is
// asked for.
func TestKernelNamesOverFakes(t *testing.T) {
	s := openFake(t)
	ctx := context.Background()
	src := s.stampLine + `#include <cuda_fp16.h>
template <typename T, int N> __global__ void softmax(T* x) {}
extern "C" __global__ void plain(float* x) {}
`
	m, err := s.dev.Compile(ctx, gpu.Source{Name: "names", CUDA: src}, gpu.KernelNames("softmax<float, 128>"))
	require.NoError(t, err)
	defer m.Close()
	c := lines(t, s.nvrtcLog, "compile")
	require.Len(t, c, 1)
	require.Contains(t, c[0], "|--include-path="+s.cudaInc, "the CUDA headers reach NVRTC with no options")
	for _, tc := range []struct {
		name, symbol string
		compiles     int // NVRTC runs so far
	}{
		{"softmax<float, 128>", "_Zsoftmaxfloat128", 1},
		{"plain", "plain", 1},
		{"softmax<double, 64>", "_Zsoftmaxdouble64", 2}, // not listed: compiled again for it
		{"softmax<double, 64>", "_Zsoftmaxdouble64", 2}, // the root keeps the kernel
	} {
		k, err := m.Kernel(tc.name)
		require.NoError(t, err, tc.name)
		require.Equal(t, tc.name, k.Name())
		require.Len(t, lines(t, s.nvrtcLog, "compile"), tc.compiles, tc.name)
		require.NotEmpty(t, lines(t, s.cudaLog, "getfunction "+tc.symbol), tc.name)
	}
	// A name that is in no form in the source: refused without a compile.
	_, err = m.Kernel("missing")
	require.Equal(t, errors.InvalidArgument, errors.CategoryOf(err))
	require.Contains(t, err.Error(), `no entry point "missing"`)
	require.Contains(t, errors.Hint(err), "softmax<float, 128>")
	require.Len(t, lines(t, s.nvrtcLog, "compile"), 2, "no compile for a name the source lacks")

	// A name whose function is there but which NVRTC cannot resolve.
	m2, err := s.dev.Compile(ctx, gpu.Source{Name: "plain", CUDA: s.stampLine + `extern "C" __global__ void plain(float* x) {}`})
	require.NoError(t, err)
	defer m2.Close()
	_, err = m2.Kernel("plain<int>")
	require.Equal(t, errors.InvalidArgument, errors.CategoryOf(err), "%v", err)
	require.Len(t, lines(t, s.nvrtcLog, "compile"), 4, "compiled with the name expression")
	require.Contains(t, errors.LogOf(err), "is not a template", "NVRTC's reason comes with it")
}

func TestMentions(t *testing.T) {
	src := "namespace ops { template <typename T, int N> __global__ void softmax(T* x) {} }\nextern \"C\" __global__ void plain() {}\n"
	for name, want := range map[string]bool{
		"softmax<float, 128>": true, "ops::softmax<float, 128>": true, "plain": true, "(plain)": false,
		"missing": false, "ops::missing<int>": false, "": false, "<int>": false,
	} {
		require.Equal(t, want, mentions(src, name), name)
	}
}

// TestModuleCacheOverFakes: a second Compile of the same source and options
// is served by the device's module cache (no NVRTC run, no module load); a
// changed option, source or header is a miss; closing a Module keeps the
// cached code loaded for the next Compile.
func TestModuleCacheOverFakes(t *testing.T) {
	s := openFake(t)
	ctx := context.Background()
	user := t.TempDir()
	hdr := filepath.Join(user, "scale.h")
	require.NoError(t, os.WriteFile(hdr, []byte("#define SCALE 2\n"), 0o644))
	src := gpu.Source{Name: "cached", CUDA: s.stampLine + "#include \"scale.h\"\nextern \"C\" __global__ void k(float* x) {}\n"}
	loads := func() int { return len(lines(t, s.cudaLog, "load")) }
	compile := func(opts ...gpu.CompileOption) {
		t.Helper()
		m, err := s.dev.Compile(ctx, src, opts...)
		require.NoError(t, err)
		_, err = m.Kernel("k")
		require.NoError(t, err)
		require.NoError(t, m.Close())
	}
	inc := gpu.IncludePath(user)
	compile(inc)
	require.Equal(t, 1, loads())
	nv := len(lines(t, s.nvrtcLog, "compile"))
	require.Equal(t, 1, nv)

	for _, step := range []struct {
		name   string
		change func()
		opts   []gpu.CompileOption
		load   bool // a new module load
	}{
		{"same source and options: the cached module", func() {}, []gpu.CompileOption{inc}, false},
		{"another option", func() {}, []gpu.CompileOption{inc, gpu.Define("X", "1")}, true},
		{"back to the first options: still cached", func() {}, []gpu.CompileOption{inc}, false},
		{"the included header changed", func() {
			require.NoError(t, os.WriteFile(hdr, []byte("#define SCALE 3 // longer\n"), 0o644))
		}, []gpu.CompileOption{inc}, true},
		{"the CUDA header directory's contents do not matter when not included", func() {
			require.NoError(t, os.WriteFile(filepath.Join(s.cudaInc, "cuda_bf16.h"), []byte("x"), 0o644))
		}, []gpu.CompileOption{inc}, false},
	} {
		before := loads()
		step.change()
		compile(step.opts...)
		if step.load {
			require.Equal(t, before+1, loads(), step.name)
		} else {
			require.Equal(t, before, loads(), step.name)
		}
	}
	require.Len(t, lines(t, s.cudaLog, "unload"), 1, "closing Modules leaves cached code loaded; only the module of the old header went")
	require.NoError(t, s.dev.Close())
	require.NotEmpty(t, lines(t, s.cudaLog, "unload"), "the device unloads its cache when it closes")
}

// TestSourceBinariesOverFakes: PTX, CUBIN and fatbin sources load without
// NVRTC; PTX with launch bounds, a register cap or an optimisation level
// loads through cuModuleLoadDataEx with the JIT options; a CUDA source with
// them is compiled to PTX.
func TestSourceBinariesOverFakes(t *testing.T) {
	s := openFake(t)
	ctx := context.Background()
	ptx := s.stampLine + ".version 8.0\n.target sm_90\n.visible .entry scale(\n.param .u64 x\n)\n{\nret;\n}\n"
	for _, tc := range []struct {
		name string
		src  gpu.Source
		opts []gpu.CompileOption
		log  string // the fake driver's line for the load
	}{
		{"PTX", gpu.Source{Name: "p", PTX: ptx}, nil, "load "},
		{"CUBIN", gpu.Source{Name: "c", CUBIN: []byte(ptx + "cubin")}, nil, "load "},
		{"fatbin", gpu.Source{Name: "f", Fatbin: []byte(ptx + "fatbin")}, nil, "load "},
		{"PTX with JIT options", gpu.Source{Name: "j", PTX: ptx + "// j\n"},
			[]gpu.CompileOption{gpu.MaxRegisters(64), gpu.LaunchBounds(256), gpu.OptimizationLevel(3)}, "loadex "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := len(lines(t, s.nvrtcLog, "compile"))
			m, err := s.dev.Compile(ctx, tc.src, tc.opts...)
			require.NoError(t, err)
			defer m.Close()
			_, err = m.Kernel("scale")
			require.NoError(t, err)
			require.Equal(t, before, len(lines(t, s.nvrtcLog, "compile")), "no NVRTC run")
			got := lines(t, s.cudaLog, tc.log)
			require.NotEmpty(t, got)
			if tc.log == "loadex " {
				require.True(t, strings.HasSuffix(got[len(got)-1], " 0=64 1=256 7=3"), got[len(got)-1])
			}
		})
	}
	t.Run("CUDA with launch bounds: PTX, loaded with the JIT options", func(t *testing.T) {
		m, err := s.dev.Compile(ctx, gpu.Source{Name: "lb", CUDA: s.stampLine + `extern "C" __global__ void k() {}`},
			gpu.LaunchBounds(128), gpu.MaxRegisters(32))
		require.NoError(t, err)
		defer m.Close()
		c := lines(t, s.nvrtcLog, "compile")
		require.Contains(t, c[len(c)-1], "--gpu-architecture=compute_90")
		require.Contains(t, c[len(c)-1], "--maxrregcount=32")
		l := lines(t, s.cudaLog, "loadex ")
		require.True(t, strings.HasSuffix(l[len(l)-1], " 0=32 1=128"), l[len(l)-1])
	})
	for _, tc := range []struct {
		name string
		opt  gpu.CompileOption
		want string
	}{
		{"registers", gpu.MaxRegisters(300), "MaxRegisters(300)"},
		{"launch bounds beyond the device", gpu.LaunchBounds(4096), "LaunchBounds(4096) exceeds"},
		{"optimisation level", gpu.OptimizationLevel(5), "OptimizationLevel(5)"},
		{"empty include path", gpu.IncludePath(""), "IncludePath"},
		{"empty kernel name", gpu.KernelNames(" "), "KernelNames"},
	} {
		t.Run("refused: "+tc.name, func(t *testing.T) {
			_, err := s.dev.Compile(ctx, gpu.Source{Name: "bad", PTX: ptx}, tc.opt)
			require.Equal(t, errors.InvalidArgument, errors.CategoryOf(err), "%v", err)
			require.Contains(t, err.Error(), tc.want)
		})
	}
	_, err := s.dev.Compile(ctx, gpu.Source{Name: "none", GLSL: "x"})
	require.Equal(t, errors.NotSupported, errors.CategoryOf(err))
	require.Contains(t, err.Error(), "Source.PTX")
}

// BenchmarkCompileWarm is a second Compile of the same source and options
// in one process (the target: at most 0.05 ms): over the fake driver
// and NVRTC here, on the GPU when one is present
// (ANYGPU_BENCH_REAL=1 go test -run '^$' -bench CompileWarm ./backend/cuda).
func BenchmarkCompileWarm(b *testing.B) {
	var dev *gpu.Device
	if os.Getenv("ANYGPU_BENCH_REAL") != "" {
		dev = openGPU(b)
	} else {
		dev = openFakeB(b)
	}
	ctx := context.Background()
	src := gpu.Source{Name: "warm", CUDA: `#include <cuda_fp16.h>
extern "C" __global__ void saxpy(float* y, const float* x, float a, unsigned n) {
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) y[i] = a * x[i] + y[i];
}
`}
	m, err := dev.Compile(ctx, src, gpu.FastMath())
	require.NoError(b, err)
	require.NoError(b, m.Close())
	b.ResetTimer()
	for b.Loop() {
		m, err := dev.Compile(ctx, src, gpu.FastMath())
		if err != nil {
			b.Fatal(err)
		}
		_ = m.Close()
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/1000, "ms/compile")
}

// openFakeB is openFake for a benchmark.
func openFakeB(b *testing.B) *gpu.Device {
	b.Helper()
	dir := b.TempDir()
	lib, err := fakecuda.Build(dir)
	if err != nil {
		b.Skipf("cannot build the fake driver: %v", err)
	}
	nvdir := filepath.Join(dir, "nvrtc")
	require.NoError(b, os.MkdirAll(nvdir, 0o755))
	nv, err := fakenvrtc.Build(nvdir)
	if err != nil {
		b.Skipf("cannot build the fake NVRTC: %v", err)
	}
	inc := filepath.Join(dir, "include")
	require.NoError(b, os.MkdirAll(inc, 0o755))
	require.NoError(b, os.WriteFile(filepath.Join(inc, "cuda_fp16.h"), []byte("// half\n"), 0o644))
	// As installed headers are: not modified just now (a header modified
	// within the last seconds is compared by contents on every check).
	old := time.Now().Add(-time.Hour)
	require.NoError(b, os.Chtimes(filepath.Join(inc, "cuda_fp16.h"), old, old))
	b.Setenv(EnvLibrary, lib)
	b.Setenv(nvrtc.EnvLibrary, nv)
	b.Setenv(nvrtc.EnvInclude, inc)
	dev, err := gpu.OpenDriver(context.Background(), Driver{}, 0)
	require.NoError(b, err)
	b.Cleanup(func() { _ = dev.Close() })
	return dev
}

// TestLaunchOptionsOverFakes: dynamic shared memory reaches cuLaunchKernel,
// the opt-in happens once above 48 KiB, too much is refused before the
// launch, and cooperative launches go through cuLaunchCooperativeKernel or
// are refused clearly.
func TestLaunchOptionsOverFakes(t *testing.T) {
	s := openFake(t)
	ctx := context.Background()
	m, err := s.dev.Compile(ctx, gpu.Source{Name: "smem", CUDA: s.stampLine + `extern "C" __global__ void tile(float* x) { extern __shared__ float t[]; }`})
	require.NoError(t, err)
	defer m.Close()
	k, err := m.Kernel("tile")
	require.NoError(t, err)
	buf, err := s.dev.Alloc(1024)
	require.NoError(t, err)
	defer buf.Close()
	st := s.dev.DefaultStream()
	const optin = 232448 // the fake H200's shared memory per block, opted in
	for _, tc := range []struct {
		name    string
		cfg     gpu.LaunchConfig
		cat     errors.Category // 0: the launch succeeds
		launch  string          // the fake driver's log line, for a launch
		optIn   []string        // cuFuncSetAttribute lines this launch adds
		message string
	}{
		{name: "no options: a plain launch", cfg: gpu.LaunchConfig{Grid: gpu.Dim3{X: 2}, Block: gpu.Dim3{X: 64}},
			launch: "launch tile smem=0 grid=2,1,1 block=64,1,1"},
		{name: "32 KiB: within the default", cfg: gpu.LaunchConfig{Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 128}, SharedMemBytes: 32 << 10},
			launch: "launch tile smem=32768 grid=1,1,1 block=128,1,1"},
		{name: "100 KiB: opted in first", cfg: gpu.LaunchConfig{Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 128}, SharedMemBytes: 100 << 10},
			launch: "launch tile smem=102400", optIn: []string{"setattribute tile 8=102400", "setattribute tile 9=100"}},
		{name: "90 KiB: within the opt-in already made", cfg: gpu.LaunchConfig{Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 128}, SharedMemBytes: 90 << 10},
			launch: "launch tile smem=92160"},
		{name: "all the device has", cfg: gpu.LaunchConfig{Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 32}, SharedMemBytes: optin},
			launch: "launch tile smem=232448", optIn: []string{"setattribute tile 8=232448", "setattribute tile 9=100"}},
		{name: "one byte more than the device has", cfg: gpu.LaunchConfig{Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 32}, SharedMemBytes: optin + 1},
			cat: errors.InvalidArgument, message: "exceeds the device's 232448 bytes"},
		{name: "negative", cfg: gpu.LaunchConfig{Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 32}, SharedMemBytes: -1},
			cat: errors.InvalidArgument, message: "negative"},
		{name: "cooperative", cfg: gpu.LaunchConfig{Grid: gpu.Dim3{X: 264}, Block: gpu.Dim3{X: 256}, Cooperative: true},
			launch: "cooperative tile smem=0 grid=264,1,1 block=256,1,1"},
		{name: "cooperative with shared memory", cfg: gpu.LaunchConfig{Grid: gpu.Dim3{X: 132}, Block: gpu.Dim3{X: 256}, SharedMemBytes: 200 << 10, Cooperative: true},
			launch: "cooperative tile smem=204800"},
		{name: "cooperative grid larger than the device holds at once", cfg: gpu.LaunchConfig{Grid: gpu.Dim3{X: 133}, Block: gpu.Dim3{X: 256}, SharedMemBytes: 200 << 10, Cooperative: true},
			cat: errors.InvalidArgument, message: "only 132 (1 per SM × 132 SMs)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			launches := len(lines(t, s.cudaLog, "launch")) + len(lines(t, s.cudaLog, "cooperative"))
			attrs := len(lines(t, s.cudaLog, "setattribute"))
			err := st.LaunchWith(k, tc.cfg, gpu.Buf(buf))
			if tc.cat != 0 {
				require.Equal(t, tc.cat, errors.CategoryOf(err), "%v", err)
				require.Contains(t, err.Error(), tc.message)
				require.NotEmpty(t, errors.Hint(err))
				require.Equal(t, launches, len(lines(t, s.cudaLog, "launch"))+len(lines(t, s.cudaLog, "cooperative")), "nothing reached the driver")
				return
			}
			require.NoError(t, err)
			all := append(lines(t, s.cudaLog, "launch"), lines(t, s.cudaLog, "cooperative")...)
			require.Len(t, all, launches+1)
			require.NotEmpty(t, lines(t, s.cudaLog, tc.launch))
			if got := lines(t, s.cudaLog, "setattribute")[attrs:]; len(tc.optIn) == 0 {
				require.Empty(t, got, "no opt-in")
			} else {
				require.Equal(t, tc.optIn, got, "opt-in calls")
			}
		})
	}
	require.NoError(t, st.Synchronize(ctx))
}

// TestCooperativeUnsupportedOverFakes: a device whose attribute says no
// refuses a cooperative launch with NotSupported.
func TestCooperativeUnsupportedOverFakes(t *testing.T) {
	t.Setenv("FAKECUDA_ATTR_95", "0") // CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH
	s := openFake(t)
	m, err := s.dev.Compile(context.Background(), gpu.Source{Name: "c", CUDA: s.stampLine + `extern "C" __global__ void k() {}`})
	require.NoError(t, err)
	defer m.Close()
	k, err := m.Kernel("k")
	require.NoError(t, err)
	err = s.dev.DefaultStream().LaunchWith(k, gpu.LaunchConfig{Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 32}, Cooperative: true})
	require.Equal(t, errors.NotSupported, errors.CategoryOf(err), "%v", err)
	require.Contains(t, err.Error(), "cannot launch cooperatively")
	require.Empty(t, lines(t, s.cudaLog, "cooperative"))
}

// TestBorrowOverFakes: device memory another library allocated is used in
// place through a borrowed Buffer, checked against what the driver reports,
// and never freed by it.
func TestBorrowOverFakes(t *testing.T) {
	s := openFake(t)
	own, err := s.dev.Alloc(4096) // stands in for another library's allocation
	require.NoError(t, err)
	defer own.Close()
	h, err := own.NativeHandle()
	require.NoError(t, err)
	live := s.dev.Stats()

	b, err := s.dev.Borrow(h, 4096)
	require.NoError(t, err)
	require.True(t, b.Borrowed())
	require.False(t, own.Borrowed())
	got, err := b.NativeHandle()
	require.NoError(t, err)
	require.Equal(t, h, got, "the same device pointer: no copy")
	data := []byte("written through the borrowed buffer")
	_, err = b.WriteAt(data, 100)
	require.NoError(t, err)
	back := make([]byte, len(data))
	_, err = own.ReadAt(back, 100)
	require.NoError(t, err)
	require.Equal(t, data, back, "the borrowed buffer is the owner's memory")
	require.NoError(t, b.Close())
	require.Empty(t, lines(t, s.cudaLog, fmt.Sprintf("free %x", h)), "closing a borrowed buffer frees nothing")
	require.Equal(t, live.LiveBytes, s.dev.Stats().LiveBytes, "borrowed memory is not counted")
	_, err = own.ReadAt(back, 0)
	require.NoError(t, err, "the owner's memory is still there")

	for _, tc := range []struct {
		name   string
		handle uintptr
		size   int64
		env    string
		want   string
	}{
		{"zero handle", 0, 16, "", "non-zero handle"},
		{"zero size", h, 0, "", "positive size"},
		{"unknown to the driver", 0xdead000, 16, "", "does not know the address"},
		{"past the allocation", h, 2 << 20, "", "run past its allocation"},
		{"another GPU's memory", h, 16, "1", "memory of GPU 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.env != "" {
				t.Setenv("FAKECUDA_POINTER_DEVICE", tc.env)
			}
			_, err := s.dev.Borrow(tc.handle, tc.size)
			require.Equal(t, errors.InvalidArgument, errors.CategoryOf(err), "%v", err)
			require.Contains(t, err.Error(), tc.want)
		})
	}
}

// TestModuleCacheConcurrency: many goroutines compiling, looking up (also
// by C++ names, which recompiles) and closing modules of the same and of
// different sources share the cache safely; every module the device loaded
// is unloaded once by the end.
func TestModuleCacheConcurrency(t *testing.T) {
	s := openFake(t)
	ctx := context.Background()
	srcs := []gpu.Source{
		{Name: "a", CUDA: s.stampLine + "template <int N> __global__ void t(float* x) {}\nextern \"C\" __global__ void k(float* x) {}\n"},
		{Name: "b", CUDA: s.stampLine + "// b\ntemplate <int N> __global__ void t(float* x) {}\nextern \"C\" __global__ void k(float* x) {}\n"},
	}
	const workers, rounds = 8, 20
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		go func(w int) {
			errs <- func() error {
				for i := 0; i < rounds; i++ {
					m, err := s.dev.Compile(ctx, srcs[(w+i)%len(srcs)])
					if err != nil {
						return err
					}
					if _, err := m.Kernel("k"); err != nil {
						return err
					}
					if _, err := m.Kernel(fmt.Sprintf("t<%d>", i%3)); err != nil {
						return err
					}
					if err := m.Close(); err != nil {
						return err
					}
				}
				return nil
			}()
		}(w)
	}
	for w := 0; w < workers; w++ {
		require.NoError(t, <-errs)
	}
	require.NoError(t, s.dev.Close())
	loads := len(lines(t, s.cudaLog, "load"))
	require.Equal(t, loads, len(lines(t, s.cudaLog, "unload")), "every loaded module unloaded exactly once")
	require.LessOrEqual(t, loads, 2*(1+3)+workers*rounds/4, "the cache served most compiles")
	t.Logf("%d compiles and %d template lookups: %d module loads", workers*rounds, workers*rounds, loads)
}

// TestDLPackOverFakes: a buffer exported as a DLManagedTensor and imported
// back is the same device memory; closing the import calls the producer's
// deleter; tensors of another device type or GPU are refused.
func TestDLPackOverFakes(t *testing.T) {
	s := openFake(t)
	own, err := s.dev.Alloc(4096)
	require.NoError(t, err)
	defer own.Close()
	h, err := own.NativeHandle()
	require.NoError(t, err)

	_, err = dlpack.Export(own, dlpack.Float32, []int64{33, 32})
	if errors.CategoryOf(err) == errors.NotSupported {
		t.Skipf("built without cgo: %v", err)
	}
	require.Equal(t, errors.InvalidArgument, errors.CategoryOf(err), "larger than the buffer: %v", err)

	exp, err := dlpack.Export(own, dlpack.Float32, []int64{32, 32})
	require.NoError(t, err)
	p := exp.Pointer()
	deviceType, deviceID := (*int32)(unsafe.Add(p, 8)), (*int32)(unsafe.Add(p, 12))
	require.Equal(t, int32(dlpack.CUDA), *deviceType)
	require.Equal(t, int32(0), *deviceID)
	for _, tc := range []struct {
		name  string
		poke  func()
		unset func()
		want  string
	}{
		{"host memory", func() { *deviceType = int32(dlpack.CPU) }, func() { *deviceType = int32(dlpack.CUDA) }, "not CUDA memory"},
		{"another GPU", func() { *deviceID = 3 }, func() { *deviceID = 0 }, "on GPU 3"},
	} {
		tc.poke()
		_, err := dlpack.Import(s.dev, p)
		tc.unset()
		require.Equal(t, errors.InvalidArgument, errors.CategoryOf(err), "%s: %v", tc.name, err)
		require.Contains(t, err.Error(), tc.want)
	}
	require.False(t, exp.Deleted(), "a refused import leaves the tensor to its owner")

	in, err := dlpack.Import(s.dev, p)
	require.NoError(t, err)
	require.Equal(t, []int64{32, 32}, in.Shape)
	require.Equal(t, dlpack.Float32, in.DType)
	require.Equal(t, "float32", in.DType.String())
	got, err := in.Buffer.NativeHandle()
	require.NoError(t, err)
	require.Equal(t, h, got, "the same device memory: no copy")
	require.True(t, in.Buffer.Borrowed())
	data := []byte("through DLPack")
	_, err = in.Buffer.WriteAt(data, 0)
	require.NoError(t, err)
	back := make([]byte, len(data))
	_, err = own.ReadAt(back, 0)
	require.NoError(t, err)
	require.Equal(t, data, back)
	require.NoError(t, in.Close())
	require.True(t, exp.Deleted(), "closing the import called the producer's deleter")
	require.NoError(t, in.Close(), "once")
	require.Empty(t, lines(t, s.cudaLog, fmt.Sprintf("free %x", h)), "nothing was freed but by its owner")

	// Handed over: the consumer's deleter closes the buffer.
	result, err := s.dev.Alloc(256)
	require.NoError(t, err)
	owned, err := dlpack.ExportOwned(result, dlpack.Int32, []int64{64})
	require.NoError(t, err)
	in, err = dlpack.Import(s.dev, owned.Pointer())
	require.NoError(t, err)
	_, err = result.NativeHandle()
	require.NoError(t, err, "open until the consumer is done")
	require.NoError(t, in.Close())
	require.True(t, owned.Deleted())
	_, err = result.NativeHandle()
	require.Equal(t, errors.Closed, errors.CategoryOf(err), "the deleter closed it")
}
