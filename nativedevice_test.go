package gpu_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/errors"
)

// TestNativeDeviceNotSupported: a backend without native device handles
// says so with NotSupported and a hint; a closed or nil device is refused.
// (Vulkan's handles are tested in backend/vulkan, CUDA's over the fake
// driver in backend/cuda.)
func TestNativeDeviceNotSupported(t *testing.T) {
	dev, err := gpu.Open(context.Background(), gpu.WithBackends("cpu"))
	require.NoError(t, err)
	nd, err := dev.NativeDevice()
	require.Equal(t, errors.NotSupported, errors.CategoryOf(err), "%v", err)
	require.Contains(t, err.Error(), "cpu backend exposes no native device handles")
	require.NotEmpty(t, errors.Hint(err))
	require.Zero(t, nd)
	require.NoError(t, dev.Close())
	_, err = dev.NativeDevice()
	require.Equal(t, errors.Closed, errors.CategoryOf(err), "%v", err)
	var nilDev *gpu.Device
	_, err = nilDev.NativeDevice()
	require.Equal(t, errors.InvalidArgument, errors.CategoryOf(err), "%v", err)
}
