package gpu_test

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu"
	_ "github.com/anygpu/gpu/backend/cpu"
	"github.com/anygpu/gpu/kernels"
)

// TestCloseRacesUse closes streams, modules and devices while other
// goroutines use them: every call must return (an error of category Closed
// at worst), never panic or reach a released backend object. The backends
// trust the root with this (package backend's contract), so it is tested
// here, on the CPU backend, whose streams panic when used after Close.
func TestCloseRacesUse(t *testing.T) {
	ctx := context.Background()
	rounds := 100
	if testing.Short() {
		rounds = 20
	}
	for round := range rounds {
		dev, err := gpu.Open(ctx, gpu.WithBackends("cpu"))
		require.NoError(t, err)
		buf, err := dev.Alloc(1 << 12)
		require.NoError(t, err)
		s, err := dev.NewStream()
		require.NoError(t, err)
		mod, err := dev.Compile(ctx, kernels.Source())
		require.NoError(t, err)
		fill, err := mod.Kernel(kernels.OpFill)
		require.NoError(t, err)
		var wg sync.WaitGroup
		src := make([]byte, 1<<12)
		for range 6 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range 40 {
					_ = s.Write(buf, 0, src)
					_ = s.Fill(buf, 0, 64, 7)
					_ = s.Launch(fill, gpu.D1(1), gpu.D1(64), gpu.Buf(buf), gpu.U32(16), gpu.F32(1))
					if e, err := s.Record(); err == nil {
						_ = e.Synchronize(ctx)
						_ = e.Close()
					}
					_ = dev.Synchronize(ctx)
				}
			}()
		}
		closers := []func() error{s.Close, mod.Close, buf.Close}
		if round%2 == 0 {
			closers = append(closers, dev.Close)
		}
		for _, c := range closers {
			wg.Add(1)
			go func() { defer wg.Done(); _ = c() }()
		}
		wg.Wait()
		require.NoError(t, dev.Close())
	}
}
