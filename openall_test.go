package gpu_test

import (
	"context"
	"io"
	"log/slog"
	"math"
	"runtime"
	"testing"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/errors"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var quiet = gpu.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))

func TestOpenAllCPU(t *testing.T) {
	ctx := context.Background()
	devs, err := gpu.OpenAll(ctx, gpu.WithBackends("cpu"))
	require.NoError(t, err)
	defer func() { require.NoError(t, gpu.CloseAll(devs)) }()
	require.Len(t, devs, 1)
	require.Equal(t, "cpu:0", devs[0].Name())
	require.True(t, devs[0].IsPeer(devs[0]))

	// With no GPU backend in this test binary, the default order falls back
	// to the CPU device, alone.
	all, err := gpu.OpenAll(ctx, quiet)
	require.NoError(t, err)
	defer gpu.CloseAll(all)
	require.Len(t, all, 1)
	require.Equal(t, "cpu", all[0].Backend())
}

func TestOpenAllEveryDevice(t *testing.T) {
	ctx := context.Background()
	devs, err := gpu.OpenAll(ctx, gpu.WithBackends("test-broken", "test-ok"), gpu.WithDevice(1), gpu.WithPool(gpu.LowMemoryPool))
	require.NoError(t, err)
	defer gpu.CloseAll(devs)
	require.Len(t, devs, 2, "every device of the first usable backend; WithDevice is ignored")
	for i, d := range devs {
		require.Equal(t, "test-ok", d.Backend())
		require.Equal(t, i, d.Info().Ordinal)
		require.NotSame(t, devs[0].Pool(), devs[1].Pool(), "each device has its own pool")
	}
	require.False(t, devs[0].IsPeer(devs[1]), "no peers listed")
	require.False(t, devs[0].IsPeer(nil))
}

func TestOpenAllErrors(t *testing.T) {
	ctx := context.Background()
	//lint:ignore SA1012 a nil context is what is tested
	_, err := gpu.OpenAll(nil) //nolint:staticcheck
	require.True(t, errors.Is(err, errors.InvalidArgument))
	_, err = gpu.OpenAll(ctx, gpu.WithBackends("test-broken"), gpu.WithFallback(false))
	require.True(t, errors.Is(err, errors.Unavailable), "%v", err)
	require.Contains(t, err.Error(), "libtest.so")
	_, err = gpu.OpenAll(ctx, gpu.WithBackends("nonesuch"))
	require.Error(t, err)
	require.Contains(t, err.Error(), "unknown backend")

	// A backend named explicitly may be a software renderer.
	devs, err := gpu.OpenAll(ctx, gpu.WithBackends("test-software"))
	require.NoError(t, err)
	require.Len(t, devs, 1)
	require.NoError(t, gpu.CloseAll(devs))

	// Falling back to the CPU when the named backends fail.
	devs, err = gpu.OpenAll(ctx, gpu.WithBackends("test-broken"), quiet)
	require.NoError(t, err)
	require.Len(t, devs, 1)
	require.Equal(t, "cpu", devs[0].Backend())
	require.NoError(t, gpu.CloseAll([]*gpu.Device{devs[0], nil, devs[0]}), "nil and closed entries")
}

// TestAcrossDevices: a copy from another device and a wait for another
// device's event, on a backend without peer copies or device waits: both take
// the host path and count a fallback.
func TestAcrossDevices(t *testing.T) {
	ctx := context.Background()
	devs, err := gpu.OpenAll(ctx, gpu.WithBackends("test-ok"))
	require.NoError(t, err)
	defer gpu.CloseAll(devs)
	a, b := devs[0], devs[1]
	src, err := gpu.FromSlice(ctx, b, []float32{1, 2, 3, 4})
	require.NoError(t, err)
	dst, err := gpu.AllocSlice[float32](a, 4)
	require.NoError(t, err)

	sb, err := b.NewStream()
	require.NoError(t, err)
	require.NoError(t, sb.Fill(src, 0, 16, math.Float32bits(9)))
	ev, err := sb.Record()
	require.NoError(t, err)
	sa := a.DefaultStream()
	require.NoError(t, sa.Wait(ev), "an event of another device orders this stream")
	require.Equal(t, int64(1), a.Stats().Fallbacks, "waited on the host")
	require.NoError(t, sa.Copy(dst, 0, src, 0, 16))
	got, err := gpu.ToSlice[float32](ctx, dst)
	require.NoError(t, err)
	require.Equal(t, []float32{9, 9, 9, 9}, got)
	require.Equal(t, int64(2), a.Stats().Fallbacks, "the copy was staged too")
	require.Equal(t, int64(1), a.Stats().Transfers.Peer.Count)

	require.NoError(t, ev.Close())
	require.NoError(t, sb.Close())
	require.NoError(t, b.Close())
	ev2, err := sa.Record()
	require.NoError(t, err)
	require.True(t, errors.Is(sb.Wait(ev2), errors.Closed), "a stream of a closed device")
}

func TestRunNative(t *testing.T) {
	dev, err := gpu.Open(context.Background(), gpu.WithBackends("cpu"))
	require.NoError(t, err)
	ran := false
	require.NoError(t, dev.RunNative(func() error { ran = true; runtime.Gosched(); return nil }))
	require.True(t, ran)
	boom := errors.New("boom")
	require.Equal(t, boom, dev.RunNative(func() error { return boom }), "f's error unchanged")
	require.True(t, errors.Is(dev.RunNative(nil), errors.InvalidArgument))
	_, err = dev.DefaultStream().NativeHandle()
	require.True(t, errors.Is(err, errors.NotSupported), "the CPU backend has no stream handle")
	require.NoError(t, dev.Close())
	require.True(t, errors.Is(dev.RunNative(func() error { return nil }), errors.Closed))
	_, err = dev.DefaultStream().NativeHandle()
	require.True(t, errors.Is(err, errors.Closed))
	var nilDev *gpu.Device
	require.True(t, errors.Is(nilDev.RunNative(func() error { return nil }), errors.InvalidArgument))
	assert.False(t, nilDev.IsPeer(dev))
}
