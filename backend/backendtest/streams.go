package backendtest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/errors"
	"github.com/anygpu/gpu/kernels"
	"github.com/stretchr/testify/require"
)

// testStreamOrdering enqueues a long chain of dependent operations on one
// stream without waiting in between: each must see the previous one's result.
func (s *suite) testStreamOrdering(t *testing.T) {
	ctx := ctxT(t)
	bk := s.builtins(t, s.dev)
	st, err := s.dev.NewStream()
	require.NoError(t, err)
	defer st.Close()
	const n = 1 << 16
	y, err := gpu.AllocSlice[float32](s.dev, n)
	require.NoError(t, err)
	defer y.Close()
	x, err := gpu.AllocSlice[float32](s.dev, n)
	require.NoError(t, err)
	defer x.Close()
	ones := make([]float32, n)
	for i := range ones {
		ones[i] = 1
	}
	require.NoError(t, st.Fill(y, 0, 4*n, 0))
	require.NoError(t, gpu.Upload(st, x, ones))
	axpy := bk.kernel(t, kernels.OpAxpy)
	const rounds = 100
	for r := 0; r < rounds; r++ {
		// y += 1 each round; integers stay exact in float32.
		require.NoError(t, st.Launch(axpy, s.grid1D(n), gpu.D1(s.block1D()), gpu.Buf(y), gpu.Buf(x), gpu.U32(n), gpu.F32(1)))
		if r%10 == 9 {
			// Interleave a D2D round trip: it must see this round's value.
			require.NoError(t, st.Copy(x, 0, y, 0, 4*n))
			require.NoError(t, gpu.Upload(st, x, ones))
		}
	}
	got := make([]float32, n)
	require.NoError(t, gpu.Download(st, got, y))
	require.NoError(t, st.Synchronize(ctx))
	for i, v := range got {
		if v != rounds {
			t.Fatalf("y[%d] = %v after %d ordered increments, want %d", i, v, rounds, rounds)
		}
	}
	// A write enqueued behind queued work must not be seen by earlier work,
	// and its source may be reused at once.
	src := []float32{7}
	require.NoError(t, st.Launch(bk.kernel(t, kernels.OpFill), gpu.D1(1), gpu.D1(1), gpu.Buf(y), gpu.U32(1), gpu.F32(3)))
	require.NoError(t, gpu.Upload(st, y, src))
	src[0] = -1 // reused immediately: the upload must already hold 7
	one := make([]float32, 1)
	require.NoError(t, gpu.Download(st, one, y))
	require.NoError(t, st.Synchronize(ctx))
	require.Equal(t, float32(7), one[0])
}

// testCrossStreamWait makes a consumer stream wait for a producer's event.
func (s *suite) testCrossStreamWait(t *testing.T) {
	ctx := ctxT(t)
	bk := s.builtins(t, s.dev)
	producer, err := s.dev.NewStream()
	require.NoError(t, err)
	defer producer.Close()
	consumer, err := s.dev.NewStream()
	require.NoError(t, err)
	defer consumer.Close()
	const n = 1 << 20
	// Each iteration refills the buffer with a new value; two are enough
	// under -short to catch a consumer reading the previous one.
	iters := 5
	if testing.Short() {
		iters = 2
	}
	buf, err := gpu.AllocSlice[float32](s.dev, n)
	require.NoError(t, err)
	defer buf.Close()
	one, err := gpu.FromSlice(ctx, s.dev, []float32{1})
	require.NoError(t, err)
	defer one.Close()
	for iter := range iters {
		require.NoError(t, producer.Fill(buf, 0, 4*n, 0))
		// Enough work that an unordered consumer would read early values.
		for r := 0; r < 20; r++ {
			require.NoError(t, producer.Launch(bk.kernel(t, kernels.OpScale), s.grid1D(n), gpu.D1(s.block1D()),
				gpu.Buf(buf), gpu.Buf(buf), gpu.U32(n), gpu.F32(1)))
		}
		require.NoError(t, producer.Launch(bk.kernel(t, kernels.OpFill), s.grid1D(n), gpu.D1(s.block1D()), gpu.Buf(buf), gpu.U32(n), gpu.F32(float32(iter+1))))
		ev, err := producer.Record()
		require.NoError(t, err)
		require.NoError(t, consumer.Wait(ev))
		got := make([]float32, n)
		require.NoError(t, gpu.Download(consumer, got, buf))
		require.NoError(t, consumer.Synchronize(ctx))
		for i := 0; i < n; i += 4099 {
			require.Equal(t, float32(iter+1), got[i], "iteration %d: consumer read element %d before the producer finished", iter, i)
		}
		require.NoError(t, ev.Close())
		require.NoError(t, producer.Synchronize(ctx))
	}
}

func (s *suite) testEvents(t *testing.T) {
	ctx := ctxT(t)
	bk := s.builtins(t, s.dev)
	st, err := s.dev.NewStream()
	require.NoError(t, err)
	defer st.Close()
	const n = 1 << 20
	buf, err := gpu.AllocSlice[float32](s.dev, n)
	require.NoError(t, err)
	defer buf.Close()
	start, err := st.Record()
	require.NoError(t, err)
	defer start.Close()
	for r := 0; r < 10; r++ {
		require.NoError(t, st.Launch(bk.kernel(t, kernels.OpFill), s.grid1D(n), gpu.D1(s.block1D()), gpu.Buf(buf), gpu.U32(n), gpu.F32(1)))
	}
	mid, err := st.Record()
	require.NoError(t, err)
	defer mid.Close()
	require.NoError(t, st.Fill(buf, 0, 4*n, 0))
	end, err := st.Record()
	require.NoError(t, err)
	defer end.Close()
	require.NoError(t, end.Synchronize(ctx))
	for _, e := range []*gpu.Event{start, mid, end} {
		done, err := e.Done()
		require.NoError(t, err)
		require.True(t, done, "an event before a completed one is complete")
	}
	d1, err := mid.Elapsed(start)
	require.NoError(t, err)
	d2, err := end.Elapsed(mid)
	require.NoError(t, err)
	total, err := end.Elapsed(start)
	require.NoError(t, err)
	require.GreaterOrEqual(t, d1, time.Duration(0))
	require.GreaterOrEqual(t, d2, time.Duration(0))
	require.Positive(t, total, "10 kernels over 4 MiB take measurable time")
	require.InDelta(t, float64(total), float64(d1+d2), float64(2*time.Microsecond), "elapsed times add up")
	require.Less(t, total, time.Minute)

	// Events of another device have no common clock.
	other := s.open(t)
	ost := other.DefaultStream()
	oe, err := ost.Record()
	require.NoError(t, err)
	require.NoError(t, oe.Synchronize(ctx))
	_, err = oe.Elapsed(start)
	requireCategory(t, err, errors.InvalidArgument)
	// ... but an event of another device orders this stream: on the device
	// where the backend can, else by a wait on the host (gpu.OpenAll).
	require.NoError(t, st.Wait(oe), "waiting on another device's event")
}

// testConcurrency runs 32 goroutines, each on its own stream, each computing
// and checking its own result (run with -race).
func (s *suite) testConcurrency(t *testing.T) {
	ctx := ctxT(t)
	bk := s.builtins(t, s.dev)
	axpy := bk.kernel(t, kernels.OpAxpy)
	const workers, n = 32, 1 << 14
	RunConcurrently(t, workers, func(w int) error { return s.worker(ctx, axpy, w, n) })
}

func (s *suite) worker(ctx context.Context, axpy *gpu.Kernel, w, n int) error {
	st, err := s.dev.NewStream()
	if err != nil {
		return err
	}
	defer st.Close()
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(w)
	}
	bx, err := gpu.AllocSlice[float32](s.dev, n)
	if err != nil {
		return err
	}
	defer bx.Close()
	by, err := gpu.AllocSlice[float32](s.dev, n)
	if err != nil {
		return err
	}
	defer by.Close()
	if err := gpu.Upload(st, bx, x); err != nil {
		return err
	}
	if err := st.Fill(by, 0, int64(4*n), 0); err != nil {
		return err
	}
	for r := 0; r < 8; r++ {
		if err := st.Launch(axpy, s.grid1D(n), gpu.D1(s.block1D()), gpu.Buf(by), gpu.Buf(bx), gpu.U32(uint32(n)), gpu.F32(1)); err != nil {
			return err
		}
	}
	if err := CheckFloats(ctx, st, by, n, func(int) float32 { return float32(8 * w) }); err != nil {
		return fmt.Errorf("worker %d: %w", w, err)
	}
	return nil
}

// testCancellation: a Synchronize whose context has ended returns at once
// with category Timeout, or nil if the work had already finished.
func (s *suite) testCancellation(t *testing.T) {
	bk := s.builtins(t, s.dev)
	st, err := s.dev.NewStream()
	require.NoError(t, err)
	defer st.Close()
	// Four sgemms of m³ keep the stream busy while a cancelled Synchronize
	// returns; -short queues an eighth of the work.
	m := 512
	if testing.Short() {
		m = 256
	}
	a, err := gpu.AllocSlice[float32](s.dev, m*m)
	require.NoError(t, err)
	defer a.Close()
	c, err := gpu.AllocSlice[float32](s.dev, m*m)
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, st.Fill(a, 0, int64(4*m*m), 0x3f800000))
	for r := 0; r < 4; r++ {
		require.NoError(t, st.Launch(bk.kernel(t, kernels.OpSgemm), gpu.D2(m/16, m/16), gpu.D2(16, 16),
			gpu.Buf(c), gpu.Buf(a), gpu.Buf(a), gpu.U32(uint32(m)), gpu.U32(uint32(m)), gpu.U32(uint32(m)), gpu.F32(1), gpu.F32(0)))
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	started := time.Now()
	err = st.Synchronize(ctx)
	if err != nil {
		requireCategory(t, err, errors.Timeout)
		require.ErrorIs(t, err, context.Canceled)
	}
	require.Less(t, time.Since(started), 30*time.Second, "a cancelled Synchronize returns promptly")
	require.NoError(t, st.Synchronize(ctxT(t)), "the work itself completes")
	require.Equal(t, float32(m), download(t, c)[0], "sgemm of ones")

	ctx2, cancel2 := context.WithTimeout(context.Background(), time.Nanosecond)
	defer cancel2()
	<-ctx2.Done()
	ev, err := st.Record()
	require.NoError(t, err)
	defer ev.Close()
	if err := ev.Synchronize(ctx2); err != nil {
		requireCategory(t, err, errors.Timeout)
	}
}
