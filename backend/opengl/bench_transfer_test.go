//go:build linux

package opengl_test

import (
	"testing"

	"github.com/anygpu/gpu/backend/backendtest"
	"github.com/anygpu/gpu/backend/opengl"
)

// BenchmarkStaging times 64 MiB pageable Writes and Reads (with their
// Synchronize, on the host clock) through the staging ring and without it
// (EnvStaging on and off).
func BenchmarkStaging(b *testing.B) {
	const size = 64 << 20
	for _, mode := range []string{"on", "off"} {
		b.Run(mode, func(b *testing.B) {
			b.Setenv(opengl.EnvStaging, mode)
			e := backendtest.OpenBench(b, opengl.Driver{})
			buf, host := e.Alloc(b, size), make([]byte, size)
			for _, dir := range []backendtest.Direction{backendtest.H2D, backendtest.D2H} {
				b.Run(string(dir), func(b *testing.B) { e.Pageable(b, dir, buf, host) })
			}
		})
	}
}

// BenchmarkHostBuffer times 64 MiB WriteHost and ReadHost of a host buffer
// (AllocHost) between two events, as `gpu bench` times h2d_pinned_gbps and
// d2h_pinned_gbps; GB/s is over the device time.
func BenchmarkHostBuffer(b *testing.B) {
	const size = 64 << 20
	e := backendtest.OpenBench(b, opengl.Driver{})
	buf := e.Alloc(b, size)
	h, err := e.Dev.AllocHost(size)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = h.Close() })
	for _, dir := range []backendtest.Direction{backendtest.H2D, backendtest.D2H} {
		b.Run(string(dir), func(b *testing.B) {
			t := e.TimeOnDevice(b, 1, func() error {
				if dir == backendtest.H2D {
					return e.Stream.WriteHost(buf, 0, h, 0, size)
				}
				return e.Stream.ReadHost(h, 0, buf, 0, size)
			})
			b.ReportMetric(t.DeviceRate(size)/1e9, "GB/s")
		})
	}
}

// BenchmarkCopy times a 64 MiB Copy within the device between two events,
// as `gpu bench` times d2d_gbps, with the copy shader and with
// glCopyBufferSubData (EnvCopy); GB/s is bytes copied over the device time.
func BenchmarkCopy(b *testing.B) {
	const size = 64 << 20
	for _, mode := range []string{"shader", "driver"} {
		b.Run(mode, func(b *testing.B) {
			b.Setenv(opengl.EnvCopy, mode)
			e := backendtest.OpenBench(b, opengl.Driver{})
			src, dst := e.Alloc(b, size), e.Alloc(b, size)
			t := e.TimeOnDevice(b, 1, func() error { return e.Stream.Copy(dst, 0, src, 0, size) })
			b.ReportMetric(t.DeviceRate(size)/1e9, "GB/s")
		})
	}
}
