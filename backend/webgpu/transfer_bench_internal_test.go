//go:build cgo

package webgpu

import (
	"context"
	"testing"

	"sync/atomic"

	"github.com/oliverbestmann/webgpu/wgpu"
	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu/backend/backendtest"
	"github.com/anygpu/gpu/errors"
)

// BenchmarkHostCopy times the host's side of a transfer chunk alone, no
// device work: parallelCopy of transferChunk bytes from a Go slice into
// another Go slice ("go"), into a mapped upload buffer ("upload": the
// memory the device's copy reads), and from a staging buffer mapped for
// reading into a Go slice ("staging": a download's copy out);
// "upload-remap" unmaps and maps the upload buffer again before each fill,
// as the pool does between uses (a driver that maps anew each time makes
// the fill fault its pages in again). Where these are much slower than
// "go", the driver's mappable memory caps the pageable and pinned
// transfers, not the pipeline. Each runs with both upload usages of
// EnvUpload ("write" and "readwrite"), which may get different memory.
func BenchmarkHostCopy(b *testing.B) {
	for _, usage := range []string{"write", "readwrite"} {
		b.Run(usage, func(b *testing.B) {
			b.Setenv(EnvUpload, usage)
			benchHostCopy(b)
		})
	}
}

// benchHostCopy is BenchmarkHostCopy on a device opened with the upload
// usage EnvUpload names.
func benchHostCopy(b *testing.B) {
	backendtest.SkipUnlessAvailable(b, Driver{})
	dv, err := open(context.Background(), 0)
	require.NoError(b, err)
	d := dv.(*device)
	b.Cleanup(func() { _ = d.Close() })
	src, dst := make([]byte, transferChunk), make([]byte, transferChunk)
	for i := range src {
		src[i] = byte(i)
	}
	b.Run("go", func(b *testing.B) {
		b.SetBytes(transferChunk)
		for range b.N {
			parallelCopy(dst, src, uploadPiece)
		}
	})
	b.Run("upload", func(b *testing.B) {
		d.mu.Lock()
		u, err := d.acquireUploadLocked("bench")
		d.mu.Unlock()
		require.NoError(b, err)
		b.Cleanup(func() { discardUpload(u) })
		b.SetBytes(transferChunk)
		b.ResetTimer()
		for range b.N {
			parallelCopy(u.mem, src, uploadPiece)
		}
	})
	b.Run("upload-remap", func(b *testing.B) {
		d.mu.Lock()
		u, err := d.acquireUploadLocked("bench")
		d.mu.Unlock()
		require.NoError(b, err)
		b.Cleanup(func() { discardUpload(u) })
		b.SetBytes(transferChunk)
		b.ResetTimer()
		for range b.N {
			d.mu.Lock()
			err := d.call("bench", errors.Execution, func() error {
				if err := u.buf.TryUnmap(); err != nil {
					return err
				}
				u.status.Store(0)
				return u.buf.TryMapAsync(wgpu.MapModeWrite, 0, transferChunk, func(st wgpu.MapAsyncStatus) { u.status.Store(uint32(st)) })
			})
			d.mu.Unlock()
			require.NoError(b, err)
			require.NoError(b, d.wait(context.Background(), "bench", func() bool { return u.status.Load() != 0 }))
			u.mem = u.buf.GetMappedRange(0, transferChunk)
			parallelCopy(u.mem, src, uploadPiece)
		}
	})
	b.Run("staging", func(b *testing.B) {
		// A staging buffer, filled by a device copy and mapped for
		// reading, as a download's.
		var staging *wgpu.Buffer
		var status atomic.Uint32
		d.mu.Lock()
		err := d.call("bench", errors.Execution, func() error {
			var err error
			staging, err = d.dev.TryCreateBuffer(&wgpu.BufferDescriptor{
				Label: "bench staging", Size: transferChunk, Usage: wgpu.BufferUsageMapRead | wgpu.BufferUsageCopyDst,
			})
			if err != nil {
				return err
			}
			return staging.TryMapAsync(wgpu.MapModeRead, 0, transferChunk, func(st wgpu.MapAsyncStatus) { status.Store(uint32(st)) })
		})
		d.mu.Unlock()
		require.NoError(b, err)
		b.Cleanup(func() { staging.Release() })
		require.NoError(b, d.wait(context.Background(), "bench", func() bool { return status.Load() != 0 }))
		require.Equal(b, uint32(wgpu.MapAsyncStatusSuccess), status.Load())
		mem := staging.GetMappedRange(0, transferChunk)
		b.SetBytes(transferChunk)
		b.ResetTimer()
		for range b.N {
			parallelCopy(dst, mem, downloadPiece)
		}
	})
}
