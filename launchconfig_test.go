package gpu_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/backend/cpu"
	"github.com/anygpu/gpu/errors"
	"github.com/anygpu/gpu/kernels"
)

// limitedDriver is the CPU backend reporting a CUDA device's shared memory
// limit, so that the root's check against it shows.
type limitedDriver struct{ cpu.Driver }

func (limitedDriver) Open(ctx context.Context, ordinal int) (backend.Device, error) {
	d, err := cpu.Driver{}.Open(ctx, ordinal)
	return limitedDevice{d}, err
}

type limitedDevice struct{ backend.Device }

func (d limitedDevice) Info() backend.DeviceInfo {
	i := d.Device.Info()
	i.SharedMemPerBlock, i.SharedMemPerBlockOptin = 48<<10, 227<<10
	return i
}

// TestLaunchWithOptions: on backends that cannot size shared memory at
// launch or launch cooperatively (the CPU backend, also made to report a
// CUDA device's limits), LaunchWith refuses with NotSupported,
// or with InvalidArgument when the amount is beyond the device's limit;
// without options it is Launch. (The CUDA backend's side is tested over the
// fake driver in backend/cuda.)
func TestLaunchWithOptions(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name   string
		driver backend.Driver
		limit  int // the device's shared memory per block (0: unknown)
	}{
		{"cpu", cpu.Driver{}, 0},
		{"a device with a limit", limitedDriver{}, 227 << 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dev, err := gpu.OpenDriver(ctx, tc.driver, 0)
			require.NoError(t, err)
			defer dev.Close()
			require.Equal(t, tc.limit, dev.Info().SharedMemPerBlockOptin)
			mod, err := dev.Compile(ctx, kernels.Source())
			require.NoError(t, err)
			defer mod.Close()
			fill, err := mod.Kernel(kernels.OpFill) // (buffer, u32, f32)
			require.NoError(t, err)
			y, err := dev.Alloc(256)
			require.NoError(t, err)
			defer y.Close()
			args := []gpu.Arg{gpu.Buf(y), gpu.U32(64), gpu.F32(2)}
			s := dev.DefaultStream()
			for _, c := range []struct {
				name string
				cfg  gpu.LaunchConfig
				cat  errors.Category // 0: succeeds
				msg  string
			}{
				{"no options: Launch", gpu.LaunchConfig{Grid: gpu.D1(1), Block: gpu.D1(64)}, 0, ""},
				{"shared memory", gpu.LaunchConfig{Grid: gpu.D1(1), Block: gpu.D1(64), SharedMemBytes: 1024}, errors.NotSupported, "dynamic shared memory"},
				{"cooperative", gpu.LaunchConfig{Grid: gpu.D1(1), Block: gpu.D1(64), Cooperative: true}, errors.NotSupported, "cooperative"},
				{"negative shared memory", gpu.LaunchConfig{Grid: gpu.D1(1), Block: gpu.D1(64), SharedMemBytes: -4}, errors.InvalidArgument, "negative"},
				{"bad geometry first", gpu.LaunchConfig{Grid: gpu.D1(0), Block: gpu.D1(64), SharedMemBytes: 1024}, errors.InvalidArgument, "grid"},
			} {
				err := s.LaunchWith(fill, c.cfg, args...)
				if c.cat == 0 {
					require.NoError(t, err, c.name)
					continue
				}
				require.Equal(t, c.cat, errors.CategoryOf(err), "%s: %v", c.name, err)
				require.Contains(t, err.Error(), c.msg, c.name)
				require.NotEmpty(t, errors.Hint(err), c.name)
			}
			err = s.LaunchWith(fill, gpu.LaunchConfig{Grid: gpu.D1(1), Block: gpu.D1(64), SharedMemBytes: 1 << 30}, args...)
			if tc.limit > 0 {
				require.Equal(t, errors.InvalidArgument, errors.CategoryOf(err), "%v", err)
				require.Contains(t, err.Error(), "exceeds the device's")
			} else {
				require.Equal(t, errors.NotSupported, errors.CategoryOf(err), "%v", err)
			}
			require.NoError(t, s.Synchronize(ctx))
			got := make([]float32, 64)
			require.NoError(t, gpu.Download(s, got, y))
			require.NoError(t, s.Synchronize(ctx))
			require.Equal(t, float32(2), got[63], "the launch without options ran")
		})
	}
}
