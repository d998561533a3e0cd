package gpu_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/errors"
	"github.com/stretchr/testify/require"
)

// TestNilObjects calls the public API on nil objects: every call returns an
// error of category InvalidArgument (or is a harmless no-op), none panics.
func TestNilObjects(t *testing.T) {
	ctx := context.Background()
	var (
		d *gpu.Device
		b *gpu.Buffer
		h *gpu.HostBuffer
		s *gpu.Stream
		e *gpu.Event
		m *gpu.Module
		k *gpu.Kernel
	)
	invalid := func(name string, err error) {
		t.Helper()
		require.Error(t, err, name)
		require.Equal(t, errors.InvalidArgument, errors.CategoryOf(err), "%s: %v", name, err)
	}
	_, err := d.Alloc(1)
	invalid("Device.Alloc", err)
	_, err = d.AllocHost(1)
	invalid("Device.AllocHost", err)
	_, err = d.NewStream()
	invalid("Device.NewStream", err)
	_, err = d.Compile(ctx, gpu.Source{})
	invalid("Device.Compile", err)
	invalid("Device.Synchronize", d.Synchronize(ctx))
	_, _, err = d.MemInfo()
	invalid("Device.MemInfo", err)
	require.NoError(t, d.Close())

	_, err = b.ReadAt(make([]byte, 1), 0)
	invalid("Buffer.ReadAt", err)
	_, err = b.WriteAt([]byte{1}, 0)
	invalid("Buffer.WriteAt", err)
	_, err = b.ReadFrom(bytes.NewReader(nil))
	invalid("Buffer.ReadFrom", err)
	_, err = b.NativeHandle()
	invalid("Buffer.NativeHandle", err)
	require.NoError(t, b.Close())
	require.Nil(t, h.Bytes())
	require.NoError(t, h.Close())

	invalid("Stream.Write", s.Write(b, 0, []byte{1}))
	invalid("Stream.Read", s.Read([]byte{1}, b, 0))
	invalid("Stream.Copy", s.Copy(b, 0, b, 0, 1))
	invalid("Stream.Fill", s.Fill(b, 0, 4, 0))
	invalid("Stream.Launch", s.Launch(k, gpu.D1(1), gpu.D1(1)))
	invalid("Stream.WriteHost", s.WriteHost(b, 0, h, 0, 1))
	invalid("Stream.ReadHost", s.ReadHost(h, 0, b, 0, 1))
	_, err = s.Record()
	invalid("Stream.Record", err)
	invalid("Stream.Wait", s.Wait(e))
	invalid("Stream.Synchronize", s.Synchronize(ctx))
	require.NoError(t, s.Close())

	invalid("Event.Synchronize", e.Synchronize(ctx))
	_, err = e.Done()
	invalid("Event.Done", err)
	_, err = e.Elapsed(e)
	invalid("Event.Elapsed", err)
	require.NoError(t, e.Close())

	_, err = m.Kernel("x")
	invalid("Module.Kernel", err)
	require.NoError(t, m.Close())
	_, err = k.Attributes()
	invalid("Kernel.Attributes", err)

	invalid("Upload", gpu.Upload[float32](s, b, []float32{1}))
	invalid("Download", gpu.Download[float32](s, []float32{1}, b))
	_, err = gpu.AllocSlice[float32](d, 1)
	invalid("AllocSlice", err)
	_, err = gpu.FromSlice(ctx, d, []float32{1})
	invalid("FromSlice", err)
	_, err = gpu.ToSlice[float32](ctx, b)
	invalid("ToSlice", err)

	// Nil arguments on live objects.
	dev, err := gpu.Open(ctx, gpu.WithBackends("cpu"))
	require.NoError(t, err)
	defer dev.Close()
	st := dev.DefaultStream()
	invalid("Wait(nil)", st.Wait(nil))
	invalid("Synchronize(nil ctx)", st.Synchronize(nil)) //nolint:staticcheck // the point of the test
	buf, err := dev.Alloc(16)
	require.NoError(t, err)
	defer buf.Close()
	_, err = buf.ReadFromContext(ctx, nil, nil)
	invalid("ReadFrom(nil reader)", err)
	ev, err := st.Record()
	require.NoError(t, err)
	_, err = ev.Elapsed(nil)
	invalid("Elapsed(nil)", err)
}
