package tensor

import (
	"context"
	"testing"

	"github.com/anygpu/gpu"
	"github.com/stretchr/testify/require"
)

func TestSmoke(t *testing.T) {
	forEachDevice(t, func(t *testing.T, dev *gpu.Device) {
		ctx := context.Background()
		x, err := FromSlice(ctx, dev, []float32{1, 2, 3, 4, 5, 6}, 2, 3)
		require.NoError(t, err)
		defer x.Close()
		xt, err := x.Transpose(0, 1)
		require.NoError(t, err)
		defer xt.Close()
		got, err := xt.ToFloat32(ctx)
		require.NoError(t, err)
		require.Equal(t, []float32{1, 4, 2, 5, 3, 6}, got)
		s, err := Sum(x, 1)
		require.NoError(t, err)
		defer s.Close()
		got, err = s.ToFloat32(ctx)
		require.NoError(t, err)
		require.Equal(t, []float32{6, 15}, got)
	})
}
