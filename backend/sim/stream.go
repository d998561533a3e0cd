package sim

import (
	"context"

	"github.com/anygpu/gpu/backend"
)

// NewStream creates a stream that executes on the CPU.
func (d *device) NewStream() (backend.Stream, error) {
	if err := d.check("new stream"); err != nil {
		return nil, err
	}
	s, err := d.inner.NewStream()
	if err != nil {
		return nil, d.translate(err, "new stream", false)
	}
	return &stream{dev: d, inner: s, hc: s.(backend.HostCopier)}, nil
}

// stream is a CPU stream of a simulated device that counts launches and
// fails fast once the device is lost.
type stream struct {
	dev   *device
	inner backend.Stream
	hc    backend.HostCopier // the inner stream's: every CPU stream is one
}

var (
	_ backend.Stream     = (*stream)(nil)
	_ backend.HostCopier = (*stream)(nil)
)

// do runs call on the CPU stream unless the device is lost, and makes its
// error the simulated backend's.
func (s *stream) do(op string, call func() error) error {
	if err := s.dev.check(op); err != nil {
		return err
	}
	return s.dev.translate(call(), op, false)
}

func (s *stream) Write(dst backend.Buffer, off int64, src []byte) error {
	return s.do("write", func() error { return s.inner.Write(dst, off, src) })
}

func (s *stream) Read(dst []byte, src backend.Buffer, off int64) error {
	return s.do("read", func() error { return s.inner.Read(dst, src, off) })
}

// WriteHost copies from a host buffer without staging, as the CPU stream does.
func (s *stream) WriteHost(dst backend.Buffer, off int64, src backend.HostBuffer, srcOff, n int64) error {
	return s.do("write host", func() error { return s.hc.WriteHost(dst, off, src, srcOff, n) })
}

// ReadHost copies into a host buffer without staging, as the CPU stream does.
func (s *stream) ReadHost(dst backend.HostBuffer, dstOff int64, src backend.Buffer, srcOff, n int64) error {
	return s.do("read host", func() error { return s.hc.ReadHost(dst, dstOff, src, srcOff, n) })
}

func (s *stream) Copy(dst backend.Buffer, dstOff int64, src backend.Buffer, srcOff, n int64) error {
	return s.do("copy", func() error { return s.inner.Copy(dst, dstOff, src, srcOff, n) })
}

func (s *stream) Fill(dst backend.Buffer, off, n int64, v uint32) error {
	return s.do("fill", func() error { return s.inner.Fill(dst, off, n, v) })
}

// Launch counts the launch against LoseAfterLaunches before running the Go
// kernel on the CPU.
func (s *stream) Launch(k backend.Kernel, grid, block backend.Dim3, args []backend.Arg) error {
	op := "launch " + k.Name()
	if err := s.dev.launch(op); err != nil {
		return err
	}
	return s.dev.translate(s.inner.Launch(k, grid, block, args), op, false)
}

func (s *stream) Record() (backend.Event, error) {
	var e backend.Event
	err := s.do("record", func() (err error) {
		e, err = s.inner.Record()
		return err
	})
	return e, err
}

func (s *stream) Wait(e backend.Event) error {
	return s.do("wait", func() error { return s.inner.Wait(e) })
}

// Synchronize waits for the stream's work; on a lost device it returns the
// device-lost error at once, as every call of a CUDA context with a sticky
// error does.
func (s *stream) Synchronize(ctx context.Context) error {
	return s.do("synchronize", func() error { return s.inner.Synchronize(ctx) })
}

// Close releases the stream, lost device or not.
func (s *stream) Close() error { return s.dev.translate(s.inner.Close(), "close stream", false) }
