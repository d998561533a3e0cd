package tensor

import (
	"context"
	"testing"

	"github.com/anygpu/gpu"
	"github.com/stretchr/testify/require"
)

// TestPrepare: Prepare compiles the ops under the caller's context; a
// compilation that the context ended is not kept, so the next one succeeds
// and ops run.
func TestPrepare(t *testing.T) {
	forEachDevice(t, func(t *testing.T, dev *gpu.Device) {
		ctx := context.Background()
		require.NoError(t, Release(ctx, dev)) // compile afresh
		ended, cancel := context.WithCancel(ctx)
		cancel()
		require.ErrorIs(t, Prepare(ended, dev), context.Canceled)
		ds := stateOf(dev)
		require.ErrorIs(t, ds.compileOps(ended), context.Canceled, "the ops compiled under an ended context")
		_, err := ds.compileSgemm(ended)
		require.ErrorIs(t, err, context.Canceled, "sgemm compiled under an ended context")

		require.NoError(t, Prepare(ctx, dev))
		x, err := FromSlice(ctx, dev, []float32{1, -2, 3}, 3)
		require.NoError(t, err)
		defer x.Close()
		y, err := Add(x, x)
		require.NoError(t, err)
		defer y.Close()
		got, err := y.ToFloat32(ctx)
		require.NoError(t, err)
		require.Equal(t, []float32{2, -4, 6}, got)
	})
}

func TestPrepareErrors(t *testing.T) {
	dev := cpuDevice(t)
	require.ErrorContains(t, Prepare(context.Background(), nil), "nil device")
	require.ErrorContains(t, Prepare(nil, dev), "nil context")
}
