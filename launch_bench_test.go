package gpu_test

import (
	"context"
	"testing"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/backend/cpu"
	"github.com/anygpu/gpu/kernels"
)

// nopDriver opens a CPU device whose streams' Launch does nothing, so that a
// benchmark of Stream.Launch measures the root package's own cost per launch.
type nopDriver struct{ copies bool }

func (nopDriver) Name() string { return "test-nop" }

func (nopDriver) Probe(ctx context.Context) ([]backend.DeviceInfo, error) {
	return []backend.DeviceInfo{cpuInfo(ctx)}, nil
}

func (d nopDriver) Open(ctx context.Context, ordinal int) (backend.Device, error) {
	return nopDevice{cpu.OpenInfo(cpuInfo(ctx)), d.copies}, nil
}

type nopDevice struct {
	backend.Device
	copies bool // its streams implement LaunchCopiesArgs
}

func (d nopDevice) NewStream() (backend.Stream, error) {
	s, err := d.Device.NewStream()
	if d.copies {
		return copyingStream{nopStream{s}}, err
	}
	return nopStream{s}, err
}

type nopStream struct{ backend.Stream }

func (nopStream) Launch(backend.Kernel, backend.Dim3, backend.Dim3, []backend.Arg) error { return nil }

// BenchmarkLaunchRoot is the root package's cost of one Stream.Launch (argument
// checks, conversion, accounting) over a backend whose Launch returns at once.
func BenchmarkLaunchRoot(b *testing.B) {
	b.Run("fresh-args", func(b *testing.B) { benchLaunchRoot(b, false) })
	b.Run("reused-args", func(b *testing.B) { benchLaunchRoot(b, true) })
}

func benchLaunchRoot(b *testing.B, copies bool) {
	ctx := context.Background()
	dev, err := gpu.OpenDriver(ctx, nopDriver{copies: copies}, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer dev.Close()
	mod, err := dev.Compile(ctx, kernels.Source())
	if err != nil {
		b.Fatal(err)
	}
	fill, err := mod.Kernel(kernels.OpFill)
	if err != nil {
		b.Fatal(err)
	}
	y, err := dev.Alloc(4)
	if err != nil {
		b.Fatal(err)
	}
	s, err := dev.NewStream()
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	b.ReportAllocs()
	for b.Loop() {
		if err := s.Launch(fill, gpu.D1(1), gpu.D1(1), gpu.Buf(y), gpu.U32(1), gpu.F32(1)); err != nil {
			b.Fatal(err)
		}
	}
}

// copyingStream is nopStream that declares it copies the arguments.
type copyingStream struct{ nopStream }

func (copyingStream) LaunchCopiesArgs() bool { return true }

var _ backend.ArgsCopier = copyingStream{}
