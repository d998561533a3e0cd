package tensor

import (
	"context"
	"testing"

	"github.com/anygpu/gpu"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOneTransferOut: a chain of ops over resident tensors, with views and
// a Peek on the way, makes exactly one D2H and no H2D after the inputs are
// uploaded; the per-tensor ledgers say which tensor moved what.
func TestOneTransferOut(t *testing.T) {
	forEachDevice(t, func(t *testing.T, dev *gpu.Device) {
		ctx := context.Background()
		x, err := FromSlice(ctx, dev, []float32{1, 2, 3, 4, 5, 6}, 2, 3)
		require.NoError(t, err)
		defer x.Close()
		g, err := FromSlice(ctx, dev, []float32{1, 1})
		require.NoError(t, err)
		defer g.Close()
		assert.Equal(t, gpu.Transfer{Count: 1, Bytes: 24}, x.Transfers().H2D)

		ResetDeviceTransfers(dev)
		xt, err := x.Transpose(0, 1)
		require.NoError(t, err)
		defer xt.Close()
		assert.Equal(t, gpu.TransferCounts{}, xt.Transfers(), "a view starts with an empty ledger")
		a, err := GELU(xt)
		require.NoError(t, err)
		defer a.Close()
		b, err := Add(a, xt)
		require.NoError(t, err)
		defer b.Close()
		_, err = b.Peek(ctx) // uncounted
		require.NoError(t, err)
		c, err := LayerNorm(b, g, nil, 1e-5)
		require.NoError(t, err)
		defer c.Close()
		s, err := Softmax(c)
		require.NoError(t, err)
		defer s.Close()
		m, err := Sum(s, 0)
		require.NoError(t, err)
		defer m.Close()
		out, err := m.ToFloat32(ctx)
		require.NoError(t, err)
		require.Len(t, out, 2)
		assert.InDelta(t, 3, out[0]+out[1], 1e-5, "three rows of probabilities")

		want := gpu.TransferCounts{D2H: gpu.Transfer{Count: 1, Bytes: 8}}
		assert.Equal(t, want, DeviceTransfers(dev), "one D2H for the whole chain")
		assert.Equal(t, want, m.Transfers())
		assert.Equal(t, gpu.TransferCounts{}, b.Transfers(), "Peek is not counted")
		x.ResetTransfers()
		assert.Equal(t, gpu.TransferCounts{}, x.Transfers())

		// CopyTo within the device is a D2D of the source.
		cp, err := xt.CopyTo(ctx, dev)
		require.NoError(t, err)
		defer cp.Close()
		assert.Equal(t, gpu.Transfer{Count: 1, Bytes: 24}, xt.Transfers().D2D)
		assert.Equal(t, gpu.Transfer{Count: 1, Bytes: 24}, DeviceTransfers(dev).D2D)
		ResetDeviceTransfers(dev)
		assert.Equal(t, gpu.TransferCounts{}, DeviceTransfers(dev))
	})
}

// TestCopyBetweenDevices copies a view from one backend's device to
// another's: a Peer transfer on the source tensor and the destination.
func TestCopyBetweenDevices(t *testing.T) {
	var devs []*gpu.Device
	for _, d := range devices {
		if d.dev != nil {
			devs = append(devs, d.dev)
		}
	}
	if len(devs) < 2 {
		t.Skip("one device")
	}
	ctx := context.Background()
	for i := range devs {
		src, dst := devs[i], devs[(i+1)%len(devs)]
		t.Run(src.Name()+" to "+dst.Name(), func(t *testing.T) {
			x, err := FromFloat32(ctx, src, BFloat16, []float32{1, 2, 3, 4, 5, 6}, 3, 2)
			require.NoError(t, err)
			defer x.Close()
			xt, err := x.Transpose(0, 1)
			require.NoError(t, err)
			defer xt.Close()
			ResetDeviceTransfers(dst)
			y, err := xt.CopyTo(ctx, dst)
			require.NoError(t, err)
			defer y.Close()
			assert.Same(t, dst, y.Device())
			assert.Equal(t, BFloat16, y.DType())
			got, err := y.Peek(ctx)
			require.NoError(t, err)
			assert.Equal(t, []float32{1, 3, 5, 2, 4, 6}, got)
			assert.Equal(t, gpu.Transfer{Count: 1, Bytes: 12}, xt.Transfers().Peer)
			assert.Equal(t, gpu.Transfer{Count: 1, Bytes: 12}, DeviceTransfers(dst).Peer)
		})
	}
}
