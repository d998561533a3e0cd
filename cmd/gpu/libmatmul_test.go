package main

import (
	"context"
	"errors"
	"testing"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/backend/cpu"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hostMatMulDriver is the CPU backend with streams that multiply packed,
// untransposed matrices on the host (reading and writing the buffers through
// the backend stream), a quarter off in its last element when wrong is set:
// a device with a matrix library, for the library metrics.
type hostMatMulDriver struct {
	cpu.Driver
	wrong bool
}

func (d hostMatMulDriver) Open(ctx context.Context, ordinal int) (backend.Device, error) {
	dev, err := cpu.Driver{}.Open(ctx, ordinal)
	return hostMatMulDevice{dev, d.wrong}, err
}

type hostMatMulDevice struct {
	backend.Device
	wrong bool
}

func (d hostMatMulDevice) NewStream() (backend.Stream, error) {
	s, err := d.Device.NewStream()
	return hostMatMulStream{s, d.wrong}, err
}

type hostMatMulStream struct {
	backend.Stream
	wrong bool
}

func (s hostMatMulStream) MatMul(m backend.MatMulArgs) error {
	t := gpu.MatMulType(m.In)
	size := int(t.Size())
	read := func(b backend.Buffer, off int64, n int) ([]byte, error) {
		raw := make([]byte, n*size)
		if err := s.Read(raw, b, off); err != nil {
			return nil, err
		}
		return raw, s.Synchronize(context.Background())
	}
	a, err := read(m.A, m.AOffset, m.M*m.K)
	if err != nil {
		return err
	}
	b, err := read(m.B, m.BOffset, m.K*m.N)
	if err != nil {
		return err
	}
	c := make([]byte, m.M*m.N*size)
	for i := range m.M {
		for j := range m.N {
			var acc float32
			for p := range m.K {
				acc += float32(getElement(t, a[(i*m.K+p)*size:]) * getElement(t, b[(p*m.N+j)*size:]))
			}
			putElement(t, c[(i*m.N+j)*size:], acc)
			if s.wrong && i == m.M-1 && j == m.N-1 {
				c[(i*m.N+j)*size+size-2] ^= 0x20 // a quarter of the value
			}
		}
	}
	return s.Write(m.C, m.COffset, c)
}

func TestLibraryMatMulMetrics(t *testing.T) {
	ctx := context.Background()
	sz := sizesFor(gpu.DeviceInfo{}, false, true)
	sz.SgemmN, sz.SgemmReps = 24, 2
	open := func(t *testing.T, d backend.Driver) *runner {
		dev, err := gpu.OpenDriver(ctx, d, 0)
		require.NoError(t, err)
		t.Cleanup(func() { _ = dev.Close() })
		r, err := newRunner(ctx, dev, sz)
		require.NoError(t, err)
		t.Cleanup(r.close)
		return r
	}
	t.Run("measured and checked", func(t *testing.T) {
		r := open(t, hostMatMulDriver{})
		for _, m := range []func(*runner) (float64, error){(*runner).matMulBF16, (*runner).matMulF32} {
			v, err := m(r)
			require.NoError(t, err)
			assert.Positive(t, v)
			r.endGroup()
		}
	})
	t.Run("a wrong result is an error", func(t *testing.T) {
		r := open(t, hostMatMulDriver{wrong: true})
		_, err := r.matMulBF16()
		require.ErrorContains(t, err, "matmul bfloat16 C[47,47]")
		r.endGroup()
		_, err = r.matMulF32()
		require.ErrorContains(t, err, "matmul float32 C[23,23]")
	})
	t.Run("no matrix library: not applicable", func(t *testing.T) {
		r := open(t, cpu.Driver{})
		_, err := r.matMulBF16()
		require.True(t, errors.Is(err, errNotApplicable), "%v", err)
	})
	for _, name := range libraryMetrics {
		require.True(t, isLibraryMetric(name))
		require.Contains(t, metricNames(), name)
	}
	require.False(t, isLibraryMetric(mSgemm))
}
