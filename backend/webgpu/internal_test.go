//go:build cgo

package webgpu

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/backend/backendtest"
	"github.com/anygpu/gpu/errors"
)

func TestEdgeWords(t *testing.T) {
	for _, tc := range []struct {
		o, n uint64
		want []uint64
	}{
		{0, 4, nil}, {0, 8, nil}, {0, 1, []uint64{0}}, {1, 1, []uint64{0}}, {2, 2, []uint64{0}},
		{3, 2, []uint64{0, 1}}, {4, 5, []uint64{2}}, {1, 7, []uint64{0}}, {1, 11, []uint64{0}},
		{5, 8, []uint64{1, 3}}, {3, 1, []uint64{0}},
	} {
		require.Equal(t, tc.want, edgeWords(tc.o, tc.n), "edgeWords(%d, %d)", tc.o, tc.n)
	}
}

func TestFoldGrid(t *testing.T) {
	for _, tc := range []struct {
		g       backend.Dim3
		x, y, z uint32
		bad     bool
	}{
		{backend.Dim3{X: 1, Y: 1, Z: 1}, 1, 1, 1, false},
		{backend.Dim3{X: 65535, Y: 65535, Z: 2}, 65535, 65535, 2, false},
		{backend.Dim3{X: 262144, Y: 1, Z: 1}, 52429, 5, 1, false},
		{backend.Dim3{X: 65536, Y: 1, Z: 1}, 32768, 2, 1, false},
		{backend.Dim3{X: 70000, Y: 2, Z: 1}, 46667, 3, 1, false},
		{backend.Dim3{X: 1<<31 - 1, Y: 1, Z: 1}, 65535, 32769, 1, false},
		{backend.Dim3{X: 1 << 30, Y: 4, Z: 1}, 0, 0, 0, true},
	} {
		x, y, z, err := foldGrid(tc.g, 65535)
		if tc.bad {
			require.Error(t, err, "%v", tc.g)
			continue
		}
		require.NoError(t, err)
		require.Equal(t, [3]uint32{tc.x, tc.y, tc.z}, [3]uint32{x, y, z}, "%v", tc.g)
		total := int64(tc.g.X) * int64(tc.g.Y) * int64(tc.g.Z)
		require.GreaterOrEqual(t, int64(x)*int64(y)*int64(z), total)
		require.Less(t, int64(x)*int64(y)*int64(z)-total, int64(y), "%v: padding groups", tc.g)
	}
}

func TestGLSL450(t *testing.T) {
	require.Equal(t, "#version 450\nvoid main() {}", glsl450("#version 430\nvoid main() {}"))
	require.Equal(t, "#version 450\nx", glsl450("#version 430 core\nx"))
	require.Equal(t, "#version 460\nx", glsl450("#version 460\nx"))
	require.Equal(t, "void main() {}", glsl450("void main() {}"))
}

func TestProtect(t *testing.T) {
	err := protect("op", func() error { panic("boom") })
	require.Equal(t, errors.Internal, errors.CategoryOf(err))
	require.Contains(t, err.Error(), "webgpu: op: the wgpu binding panicked: boom")
	require.NotEmpty(t, errors.LogOf(err))
}

func openInternal(t *testing.T) *device {
	t.Helper()
	backendtest.SkipUnlessAvailable(t, Driver{})
	d, err := open(context.Background(), 0)
	require.NoError(t, err)
	t.Cleanup(func() { _ = d.Close() })
	return d.(*device)
}

// TestUncapturedError raises a validation error outside any error scope: the
// uncaptured-error callback (without which wgpu-native aborts the process)
// receives it and the next Synchronize reports it, with its category.
func TestUncapturedError(t *testing.T) {
	d := openInternal(t)
	s, err := d.NewStream()
	require.NoError(t, err)
	defer s.Close()
	k := d.internal.fill
	err = protect("test", func() error {
		// An index past maxBindGroups: an error wgpu raises at once.
		l := k.pipe.GetBindGroupLayout(7)
		l.Release()
		return nil
	})
	require.NoError(t, err)
	err = s.Synchronize(context.Background())
	require.Error(t, err, "the uncaptured error is reported")
	require.Equal(t, errors.InvalidArgument, errors.CategoryOf(err), "%v", err)
	require.Contains(t, err.Error(), "WGPUErrorType_Validation")
	require.NoError(t, s.Synchronize(context.Background()), "reported once")

	// Inside call, the same error is the call's own.
	d.mu.Lock()
	err = d.call("layout", errors.Launch, func() error {
		k.pipe.GetBindGroupLayout(7).Release()
		return nil
	})
	d.mu.Unlock()
	require.Equal(t, errors.Launch, errors.CategoryOf(err), "%v", err)
}

// TestHostTimedEvents checks the events of the host-clock fallback.
func TestHostTimedEvents(t *testing.T) {
	defer SetForceHostTiming(true)()
	d := openInternal(t)
	require.Contains(t, d.info.Extra["timing"], "host clock")
	s, err := d.NewStream()
	require.NoError(t, err)
	defer s.Close()
	b, err := d.Alloc(4 << 20)
	require.NoError(t, err)
	defer b.Close()
	e0, err := s.Record()
	require.NoError(t, err)
	for i := 0; i < 10; i++ {
		require.NoError(t, s.Fill(b, 0, 4<<20, 0x3f800000))
	}
	e1, err := s.Record()
	require.NoError(t, err)
	require.True(t, e1.(*event).HostTimed())
	require.NoError(t, e1.Synchronize(context.Background()))
	done, err := e0.Done()
	require.NoError(t, err)
	require.True(t, done)
	dt, err := e1.Elapsed(e0)
	require.NoError(t, err)
	require.GreaterOrEqual(t, dt, time.Duration(0))
	require.NoError(t, e0.Close())
	require.NoError(t, e1.Close())
}

// TestCloseWithPendingWork closes a device with downloads still in flight
// (and, as the root package does, leaves a buffer still open to the
// device).
func TestCloseWithPendingWork(t *testing.T) {
	backendtest.SkipUnlessAvailable(t, Driver{})
	dv, err := open(context.Background(), 0)
	require.NoError(t, err)
	d := dv.(*device)
	s, err := d.NewStream()
	require.NoError(t, err)
	b, err := d.Alloc(1 << 20)
	require.NoError(t, err)
	require.NoError(t, s.Fill(b, 0, 1<<20, 7))
	dst := make([]byte, 1<<20)
	require.NoError(t, s.Read(dst, b, 0))
	require.NoError(t, d.Close())
	require.Equal(t, byte(7), dst[0], "Close waited for the download")
	require.Equal(t, errors.Closed, errors.CategoryOf(s.Synchronize(context.Background())), "a stream racing its device's Close")
}
