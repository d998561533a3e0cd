package gpu_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/anygpu/gpu"
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
	require.ErrorContains(t, err, `unknown backend "nosuch" (forgotten import of github.com/anygpu/gpu/backend/all?)`)
	require.ErrorIs(t, err, errors.Unavailable)

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
