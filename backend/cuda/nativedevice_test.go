package cuda

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu"
)

// TestNativeDeviceOverFakes: the native handles are the CUdevice and the
// primary context (the fake driver's is 0x1000 + the CUdevice) of the
// device's own GPU.
func TestNativeDeviceOverFakes(t *testing.T) {
	t.Setenv("FAKECUDA_COUNT", "2")
	s := openFake(t)
	for _, tc := range []struct {
		ordinal int
		want    gpu.NativeDevice
	}{
		{0, gpu.NativeDevice{Device: 0, Context: 0x1000}},
		{1, gpu.NativeDevice{Device: 1, Context: 0x1001}},
	} {
		dev := s.dev
		if tc.ordinal != 0 {
			var err error
			dev, err = gpu.OpenDriver(context.Background(), Driver{}, tc.ordinal)
			require.NoError(t, err)
			defer dev.Close()
		}
		nd, err := dev.NativeDevice()
		require.NoError(t, err)
		require.Equal(t, tc.want, nd, "GPU %d", tc.ordinal)
	}
}
