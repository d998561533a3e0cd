//go:build darwin

package metal

import (
	"context"
	"encoding/binary"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/backend/metal/internal/objc"
	"github.com/anygpu/gpu/errors"
	"github.com/anygpu/gpu/kernels"
)

// openMetal opens Metal device 0 through the root package, or skips.
func openMetal(t *testing.T) *gpu.Device {
	t.Helper()
	ctx := context.Background()
	if _, err := (Driver{}).Probe(ctx); err != nil {
		t.Skip("no Metal:", err)
	}
	dev, err := gpu.OpenDriver(ctx, Driver{}, 0)
	require.NoError(t, err)
	t.Cleanup(func() { _ = dev.Close() })
	return dev
}

// foreignMTLBuffer makes an MTLBuffer (+1, the caller's) of size bytes with
// options on the device's MTLDevice, as another library would.
func foreignMTLBuffer(t *testing.T, dev *gpu.Device, size int, options uintptr) objc.ID {
	t.Helper()
	nd, err := dev.NativeDevice()
	require.NoError(t, err)
	require.NotZero(t, nd.Device)
	obj := objc.ID(objc.ID(nd.Device).Send2(objc.SelNewBufferWithLength, uintptr(size), options))
	require.NotZero(t, obj)
	return obj
}

// TestBorrowForeignMTLBuffer: MTLBuffers another library made on the
// device's MTLDevice, shared and private, are written, read and used by
// built-in kernels in place through Device.Borrow; Close leaves them to
// their owner.
func TestBorrowForeignMTLBuffer(t *testing.T) {
	dev := openMetal(t)
	ctx := context.Background()
	mod, err := dev.Compile(ctx, kernels.Source())
	require.NoError(t, err)
	defer mod.Close()
	fill, err := mod.Kernel(kernels.OpFill)
	require.NoError(t, err)
	axpy, err := mod.Kernel(kernels.OpAxpy)
	require.NoError(t, err)
	const n = 1024
	xs := make([]float32, n)
	for i := range xs {
		xs[i] = float32(3 * i)
	}
	x, err := gpu.FromSlice(ctx, dev, xs)
	require.NoError(t, err)
	defer x.Close()
	want := make([]float32, n)
	for i := range want {
		want[i] = 2 + 0.5*xs[i]
	}
	for _, tc := range []struct {
		name    string
		options uintptr
	}{
		{"shared", resourceStorageShared},
		{"private", resourceStoragePrivate},
	} {
		obj := foreignMTLBuffer(t, dev, 4*n, tc.options)
		live := dev.Stats().LiveBytes
		b, err := dev.Borrow(uintptr(obj), 4*n)
		require.NoError(t, err, tc.name)
		require.True(t, b.Borrowed())
		h, err := b.NativeHandle()
		require.NoError(t, err)
		require.Equal(t, uintptr(obj), h, "%s: the owner's MTLBuffer", tc.name)
		st := dev.DefaultStream()
		grid, block := gpu.D1((n+63)/64), gpu.D1(64)
		require.NoError(t, st.Launch(fill, grid, block, gpu.Buf(b), gpu.U32(n), gpu.F32(2)))
		require.NoError(t, st.Launch(axpy, grid, block, gpu.Buf(b), gpu.Buf(x), gpu.U32(n), gpu.F32(0.5)))
		got, err := gpu.ToSlice[float32](ctx, b)
		require.NoError(t, err)
		require.Equal(t, want, got, tc.name)
		require.Equal(t, live, dev.Stats().LiveBytes, "%s: borrowed memory is not counted", tc.name)
		if tc.options == resourceStorageShared {
			mem := objc.Bytes(obj.Send(objc.SelContents), 4*n)
			for i, w := range want {
				require.Equal(t, w, math.Float32frombits(binary.LittleEndian.Uint32(mem[4*i:])), "%s: the owner's memory, [%d]", tc.name, i)
			}
		}
		require.NoError(t, b.Close())
		// Still the owner's: borrow it again and read it.
		again, err := dev.Borrow(uintptr(obj), 4*n)
		require.NoError(t, err)
		got, err = gpu.ToSlice[float32](ctx, again)
		require.NoError(t, err)
		require.Equal(t, want, got, "%s: closing the borrowed buffer freed nothing", tc.name)
		require.NoError(t, again.Close())
		obj.Release()
	}
}

// TestBorrowMTLBufferChecks: what Borrow checks about the object it is
// handed.
func TestBorrowMTLBufferChecks(t *testing.T) {
	dev := openMetal(t)
	obj := foreignMTLBuffer(t, dev, 4096, resourceStorageShared)
	defer obj.Release()
	nd, err := dev.NativeDevice()
	require.NoError(t, err)
	for _, tc := range []struct {
		name   string
		handle uintptr
		size   int64
		want   string // "" for success
	}{
		{"the whole buffer", uintptr(obj), 4096, ""},
		{"a prefix", uintptr(obj), 100, ""},
		{"larger than the buffer", uintptr(obj), 4097, "larger than the buffer"},
		{"not a buffer", nd.Device, 16, "not an MTLBuffer"},
	} {
		b, err := dev.Borrow(tc.handle, tc.size)
		if tc.want == "" {
			require.NoError(t, err, tc.name)
			require.Equal(t, tc.size, b.Size())
			require.NoError(t, b.Close())
			continue
		}
		require.Equal(t, errors.InvalidArgument, errors.CategoryOf(err), "%s: %v", tc.name, err)
		require.Contains(t, err.Error(), tc.want, tc.name)
		require.NotEmpty(t, errors.Hint(err), tc.name)
	}
}
