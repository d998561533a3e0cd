package tensor

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/errors"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCloseWhileQueued: inputs closed right after the op that reads them is
// enqueued stay allocated until the device synchronizes; the result is
// right.
func TestCloseWhileQueued(t *testing.T) {
	forEachDevice(t, func(t *testing.T, dev *gpu.Device) {
		ctx := context.Background()
		require.NoError(t, Synchronize(ctx, dev))
		n := 1 << 16
		data := make([]float32, n)
		for i := range data {
			data[i] = float32(i % 97)
		}
		x, err := FromSlice(ctx, dev, data)
		require.NoError(t, err)
		y, err := Scale(x, 2)
		require.NoError(t, err)
		frees := dev.Stats().Frees
		require.NoError(t, x.Close())
		assert.Equal(t, frees, dev.Stats().Frees, "x's buffer waits for the queued op")
		got := read(t, y)
		assert.Equal(t, frees+2, dev.Stats().Frees, "x's and y's buffers are freed once synchronized")
		for i, v := range got {
			if v != 2*data[i] {
				require.Equal(t, 2*data[i], v, "element %d", i)
			}
		}
	})
}

// TestConcurrentUse: ops from several goroutines on one device.
func TestConcurrentUse(t *testing.T) {
	forEachDevice(t, func(t *testing.T, dev *gpu.Device) {
		ctx := context.Background()
		var wg sync.WaitGroup
		errs := make([]error, 4)
		for w := range errs {
			wg.Go(func() {
				errs[w] = func() error {
					x, err := FromSlice(ctx, dev, []float32{float32(w), 1, 2}, 3)
					if err != nil {
						return err
					}
					defer x.Close()
					for range 10 {
						y, err := Add(x, x)
						if err != nil {
							return err
						}
						s, err := Sum(y, 0)
						_ = y.Close()
						if err != nil {
							return err
						}
						got, err := s.ToFloat32(ctx)
						_ = s.Close()
						if err != nil {
							return err
						}
						if want := 2 * float32(w+3); got[0] != want {
							return fmt.Errorf("worker %d: sum %v, want %v", w, got[0], want)
						}
					}
					return nil
				}()
			})
		}
		wg.Wait()
		for _, err := range errs {
			require.NoError(t, err)
		}
	})
}

// TestDeviceFaults: a device that cannot compile, or runs out of memory,
// makes ops return its errors, with their categories.
func TestDeviceFaults(t *testing.T) {
	ctx := context.Background()
	open := func(t *testing.T, spec string) *gpu.Device {
		dev, err := gpu.Open(ctx, gpu.WithBackends("cuda"), gpu.WithFallback(false), gpu.WithFake(spec))
		require.NoError(t, err)
		t.Cleanup(func() {
			_ = Release(ctx, dev)
			_ = dev.Close()
		})
		return dev
	}
	t.Run("no compile", func(t *testing.T) {
		dev := open(t, "cuda:h100+nocompile")
		x, err := FromSlice(ctx, dev, []float32{1, 2})
		require.NoError(t, err)
		defer x.Close()
		for range 2 {
			_, err = Exp(x)
			require.ErrorIs(t, err, errors.Compilation)
		}
		xt, err := x.Expand(2, 2)
		require.NoError(t, err, "views need no kernel")
		defer xt.Close()
		_, err = xt.ToFloat32(ctx)
		require.ErrorIs(t, err, errors.Compilation, "gathering a view needs one")
	})
	t.Run("out of memory", func(t *testing.T) {
		// Room for one buffer of the pool's smallest class (64 KiB).
		dev := open(t, "cuda:h100+memlimit=100KiB")
		x, err := FromSlice(ctx, dev, []float32{1, 2})
		require.NoError(t, err)
		defer x.Close()
		_, err = Exp(x)
		require.ErrorIs(t, err, errors.OutOfMemory)
		_, err = FromSlice(ctx, dev, []float32{1, 2})
		require.ErrorIs(t, err, errors.OutOfMemory)
	})
	t.Run("closed device", func(t *testing.T) {
		dev, err := gpu.Open(ctx, gpu.WithBackends("cpu"))
		require.NoError(t, err)
		x, err := FromSlice(ctx, dev, []float32{1, 2})
		require.NoError(t, err)
		require.NoError(t, dev.Close())
		_, err = Exp(x)
		require.ErrorIs(t, err, errors.Closed)
		_, err = x.ToFloat32(ctx)
		require.ErrorIs(t, err, errors.Closed)
		require.NoError(t, x.Close())
		require.NoError(t, Release(ctx, dev))
	})
}
