package gpu_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/backend/backendtest"
	_ "github.com/anygpu/gpu/backend/cpu"
	"github.com/anygpu/gpu/kernels"
)

// TestStress64 runs 64 goroutines of mixed work on one CPU device for about
// two seconds (a fifth of that with -short): allocations, transfers, fills,
// launches, events across streams, streams created and closed, buffers
// closed, ReadFrom/WriteTo and device-wide Synchronize, each checking the
// data it can predict. Run with -race. When the device is closed no
// goroutine it or the work started is left. (The conformance suite's
// concurrency test runs 32 goroutines of one kind of work, each on a stream
// of its own; this one mixes every kind on shared streams.)
func TestStress64(t *testing.T) {
	duration := 2 * time.Second
	if testing.Short() {
		duration = 400 * time.Millisecond
	}
	before := runtime.NumGoroutine()
	ctx, cancel := context.WithTimeout(context.Background(), duration+30*time.Second)
	defer cancel()
	dev, err := gpu.Open(ctx, gpu.WithBackends("cpu"))
	require.NoError(t, err)
	mod, err := dev.Compile(ctx, kernels.Source())
	require.NoError(t, err)
	fill, err := mod.Kernel(kernels.OpFill)
	require.NoError(t, err)
	shared, err := dev.NewStream()
	require.NoError(t, err)

	deadline := time.Now().Add(duration)
	var ops atomic.Int64
	backendtest.RunConcurrently(t, 64, func(w int) error {
		st := &stressWorker{ctx: ctx, dev: dev, fill: fill, shared: shared, w: w}
		for i := 0; time.Now().Before(deadline); i++ {
			if err := st.step(i); err != nil {
				return fmt.Errorf("worker %d, step %d (kind %d): %w", w, i, (w+i)%stressKinds, err)
			}
			ops.Add(1)
		}
		return nil
	})
	require.NoError(t, dev.Synchronize(ctx))
	require.NoError(t, dev.Close())
	t.Logf("%d operations", ops.Load())

	// Every goroutine the device or the work started has ended.
	var after int
	for range 200 {
		if after = runtime.NumGoroutine(); after <= before {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if after > before {
		buf := make([]byte, 1<<20)
		t.Fatalf("%d goroutines before, %d after the device's Close:\n%s", before, after, buf[:runtime.Stack(buf, true)])
	}
}

const stressKinds = 9

// stressWorker is one goroutine of TestStress64.
type stressWorker struct {
	ctx    context.Context
	dev    *gpu.Device
	fill   *gpu.Kernel
	shared *gpu.Stream
	w      int
}

// pattern is n bytes that depend on the worker and the step.
func (st *stressWorker) pattern(i, n int) []byte {
	p := make([]byte, n)
	for j := range p {
		p[j] = byte(st.w*31 + i*7 + j)
	}
	return p
}

func (st *stressWorker) step(i int) error {
	ctx, dev := st.ctx, st.dev
	n := 64 + 4*((st.w*13+i)%256)
	want := st.pattern(i, n)
	switch (st.w + i) % stressKinds {
	case 0: // write and read back on the shared stream
		b, err := dev.Alloc(int64(n))
		if err != nil {
			return err
		}
		defer b.Close()
		got := make([]byte, n)
		if err := st.shared.Write(b, 0, want); err != nil {
			return err
		}
		if err := st.shared.Read(got, b, 0); err != nil {
			return err
		}
		if err := st.shared.Synchronize(ctx); err != nil {
			return err
		}
		return same("write/read", got, want)
	case 1: // a stream of its own: fill, copy, read, close
		s, err := dev.NewStream()
		if err != nil {
			return err
		}
		defer s.Close()
		a, err := dev.Alloc(int64(n))
		if err != nil {
			return err
		}
		defer a.Close()
		b, err := dev.Alloc(int64(n))
		if err != nil {
			return err
		}
		defer b.Close()
		v := uint32(st.w)<<16 | uint32(i&0xffff)
		if err := s.Fill(a, 0, int64(n), v); err != nil {
			return err
		}
		if err := s.Copy(b, 0, a, 0, int64(n)); err != nil {
			return err
		}
		got := make([]byte, n)
		if err := s.Read(got, b, 0); err != nil {
			return err
		}
		if err := s.Close(); err != nil { // synchronizes
			return err
		}
		return same("fill/copy", got, words(n, v))
	case 2: // launch the fill kernel, read back with ReadAt
		b, err := dev.Alloc(int64(n))
		if err != nil {
			return err
		}
		defer b.Close()
		v := float32(st.w) + float32(i)/2
		if err := st.shared.Launch(st.fill, gpu.D1(1+i%4), gpu.D1(32<<(i%3)), gpu.Buf(b), gpu.U32(uint32(n/4)), gpu.F32(v)); err != nil {
			return err
		}
		if err := st.shared.Synchronize(ctx); err != nil {
			return err
		}
		got := make([]byte, n)
		if _, err := b.ReadAt(got, 0); err != nil {
			return err
		}
		return same("launch fill", got, words(n, math.Float32bits(v)))
	case 3: // an event orders a second stream after the first
		s1, err := dev.NewStream()
		if err != nil {
			return err
		}
		defer s1.Close()
		b, err := dev.Alloc(int64(n))
		if err != nil {
			return err
		}
		defer b.Close()
		if err := s1.Write(b, 0, want); err != nil {
			return err
		}
		e, err := s1.Record()
		if err != nil {
			return err
		}
		defer e.Close()
		if err := st.shared.Wait(e); err != nil {
			return err
		}
		got := make([]byte, n)
		if err := st.shared.Read(got, b, 0); err != nil {
			return err
		}
		e2, err := st.shared.Record()
		if err != nil {
			return err
		}
		defer e2.Close()
		if err := e2.Synchronize(ctx); err != nil {
			return err
		}
		if done, err := e.Done(); err != nil || !done {
			return fmt.Errorf("event: done %v, %v after a later event completed", done, err)
		}
		return same("event order", got, want)
	case 4: // ReadFrom and WriteTo
		b, err := dev.Alloc(int64(n))
		if err != nil {
			return err
		}
		defer b.Close()
		if m, err := b.ReadFrom(bytes.NewReader(want)); err != nil || m != int64(n) {
			return fmt.Errorf("read from: %d, %w", m, err)
		}
		var out bytes.Buffer
		if m, err := b.WriteToContext(ctx, &out, nil); err != nil || m != int64(n) {
			return fmt.Errorf("write to: %d, %w", m, err)
		}
		return same("read from/write to", out.Bytes(), want)
	case 5: // the whole device
		return dev.Synchronize(ctx)
	case 6: // host buffers
		h, err := dev.AllocHost(int64(n))
		if err != nil {
			return err
		}
		defer h.Close()
		b, err := dev.Alloc(int64(n))
		if err != nil {
			return err
		}
		defer b.Close()
		copy(h.Bytes(), want)
		if err := st.shared.WriteHost(b, 0, h, 0, int64(n)); err != nil {
			return err
		}
		back, err := dev.AllocHost(int64(n))
		if err != nil {
			return err
		}
		defer back.Close()
		if err := st.shared.ReadHost(back, 0, b, 0, int64(n)); err != nil {
			return err
		}
		if err := st.shared.Synchronize(ctx); err != nil {
			return err
		}
		return same("host buffers", back.Bytes(), want)
	case 7: // typed slices through the default stream
		vals := make([]float32, n/4)
		for j := range vals {
			vals[j] = float32(st.w*1000 + j)
		}
		b, err := gpu.FromSlice(ctx, dev, vals)
		if err != nil {
			return err
		}
		defer b.Close()
		got, err := gpu.ToSlice[float32](ctx, b)
		if err != nil {
			return err
		}
		for j := range vals {
			if got[j] != vals[j] {
				return fmt.Errorf("to slice: element %d is %v, want %v", j, got[j], vals[j])
			}
		}
		return nil
	default: // misuse amid the work: every call returns an error, nothing breaks
		b, err := dev.Alloc(int64(n))
		if err != nil {
			return err
		}
		if err := b.Close(); err != nil {
			return err
		}
		if err := st.shared.Write(b, 0, want); err == nil {
			return fmt.Errorf("write to a closed buffer succeeded")
		}
		if err := st.shared.Launch(st.fill, gpu.D1(0), gpu.D1(1)); err == nil {
			return fmt.Errorf("a launch with an empty grid succeeded")
		}
		return nil
	}
}

// words is n bytes of the 32-bit value v repeated, little-endian.
func words(n int, v uint32) []byte {
	p := make([]byte, n)
	for j := 0; j < n; j += 4 {
		binary.LittleEndian.PutUint32(p[j:], v)
	}
	return p
}

func same(what string, got, want []byte) error {
	if i := firstDiff(got, want); i >= 0 {
		return fmt.Errorf("%s: %d bytes, first difference at byte %d", what, len(got), i)
	}
	return nil
}

func firstDiff(a, b []byte) int {
	if len(a) != len(b) {
		return min(len(a), len(b))
	}
	for i := range a {
		if a[i] != b[i] {
			return i
		}
	}
	return -1
}
