package kernel_test

import (
	"context"
	"testing"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/backend/opengl"
	"github.com/anygpu/gpu/backend/vulkan"
	"github.com/anygpu/gpu/backend/webgpu"
	"github.com/anygpu/gpu/errors"
	"github.com/anygpu/gpu/internal/testreq"
	"github.com/anygpu/gpu/kernel"
	"github.com/stretchr/testify/require"
)

// mixedSource has a float64 kernel, which only CUDA and the CPU run, and a
// float32 one, which every backend runs.
const mixedSource = `package mixed

import "github.com/anygpu/gpu/kernel"

//gpu:kernel
func Half64(v []float64, n uint32) {
	if i := kernel.GlobalX(); i < n {
		v[i] = v[i] / 2
	}
}

//gpu:kernel
func Half32(v []float32, n uint32) {
	if i := kernel.GlobalX(); i < n {
		v[i] = v[i] / 2
	}
}
`

func TestTranslateUnsupportedKernel(t *testing.T) {
	ctx := context.Background()
	src, err := kernel.Translate(mixedSource)
	require.NoError(t, err)
	require.Equal(t, "mixed", src.Name)
	require.Contains(t, src.Unsupported["Half64"], "float64")
	require.NotContains(t, src.Unsupported, "Half32")
	require.NotContains(t, src.WGSL, "fn Half64")
	require.Contains(t, src.CUDA, "Half64")

	cpu, err := gpu.Open(ctx, gpu.WithBackends("cpu"))
	require.NoError(t, err)
	defer cpu.Close()
	mod, err := cpu.Compile(ctx, src)
	require.NoError(t, err)
	k, err := mod.Kernel("Half64")
	require.NoError(t, err, "the CPU runs float64 kernels")
	buf, err := gpu.FromSlice(ctx, cpu, []float64{1, 3, 5})
	require.NoError(t, err)
	require.NoError(t, cpu.DefaultStream().Launch(k, gpu.D1(1), gpu.D1(64), gpu.Buf(buf), gpu.U32(3)))
	out, err := gpu.ToSlice[float64](ctx, buf)
	require.NoError(t, err)
	require.Equal(t, []float64{0.5, 1.5, 2.5}, out)

	for _, drv := range []backend.Driver{webgpu.Driver{}, vulkan.Driver{}, opengl.Driver{}} {
		t.Run(drv.Name(), func(t *testing.T) {
			testreq.SkipUnlessAvailable(t, drv)
			dev, err := gpu.Open(ctx, gpu.WithBackends(drv.Name()))
			require.NoError(t, err)
			defer dev.Close()
			mod, err := dev.Compile(ctx, src)
			require.NoError(t, err)
			_, err = mod.Kernel("Half32")
			require.NoError(t, err)
			_, err = mod.Kernel("Half64")
			require.True(t, errors.Is(err, errors.NotSupported), "%v", err)
			require.Contains(t, err.Error(), "float64")
		})
	}
}
