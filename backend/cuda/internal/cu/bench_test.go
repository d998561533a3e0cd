package cu_test

import (
	"runtime"
	"testing"

	"github.com/anygpu/gpu/backend/cuda/internal/cu"
	"github.com/anygpu/gpu/backend/cuda/internal/fakecuda"
)

// BenchmarkCall measures a call through purego into a C function that
// returns at once (the fake driver's cuStreamQuery), and the same with the
// thread locked around it.
func BenchmarkCall(b *testing.B) {
	path, err := fakecuda.Build(b.TempDir())
	if err != nil {
		b.Skipf("cannot build the fake driver: %v", err)
	}
	l, err := cu.Load(path)
	if err != nil {
		b.Fatal(err)
	}
	fr := cu.NewFrame()
	b.Run("call", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			l.StreamQuery(fr, 0)
		}
	})
	b.Run("lock+2calls", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			runtime.LockOSThread()
			l.CtxSetCurrent(fr, 0)
			l.StreamQuery(fr, 0)
			runtime.UnlockOSThread()
		}
	})
	b.Run("launch11args", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			l.LaunchKernel(fr, 0, 1, 1, 1, 1, 1, 1, 0, 0, nil)
		}
	})
}
