package gpu_test

import (
	"bytes"
	"context"
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
