package gpu_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/backend/cpu"
	"github.com/anygpu/gpu/errors"
)

// matMulDriver is the CPU backend with streams that record the MatMulArgs
// the root hands them, so the root's checks and defaults show.
type matMulDriver struct {
	cpu.Driver
	got *[]backend.MatMulArgs
}

func (d matMulDriver) Open(ctx context.Context, ordinal int) (backend.Device, error) {
	dev, err := cpu.Driver{}.Open(ctx, ordinal)
	return matMulDevice{dev, d.got}, err
}

type matMulDevice struct {
	backend.Device
	got *[]backend.MatMulArgs
}

func (d matMulDevice) NewStream() (backend.Stream, error) {
	s, err := d.Device.NewStream()
	return matMulStream{s, d.got}, err
}

type matMulStream struct {
	backend.Stream
	got *[]backend.MatMulArgs
}

func (s matMulStream) MatMul(m backend.MatMulArgs) error {
	*s.got = append(*s.got, m)
	return nil
}

// TestMatMulChecks: Stream.MatMul refuses bad arguments with InvalidArgument
// before any backend sees them, fills in the defaults, and is NotSupported for
// a type the backend's library does not multiply.
func TestMatMulChecks(t *testing.T) {
	ctx := context.Background()
	var got []backend.MatMulArgs
	dev, err := gpu.OpenDriver(ctx, matMulDriver{got: &got}, 0)
	require.NoError(t, err)
	defer dev.Close()
	a, err := dev.Alloc(6 * 4) // 2×3 float32
	require.NoError(t, err)
	defer a.Close()
	b, err := dev.Alloc(3 * 4 * 4) // 3×4 float32
	require.NoError(t, err)
	defer b.Close()
	c, err := dev.Alloc(2 * 4 * 4) // 2×4 float32
	require.NoError(t, err)
	defer c.Close()
	small, err := dev.Alloc(4)
	require.NoError(t, err)
	defer small.Close()
	s := dev.DefaultStream()
	base := gpu.MatMul{M: 2, N: 4, K: 3, A: a, B: b, C: c, In: gpu.MatMulFloat32}

	for _, tc := range []struct {
		name string
		edit func(m *gpu.MatMul)
		msg  string // "" succeeds
	}{
		{"plain", func(m *gpu.MatMul) {}, ""},
		{"transposed B of the right size", func(m *gpu.MatMul) { m.TransB = true }, ""},
		{"empty product", func(m *gpu.MatMul) { m.M = 0 }, ""},
		{"negative size", func(m *gpu.MatMul) { m.K = -1 }, "negative size"},
		{"no type", func(m *gpu.MatMul) { m.In = 0 }, "input type"},
		{"int32 input", func(m *gpu.MatMul) { m.In = gpu.MatMulInt32 }, "input type"},
		{"nil A", func(m *gpu.MatMul) { m.A = nil }, "nil A buffer"},
		{"A too small", func(m *gpu.MatMul) { m.A = small }, "A (2×3"},
		{"short leading dimension", func(m *gpu.MatMul) { m.LDB = 3 }, "LDB 3 is less than the 4 columns"},
		{"long leading dimension overruns", func(m *gpu.MatMul) { m.LDC = 5 }, "C (2×4, ld 5"},
		{"misaligned offset", func(m *gpu.MatMul) { m.AOffset = 2 }, "A offset 2"},
		{"negative batch", func(m *gpu.MatMul) { m.Batch = -1 }, "negative Batch"},
		{"batch overruns", func(m *gpu.MatMul) { m.Batch = 2; m.StrideC = 8 }, "batch 2"},
		{"batch writing one C", func(m *gpu.MatMul) { m.Batch = 2; m.StrideA, m.StrideB = 0, 0 }, "StrideC is 0"},
		{"float16 C too small for float32", func(m *gpu.MatMul) { m.In = gpu.MatMulFloat16; m.Out = gpu.MatMulFloat32; m.C = small }, "C (2×4"},
		{"bias", func(m *gpu.MatMul) { m.Bias = b }, ""},
		{"bias too short", func(m *gpu.MatMul) { m.Bias = small }, "Bias (4 elements of float32)"},
		{"bias overrunning", func(m *gpu.MatMul) { m.Bias, m.BiasOffset = b, 36 }, "Bias (4 elements"},
		{"misaligned bias", func(m *gpu.MatMul) { m.Bias, m.BiasOffset = b, 2 }, "Bias offset 2"},
		{"bias offset without a bias", func(m *gpu.MatMul) { m.BiasOffset = 4 }, "BiasOffset 4 without a Bias"},
		{"separate D", func(m *gpu.MatMul) { m.D = b }, ""},
		{"D too small", func(m *gpu.MatMul) { m.D = small }, "D (2×4"},
		{"misaligned D", func(m *gpu.MatMul) { m.D, m.DOffset = b, 2 }, "D offset 2"},
		{"D offset without a D", func(m *gpu.MatMul) { m.DOffset = 4 }, "DOffset 4 without a D"},
		{"gelu", func(m *gpu.MatMul) { m.Activation = gpu.MatMulGELU }, ""},
		{"gelu after a bias", func(m *gpu.MatMul) { m.Activation, m.Bias = gpu.MatMulGELU, b }, ""},
		{"relu into a separate D", func(m *gpu.MatMul) { m.Activation, m.D = gpu.MatMulReLU, b }, ""},
		{"unknown activation", func(m *gpu.MatMul) { m.Activation = gpu.MatMulReLU + 1 }, "activation MatMulActivation(3) is not one of"},
		{"negative activation", func(m *gpu.MatMul) { m.Activation = -1 }, "activation MatMulActivation(-1) is not one of"},
		{"gelu with beta", func(m *gpu.MatMul) { m.Activation, m.Beta = gpu.MatMulGELU, 1 }, "activation gelu with Beta 1"},
		{"relu with beta into D", func(m *gpu.MatMul) { m.Activation, m.Beta, m.D = gpu.MatMulReLU, -0.5, b }, "activation relu with Beta -0.5"},
		{"gelu of int32", func(m *gpu.MatMul) { m.Activation, m.In = gpu.MatMulGELU, gpu.MatMulInt8 }, "activation gelu of an int32 output"},
		{"relu of int32", func(m *gpu.MatMul) { m.Activation, m.In = gpu.MatMulReLU, gpu.MatMulInt8 }, "activation relu of an int32 output"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := base
			tc.edit(&m)
			got = got[:0]
			err := s.MatMul(m)
			if tc.msg != "" {
				require.ErrorIs(t, err, errors.InvalidArgument)
				require.ErrorContains(t, err, tc.msg)
				require.Empty(t, got, "the backend saw a refused product")
				return
			}
			require.NoError(t, err)
			if m.M == 0 {
				require.Empty(t, got, "an empty product reached the backend")
				return
			}
			require.Len(t, got, 1)
			g := got[0]
			require.Equal(t, 1, g.Batch)
			require.Equal(t, float32(1), g.Alpha, "zero Alpha and Beta mean a plain product")
			require.Equal(t, gpu.MatMulFloat32, g.Out)
			require.Equal(t, 4, g.LDC)
			require.Equal(t, m.Bias != nil, g.Bias != nil, "the bias reaches the backend")
			require.Equal(t, m.D != nil, g.D != nil, "D reaches the backend")
			require.Equal(t, m.Activation, g.Act, "the activation reaches the backend")
			if m.TransB {
				require.Equal(t, 3, g.LDB)
			} else {
				require.Equal(t, 4, g.LDB)
			}
		})
	}

	t.Run("int8 defaults to an int32 output", func(t *testing.T) {
		got = got[:0]
		require.NoError(t, s.MatMul(gpu.MatMul{M: 2, N: 4, K: 3, A: a, B: b, C: c, In: gpu.MatMulInt8}))
		require.Len(t, got, 1)
		require.Equal(t, gpu.MatMulInt32, got[0].Out)
	})

	t.Run("no library for the type", func(t *testing.T) {
		// The CPU backend's library multiplies float32 only.
		plain, err := gpu.OpenDriver(ctx, cpu.Driver{}, 0)
		require.NoError(t, err)
		defer plain.Close()
		x, err := plain.Alloc(64)
		require.NoError(t, err)
		defer x.Close()
		err = plain.DefaultStream().MatMul(gpu.MatMul{M: 2, N: 2, K: 2, A: x, B: x, C: x, In: gpu.MatMulFloat16})
		require.ErrorIs(t, err, errors.NotSupported)
	})

	t.Run("nil stream", func(t *testing.T) {
		var ns *gpu.Stream
		require.ErrorIs(t, ns.MatMul(base), errors.InvalidArgument)
	})
}
