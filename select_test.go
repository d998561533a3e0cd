package gpu_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/errors"
	"github.com/stretchr/testify/require"
)

func captureLogger() (*slog.Logger, *bytes.Buffer) {
	var buf bytes.Buffer
	return slog.New(slog.NewTextHandler(&buf, nil)), &buf
}

func TestOpenSelection(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name        string
		opts        []gpu.Option
		env         string
		wantBackend string
		wantOrdinal int
		wantWarning bool
	}{
		{"explicit order", []gpu.Option{gpu.WithBackends("test-broken", "test-ok", "cpu")}, "", "test-ok", 0, false},
		{"ordinal", []gpu.Option{gpu.WithBackends("test-ok"), gpu.WithDevice(1)}, "", "test-ok", 1, false},
		{"env order", nil, "test-empty,test-ok", "test-ok", 0, false},
		{"option beats env", []gpu.Option{gpu.WithBackends("cpu")}, "test-ok", "cpu", 0, false},
		{"cpu named explicitly: no warning", []gpu.Option{gpu.WithBackends("cpu")}, "", "cpu", 0, false},
		{"fallback after failures", []gpu.Option{gpu.WithBackends("test-broken", "test-empty")}, "", "cpu", 0, true},
		{"default order falls back", nil, "", "cpu", 0, true},
		{"ordinal missing falls back", []gpu.Option{gpu.WithBackends("test-ok"), gpu.WithDevice(5)}, "", "cpu", 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(gpu.EnvBackend, tc.env)
			logger, logs := captureLogger()
			dev, err := gpu.Open(ctx, append(tc.opts, gpu.WithLogger(logger))...)
			require.NoError(t, err)
			defer dev.Close()
			require.Equal(t, tc.wantBackend, dev.Backend())
			require.Equal(t, tc.wantOrdinal, dev.Info().Ordinal)
			warnings := strings.Count(logs.String(), "level=WARN")
			if tc.wantWarning {
				require.Equal(t, 1, warnings, "exactly one fallback warning: %s", logs)
			} else {
				require.Zero(t, warnings, "no warning: %s", logs)
			}
		})
	}
}

func TestSoftwareRendererOnlyWhenNamed(t *testing.T) {
	ctx := context.Background()
	// In the default order (here through the package's DefaultOrder) a
	// software renderer is passed over for the CPU, with the reason logged.
	saved := gpu.DefaultOrder
	gpu.DefaultOrder = []string{"test-software", "cpu"}
	defer func() { gpu.DefaultOrder = saved }()
	t.Setenv(gpu.EnvBackend, "")
	logger, logs := captureLogger()
	dev, err := gpu.Open(ctx, gpu.WithLogger(logger))
	require.NoError(t, err)
	require.Equal(t, "cpu", dev.Backend())
	require.NoError(t, dev.Close())
	require.Contains(t, logs.String(), "software renderer")

	// Named, it is used.
	dev, err = gpu.Open(ctx, gpu.WithBackends("test-software"))
	require.NoError(t, err)
	require.Equal(t, "test-software", dev.Backend())
	require.NoError(t, dev.Close())
}

func TestFallbackWarningListsEveryReason(t *testing.T) {
	logger, logs := captureLogger()
	dev, err := gpu.Open(context.Background(), gpu.WithBackends("test-broken", "test-notcompiled", "test-empty"), gpu.WithLogger(logger))
	require.NoError(t, err)
	defer dev.Close()
	out := logs.String()
	require.Contains(t, out, "test-broken=")
	require.Contains(t, out, "cannot open shared object file")
	require.Contains(t, out, "test-notcompiled=")
	require.Contains(t, out, "test-empty=")
	require.Equal(t, "cpu", dev.Backend())
}

func TestNoFallback(t *testing.T) {
	_, err := gpu.Open(context.Background(), gpu.WithBackends("test-broken", "test-empty"), gpu.WithFallback(false))
	require.Error(t, err)
	require.ErrorIs(t, err, errors.Unavailable)
	require.Contains(t, err.Error(), "cannot open shared object file")
	require.Contains(t, err.Error(), "test-empty")
	var inner *errors.Error
	require.True(t, errors.As(err, &inner))

	// Without fallback the default order leaves the CPU out: nothing else is linked here.
	t.Setenv(gpu.EnvBackend, "")
	_, err = gpu.Open(context.Background(), gpu.WithFallback(false))
	require.ErrorIs(t, err, errors.Unavailable)
	require.Contains(t, err.Error(), "cuda")
}

func TestOpenErrors(t *testing.T) {
	ctx := context.Background()
	_, err := gpu.Open(ctx, gpu.WithBackends("nosuch"))
	require.ErrorContains(t, err, `WithBackends: unknown backend "nosuch" (accepted: cuda, metal, vulkan, webgpu, opengl, cpu, test-broken`)
	require.ErrorIs(t, err, errors.InvalidArgument)

	// A known backend that is not linked in is unavailable, with the import to add.
	_, err = gpu.Open(ctx, gpu.WithBackends("vulkan"))
	require.ErrorIs(t, err, errors.Unavailable)
	require.ErrorIs(t, err, backend.ErrNotCompiled)
	require.ErrorContains(t, err, `import _ "github.com/anygpu/gpu/backend/vulkan"`)

	t.Setenv(gpu.EnvBackend, "cpu")
	t.Setenv(gpu.EnvDevice, "first")
	_, err = gpu.Open(ctx)
	require.ErrorIs(t, err, errors.InvalidArgument)
	require.ErrorContains(t, err, "ANYGPU_DEVICE")

	t.Setenv(gpu.EnvDevice, "")
	_, err = gpu.Open(ctx, gpu.WithDevice(-1))
	require.ErrorIs(t, err, errors.InvalidArgument)

	_, err = gpu.Open(nil) //nolint:staticcheck // the point of the test
	require.ErrorIs(t, err, errors.InvalidArgument)

	_, err = gpu.Open(ctx, gpu.WithFake("cuda:h100"))
	require.ErrorContains(t, err, "backend/sim", "fakes need the simulator linked")

	_, err = gpu.Open(ctx, gpu.WithBackends())
	require.ErrorIs(t, err, errors.InvalidArgument)

	_, err = gpu.OpenDriver(ctx, nil, 0)
	require.ErrorIs(t, err, errors.InvalidArgument)
	_, err = gpu.OpenDriver(ctx, drivers[1], 0)
	require.ErrorIs(t, err, errors.Unavailable)
	_, err = gpu.OpenDriver(ctx, drivers[0], 2)
	require.ErrorIs(t, err, errors.InvalidArgument)
}

func TestOpenDoesNotWaitForLaterBackends(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	before := okOpens.Load()
	start := time.Now()
	dev, err := gpu.Open(ctx, gpu.WithBackends("test-ok", "test-slow"))
	require.NoError(t, err)
	defer dev.Close()
	require.Less(t, time.Since(start), 10*time.Second, "a hanging backend later in the order does not delay Open")
	require.Equal(t, "test-ok", dev.Backend())
	require.Equal(t, before+1, okOpens.Load(), "only the chosen backend is opened")
}

func TestOpenBoundedByContext(t *testing.T) {
	// A backend that hangs first in the order holds Open only until ctx ends,
	// and is then reported as the reason.
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := gpu.Open(ctx, gpu.WithBackends("test-slow"), gpu.WithFallback(false))
	require.Less(t, time.Since(start), 10*time.Second)
	require.ErrorIs(t, err, errors.Unavailable)
	require.ErrorContains(t, err, "test-slow")
}

// TestStrictConfig: every malformed ANYGPU_* value and backend name is an
// InvalidArgument error naming the setting, the value and what is accepted,
// with a guess for a near miss; backend names match ignoring case.
func TestStrictConfig(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name    string
		env     map[string]string
		opts    []gpu.Option
		backend string   // the device opened, when the setting is valid
		errs    []string // what the error says, when it is not
	}{
		{name: "backend option, any case", opts: []gpu.Option{gpu.WithBackends("CPU")}, backend: "cpu"},
		{name: "backend variable, any case", env: map[string]string{gpu.EnvBackend: "Test-OK, cpu"}, backend: "test-ok"},
		{name: "backend option, unknown", opts: []gpu.Option{gpu.WithBackends("cpu", "vulcan")},
			errs: []string{`WithBackends: unknown backend "vulcan"`, "accepted: cuda, metal, vulkan", `did you mean "vulkan"?`}},
		{name: "backend variable, near miss", env: map[string]string{gpu.EnvBackend: "cdua"},
			errs: []string{`ANYGPU_BACKEND="cdua": unknown backend "cdua"`, "accepted: cuda,", `did you mean "cuda"?`}},
		{name: "backend variable, far off", env: map[string]string{gpu.EnvBackend: "nonsense"},
			errs: []string{`ANYGPU_BACKEND="nonsense": unknown backend "nonsense" (accepted: cuda,`}},
		{name: "backend variable, only commas", env: map[string]string{gpu.EnvBackend: " , "},
			errs: []string{"no backend named"}},
		{name: "device variable, a word", env: map[string]string{gpu.EnvBackend: "cpu", gpu.EnvDevice: "first"},
			errs: []string{`ANYGPU_DEVICE="first" is not a device ordinal`}},
		{name: "device variable, negative", env: map[string]string{gpu.EnvBackend: "cpu", gpu.EnvDevice: "-1"},
			errs: []string{`ANYGPU_DEVICE="-1" is not a device ordinal`}},
		{name: "device option, negative", opts: []gpu.Option{gpu.WithDevice(-1)},
			errs: []string{"WithDevice(-1)"}},
		{name: "fake variable, not a backend", env: map[string]string{gpu.EnvFake: "nonsense"}, opts: []gpu.Option{gpu.WithBackends("cpu")},
			errs: []string{`ANYGPU_FAKE="nonsense": unknown backend "nonsense"`}},
		{name: "fake variable, near miss", env: map[string]string{gpu.EnvFake: "cdua:h100"}, opts: []gpu.Option{gpu.WithBackends("cpu")},
			errs: []string{`ANYGPU_FAKE="cdua:h100": unknown backend "cdua"`, `did you mean "cuda"?`}},
		{name: "fake variable, the simulator itself", env: map[string]string{gpu.EnvFake: "sim:x"},
			errs: []string{`ANYGPU_FAKE="sim:x": unknown backend "sim"`}},
		{name: "fake variable, no name", env: map[string]string{gpu.EnvFake: ":h100"},
			errs: []string{`ANYGPU_FAKE=":h100": entry ":h100" has no backend name`}},
		{name: "fake option, near miss", opts: []gpu.Option{gpu.WithFake("vulkan,cdua:h100")},
			errs: []string{`WithFake("vulkan,cdua:h100"): unknown backend "cdua"`, `did you mean "cuda"?`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, v := range []string{gpu.EnvBackend, gpu.EnvDevice, gpu.EnvFake} {
				t.Setenv(v, c.env[v])
			}
			dev, err := gpu.Open(ctx, c.opts...)
			if c.errs == nil {
				require.NoError(t, err)
				require.Equal(t, c.backend, dev.Backend())
				require.NoError(t, dev.Close())
				return
			}
			require.ErrorIs(t, err, errors.InvalidArgument)
			for _, want := range c.errs {
				require.ErrorContains(t, err, want)
			}
		})
	}
}

// TestProbeStrictFake reports a malformed ANYGPU_FAKE as every backend's
// reason, and finds backends by name ignoring case.
func TestProbeStrictFake(t *testing.T) {
	t.Setenv(gpu.EnvFake, "")
	ctx := context.Background()
	if testing.Short() { // not ProbeTimeout's 2 s for test-slow's probe
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, 500*time.Millisecond)
		defer cancel()
	}
	rep := gpu.Probe(ctx)
	st, ok := rep.Backend("CPU")
	require.True(t, ok)
	require.Equal(t, gpu.Available, st.State)

	t.Setenv(gpu.EnvFake, "cdua:h100")
	rep = gpu.Probe(ctx)
	require.NotEmpty(t, rep.Backends)
	for _, st := range rep.Backends {
		require.Equal(t, gpu.Unavailable, st.State, st.Name)
		require.Equal(t, errors.InvalidArgument, errors.CategoryOf(st.Err), "%s: %v", st.Name, st.Err)
		require.Contains(t, st.Reason, `did you mean "cuda"?`, st.Name)
	}
}

// TestChooseMatchesOpen checks, for every kind of selection, that
// Report.Choose names the device Open opens, or fails as Open does.
func TestChooseMatchesOpen(t *testing.T) {
	ctx := context.Background()
	rep := gpu.Probe(ctx) // the machine does not change between the cases
	for _, tc := range []struct {
		name  string
		opts  []gpu.Option
		env   string
		order []string // DefaultOrder for the case; nil keeps it
	}{
		{"explicit order", []gpu.Option{gpu.WithBackends("test-broken", "test-ok", "cpu")}, "", nil},
		{"ordinal", []gpu.Option{gpu.WithBackends("test-ok"), gpu.WithDevice(1)}, "", nil},
		{"env order", nil, "test-empty,TEST-OK", nil},
		{"option beats env", []gpu.Option{gpu.WithBackends("cpu")}, "test-ok", nil},
		{"fallback after failures", []gpu.Option{gpu.WithBackends("test-broken", "test-empty")}, "", nil},
		{"default order", nil, "", nil},
		{"ordinal missing falls back", []gpu.Option{gpu.WithBackends("test-ok"), gpu.WithDevice(5)}, "", nil},
		{"software passed over", nil, "", []string{"test-software", "test-ok", "cpu"}},
		{"software named", []gpu.Option{gpu.WithBackends("test-software")}, "", nil},
		{"no fallback", []gpu.Option{gpu.WithBackends("test-broken", "test-empty"), gpu.WithFallback(false)}, "", nil},
		{"unknown backend", []gpu.Option{gpu.WithBackends("cdua")}, "", nil},
		{"negative ordinal", []gpu.Option{gpu.WithDevice(-1)}, "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.order != nil {
				saved := gpu.DefaultOrder
				gpu.DefaultOrder = tc.order
				defer func() { gpu.DefaultOrder = saved }()
			}
			t.Setenv(gpu.EnvBackend, tc.env)
			logger, _ := captureLogger()
			dev, openErr := gpu.Open(ctx, append(tc.opts, gpu.WithLogger(logger))...)
			c, chooseErr := rep.Choose(tc.opts...)
			if openErr != nil {
				require.Error(t, chooseErr, "Open failed (%v): Choose must too", openErr)
				require.Equal(t, errors.CategoryOf(openErr), errors.CategoryOf(chooseErr))
				return
			}
			defer dev.Close()
			require.NoError(t, chooseErr)
			require.Equal(t, dev.Info().Backend, c.Device.Backend)
			require.Equal(t, dev.Info().Ordinal, c.Device.Ordinal)
			require.Equal(t, dev.Info().Name, c.Device.Name)
		})
	}
}

// TestChoose checks what Choose says about a choice: why, what it passed
// over and whether the CPU stands in for the rest.
func TestChoose(t *testing.T) {
	sw := gpu.DeviceInfo{Name: "llvmpipe", Type: backend.TypeSoftware}
	dgpu := gpu.DeviceInfo{Name: "NVIDIA H200", Type: backend.TypeDiscreteGPU}
	cpu := gpu.DeviceInfo{Name: "AMD EPYC", Type: backend.TypeCPU}
	avail := func(name string, ds ...gpu.DeviceInfo) gpu.BackendStatus {
		for i := range ds {
			ds[i].Ordinal, ds[i].Backend = i, name
		}
		return gpu.BackendStatus{Name: name, State: gpu.Available, Devices: ds}
	}
	down := gpu.BackendStatus{Name: "cuda", State: gpu.Unavailable, Reason: "load driver: libcuda.so.1: not found"}
	order := gpu.WithBackends("cuda", "vulkan", "opengl", "cpu")
	tests := []struct {
		name       string
		rep        []gpu.BackendStatus
		env        map[string]string
		opts       []gpu.Option
		want       string // "backend:ordinal"; "" for an error
		why        string
		fallback   bool
		passedOver []string // "backend state: reason fragment"
		err        string
	}{
		{"gpu first", []gpu.BackendStatus{avail("cuda", dgpu, dgpu), avail("vulkan", dgpu), avail("cpu", cpu)}, nil, nil,
			"cuda:0", "the first usable backend of the default order", false, nil, ""},
		{"software skipped", []gpu.BackendStatus{down, avail("vulkan", sw), avail("opengl", sw), avail("cpu", cpu)}, nil, nil,
			"cpu:0", "no GPU backend is usable: the CPU fallback", true,
			[]string{"cuda unavailable: load driver: libcuda.so.1", "metal unavailable: not in the probe report",
				"vulkan available: only a software renderer (llvmpipe)", "webgpu unavailable: ", "opengl available: only a software renderer"}, ""},
		{"software named in the environment", []gpu.BackendStatus{avail("vulkan", sw), avail("cpu", cpu)}, map[string]string{gpu.EnvBackend: "Vulkan"}, nil,
			"vulkan:0", "the first usable backend of ANYGPU_BACKEND=vulkan", false, nil, ""},
		{"device ordinal", []gpu.BackendStatus{avail("cuda", dgpu, dgpu), avail("cpu", cpu)}, map[string]string{gpu.EnvDevice: "1"}, nil,
			"cuda:1", "the first usable backend", false, nil, ""},
		{"named, unusable: cpu fallback", []gpu.BackendStatus{down, avail("cpu", cpu)}, nil, []gpu.Option{gpu.WithBackends("cuda")},
			"cpu:0", "no backend of WithBackends(cuda) is usable: the CPU fallback", true, []string{"cuda unavailable: load driver: libcuda.so.1"}, ""},
		{"ordinal past every device, no fallback", []gpu.BackendStatus{avail("cuda", dgpu), avail("cpu", cpu)}, nil, []gpu.Option{order, gpu.WithDevice(3), gpu.WithFallback(false)},
			"", "", false, nil, "device 3 requested, 1 present"},
		{"bad ordinal", []gpu.BackendStatus{avail("cpu", cpu)}, map[string]string{gpu.EnvDevice: "x"}, nil,
			"", "", false, nil, `ANYGPU_DEVICE="x"`},
		{"nothing", []gpu.BackendStatus{down}, nil, nil, "", "", false, nil, "no usable device"},
		{"an empty report", nil, nil, nil, "", "", false, nil, "the report lists no backend"},
		{"a hand-made report: available, no device", []gpu.BackendStatus{down, {Name: "cpu", State: gpu.Available}}, nil, []gpu.Option{gpu.WithBackends("cuda")},
			"", "", false, nil, "no usable device: cuda: load driver: libcuda.so.1: not found; cpu: the report's cpu backend is available with no device"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, k := range []string{gpu.EnvBackend, gpu.EnvDevice, gpu.EnvFake} {
				t.Setenv(k, tt.env[k])
			}
			c, err := gpu.Report{Backends: tt.rep}.Choose(tt.opts...)
			if tt.want == "" {
				require.Error(t, err)
				require.Contains(t, err.Error(), tt.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.want, fmt.Sprintf("%s:%d", c.Device.Backend, c.Device.Ordinal))
			require.Contains(t, c.Why, tt.why)
			require.Equal(t, tt.fallback, c.Fallback)
			require.Len(t, c.PassedOver, len(tt.passedOver), "%+v", c.PassedOver)
			for i, p := range tt.passedOver {
				require.Contains(t, c.PassedOver[i].Backend+" "+c.PassedOver[i].State.String()+": "+c.PassedOver[i].Reason, p)
			}
		})
	}
}

// Choose tells which device Open would open, and why, from a probe report;
// here a made-up one, with CUDA missing and Vulkan on a software renderer.
func ExampleReport_Choose() {
	rep := gpu.Report{Backends: []gpu.BackendStatus{
		{Name: "cuda", State: gpu.Unavailable, Reason: "load driver: libcuda.so.1: not found"},
		{Name: "vulkan", State: gpu.Available, Devices: []gpu.DeviceInfo{{Backend: "vulkan", Name: "llvmpipe", Type: backend.TypeSoftware}}},
		{Name: "cpu", State: gpu.Available, Devices: []gpu.DeviceInfo{{Backend: "cpu", Name: "host CPU", Type: backend.TypeCPU}}},
	}}
	for _, order := range [][]string{{"cuda", "vulkan"}, {"cuda"}} {
		c, err := rep.Choose(gpu.WithBackends(order...), gpu.WithDevice(0))
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Printf("%s:%d %s (%s)\n", c.Device.Backend, c.Device.Ordinal, c.Device.Name, c.Why)
		for _, p := range c.PassedOver {
			fmt.Printf("  passed over %s: %s\n", p.Backend, p.Reason)
		}
	}
	// Output:
	// vulkan:0 llvmpipe (the first usable backend of WithBackends(cuda, vulkan))
	//   passed over cuda: load driver: libcuda.so.1: not found
	// cpu:0 host CPU (no backend of WithBackends(cuda) is usable: the CPU fallback)
	//   passed over cuda: load driver: libcuda.so.1: not found
}
