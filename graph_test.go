package gpu_test

import (
	"context"
	"encoding/binary"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/errors"
	"github.com/anygpu/gpu/kernels"
	"github.com/anygpu/gpu/profiling"
)

// graphFixture is a CPU device with the built-in kernels compiled.
type graphFixture struct {
	dev   *gpu.Device
	mod   *gpu.Module
	scale *gpu.Kernel // scale(y, x, n, a): y = a·x
}

func newGraphFixture(t *testing.T) *graphFixture {
	t.Helper()
	dev := openCPU(t)
	mod, err := dev.Compile(context.Background(), kernels.Source())
	require.NoError(t, err)
	scale, err := mod.Kernel(kernels.OpScale)
	require.NoError(t, err)
	return &graphFixture{dev: dev, mod: mod, scale: scale}
}

func f32s(vals ...float32) []byte {
	b := make([]byte, 4*len(vals))
	for i, v := range vals {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
	}
	return b
}

// readF32 reads b whole through the default stream.
func readF32(t *testing.T, b *gpu.Buffer) []float32 {
	t.Helper()
	raw := make([]byte, b.Size())
	_, err := b.ReadAt(raw, 0)
	require.NoError(t, err)
	out := make([]float32, len(raw)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
	}
	return out
}

func (f *graphFixture) alloc(t *testing.T, vals ...float32) *gpu.Buffer {
	t.Helper()
	b, err := f.dev.Alloc(int64(4 * len(vals)))
	require.NoError(t, err)
	_, err = b.WriteAt(f32s(vals...), 0)
	require.NoError(t, err)
	t.Cleanup(func() { b.Close() })
	return b
}

func (f *graphFixture) stream(t *testing.T) *gpu.Stream {
	t.Helper()
	s, err := f.dev.NewStream()
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	return s
}

// TestGraphReplay captures a fill, a copy and a kernel launch, checks that
// nothing ran during the capture, and that each replay, on the captured
// stream or another, runs them again with the inputs of the moment.
func TestGraphReplay(t *testing.T) {
	f := newGraphFixture(t)
	ctx := context.Background()
	x := f.alloc(t, 1, 2, 3, 4)
	y := f.alloc(t, 0, 0, 0, 0)
	z := f.alloc(t, 0, 0, 0, 0)
	s, s2 := f.stream(t), f.stream(t)

	require.NoError(t, s.BeginCapture())
	assert.True(t, s.Capturing())
	require.NoError(t, s.Fill(z, 0, 16, math.Float32bits(2)))
	require.NoError(t, s.Copy(y, 0, x, 0, 16))
	require.NoError(t, s.Launch(f.scale, gpu.D1(1), gpu.D1(4), gpu.Buf(y), gpu.Buf(y), gpu.U32(4), gpu.F32(3)))
	g, err := s.EndCapture()
	require.NoError(t, err)
	t.Cleanup(func() { g.Close() })
	assert.False(t, s.Capturing())
	assert.Equal(t, 3, g.Ops())
	assert.False(t, g.Native(), "the CPU backend has no native graphs")
	assert.Equal(t, f.dev, g.Device())
	require.NoError(t, s.Synchronize(ctx))
	assert.Equal(t, []float32{0, 0, 0, 0}, readF32(t, y), "the capture ran the work")
	assert.Equal(t, []float32{0, 0, 0, 0}, readF32(t, z), "the capture ran the work")

	before := f.dev.Stats()
	for i, st := range []*gpu.Stream{s, s2} {
		in := []float32{float32(10 * i), 1, -1, 5}
		_, err := x.WriteAt(f32s(in...), 0)
		require.NoError(t, err)
		require.NoError(t, g.Launch(st))
		require.NoError(t, st.Synchronize(ctx))
		want := make([]float32, len(in))
		for j, v := range in {
			want[j] = 3 * v
		}
		assert.Equal(t, want, readF32(t, y), "replay %d", i)
		assert.Equal(t, []float32{2, 2, 2, 2}, readF32(t, z), "replay %d", i)
	}
	after := f.dev.Stats()
	assert.Equal(t, int64(2), after.GraphLaunches-before.GraphLaunches)
	assert.Equal(t, int64(2), after.KernelLaunches-before.KernelLaunches, "one kernel per replay")
	assert.Equal(t, int64(2), after.Transfers.D2D.Count-before.Transfers.D2D.Count)
	assert.Equal(t, int64(2), after.Transfers.Fill.Count-before.Transfers.Fill.Count)
	assert.Contains(t, after.String(), "graph launches 2")
}

// TestGraphEmpty: a capture of nothing is a graph of no operations.
func TestGraphEmpty(t *testing.T) {
	f := newGraphFixture(t)
	s := f.stream(t)
	require.NoError(t, s.BeginCapture())
	g, err := s.EndCapture()
	require.NoError(t, err)
	assert.Equal(t, 0, g.Ops())
	require.NoError(t, g.Launch(s))
	require.NoError(t, g.Close())
}

// TestCaptureRefuses: what moves host memory or waits is refused on a
// capturing stream, before the backend sees it; other streams work.
func TestCaptureRefuses(t *testing.T) {
	f := newGraphFixture(t)
	ctx := context.Background()
	other := openCPU(t)
	b := f.alloc(t, 1, 2, 3, 4)
	ob, err := other.Alloc(16)
	require.NoError(t, err)
	defer ob.Close()
	h, err := f.dev.AllocHost(16)
	require.NoError(t, err)
	defer h.Close()
	s, s2 := f.stream(t), f.stream(t)
	ev, err := s2.Record()
	require.NoError(t, err)
	defer ev.Close()
	empty, err := s2.BeginCapture(), error(nil)
	require.NoError(t, empty)
	g, err := s2.EndCapture()
	require.NoError(t, err)
	defer g.Close()

	require.NoError(t, s.BeginCapture())
	defer func() {
		g, err := s.EndCapture()
		require.NoError(t, err)
		require.NoError(t, g.Close())
	}()
	cases := []struct {
		name string
		call func() error
	}{
		{"write", func() error { return s.Write(b, 0, make([]byte, 4)) }},
		{"read", func() error { return s.Read(make([]byte, 4), b, 0) }},
		{"write host", func() error { return s.WriteHost(b, 0, h, 0, 4) }},
		{"read host", func() error { return s.ReadHost(h, 0, b, 0, 4) }},
		{"copy from another device", func() error { return s.Copy(b, 0, ob, 0, 4) }},
		{"record", func() error { _, err := s.Record(); return err }},
		{"wait", func() error { return s.Wait(ev) }},
		{"synchronize", func() error { return s.Synchronize(ctx) }},
		{"graph launch", func() error { return g.Launch(s) }},
		{"begin capture again", s.BeginCapture},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.call()
			require.Error(t, err)
			assert.Equal(t, errors.InvalidArgument, errors.CategoryOf(err), "%v", err)
			assert.Contains(t, err.Error(), "captur")
		})
	}
	// Other streams, and the device, carry on.
	require.NoError(t, s2.Write(b, 0, f32s(9)))
	require.NoError(t, s2.Synchronize(ctx))
	require.NoError(t, f.dev.Synchronize(ctx))
	assert.Equal(t, []float32{9, 2, 3, 4}, readF32(t, b))
}

// TestEndCaptureWithoutBegin and the nil receivers: errors, no panics.
func TestGraphMisuse(t *testing.T) {
	f := newGraphFixture(t)
	other := openCPU(t)
	os, err := other.NewStream()
	require.NoError(t, err)
	defer os.Close()
	s := f.stream(t)
	require.NoError(t, s.BeginCapture())
	g, err := s.EndCapture()
	require.NoError(t, err)
	closedMod, err := f.dev.Compile(context.Background(), kernels.Source())
	require.NoError(t, err)
	k, err := closedMod.Kernel(kernels.OpScale)
	require.NoError(t, err)
	y := f.alloc(t, 1, 2)
	require.NoError(t, s.BeginCapture())
	require.NoError(t, s.Launch(k, gpu.D1(1), gpu.D1(2), gpu.Buf(y), gpu.Buf(y), gpu.U32(2), gpu.F32(2)))
	gk, err := s.EndCapture()
	require.NoError(t, err)
	defer gk.Close()
	require.NoError(t, closedMod.Close())
	closedG, err := func() (*gpu.Graph, error) {
		require.NoError(t, s.BeginCapture())
		return s.EndCapture()
	}()
	require.NoError(t, err)
	require.NoError(t, closedG.Close())
	require.NoError(t, closedG.Close(), "closing twice")
	var nilG *gpu.Graph
	var nilS *gpu.Stream

	cases := []struct {
		name string
		call func() error
		want errors.Category
	}{
		{"end capture without begin", func() error { _, err := s.EndCapture(); return err }, errors.InvalidArgument},
		{"nil stream begin", nilS.BeginCapture, errors.InvalidArgument},
		{"nil stream end", func() error { _, err := nilS.EndCapture(); return err }, errors.InvalidArgument},
		{"nil graph launch", func() error { return nilG.Launch(s) }, errors.InvalidArgument},
		{"launch on a nil stream", func() error { return g.Launch(nil) }, errors.InvalidArgument},
		{"launch on another device's stream", func() error { return g.Launch(os) }, errors.InvalidArgument},
		{"launch of a closed graph", func() error { return closedG.Launch(s) }, errors.Closed},
		{"launch with a closed module", func() error { return gk.Launch(s) }, errors.Closed},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.call()
			require.Error(t, err)
			assert.Equal(t, c.want, errors.CategoryOf(err), "%v", err)
		})
	}
	assert.NoError(t, nilG.Close())
	assert.Zero(t, nilG.Ops())
	assert.False(t, nilG.Native())
	assert.False(t, nilS.Capturing())
	assert.Equal(t, "graph <nil>", nilG.String())
	assert.Equal(t, "graph of 0 ops (replayed)", g.String())
	require.NoError(t, g.Close())

	// A closed stream cannot capture.
	cs, err := f.dev.NewStream()
	require.NoError(t, err)
	require.NoError(t, cs.Close())
	assert.Equal(t, errors.Closed, errors.CategoryOf(cs.BeginCapture()))
}

// TestGraphHoldsBuffers: a buffer a graph uses, closed while the graph is
// open, is not handed out again (a replay would write it) until the graph
// closes; that includes a buffer allocated and closed during the capture.
func TestGraphHoldsBuffers(t *testing.T) {
	f := newGraphFixture(t)
	ctx := context.Background()
	const size = 4096
	s := f.stream(t)
	used, err := f.dev.Alloc(size)
	require.NoError(t, err)
	require.NoError(t, s.BeginCapture())
	require.NoError(t, s.Fill(used, 0, size, 7))
	temp, err := f.dev.Alloc(size)
	require.NoError(t, err)
	require.NoError(t, s.Fill(temp, 0, size, 8))
	require.NoError(t, temp.Close(), "closing a buffer the capture uses")
	g, err := s.EndCapture()
	require.NoError(t, err)
	require.NoError(t, used.Close())

	hits := f.dev.Stats().Pool.Hits
	fresh := make([]*gpu.Buffer, 3)
	for i := range fresh {
		fresh[i], err = f.dev.Alloc(size)
		require.NoError(t, err)
		defer fresh[i].Close()
		require.NoError(t, s.Fill(fresh[i], 0, size, 1))
	}
	assert.Equal(t, hits, f.dev.Stats().Pool.Hits, "a buffer the graph holds was handed out again")
	require.NoError(t, g.Launch(s))
	require.NoError(t, s.Synchronize(ctx))
	for i, b := range fresh {
		raw := make([]byte, size)
		_, err := b.ReadAt(raw, 0)
		require.NoError(t, err)
		assert.Equal(t, uint32(1), binary.LittleEndian.Uint32(raw[size-4:]), "buffer %d was overwritten by the replay", i)
	}

	require.NoError(t, g.Close())
	again, err := f.dev.Alloc(size)
	require.NoError(t, err)
	defer again.Close()
	assert.Equal(t, hits+1, f.dev.Stats().Pool.Hits, "the graph's buffers did not go back to the pool when it closed")
	assert.Error(t, g.Launch(s))
}

// TestCloseCapturingStream: closing a capturing stream discards the capture
// and lets go of its buffers; the stream is then closed.
func TestCloseCapturingStream(t *testing.T) {
	f := newGraphFixture(t)
	const size = 8192
	s, err := f.dev.NewStream()
	require.NoError(t, err)
	b, err := f.dev.Alloc(size)
	require.NoError(t, err)
	require.NoError(t, s.BeginCapture())
	require.NoError(t, s.Fill(b, 0, size, 1))
	require.NoError(t, b.Close())
	require.NoError(t, s.Close())
	_, err = s.EndCapture()
	assert.Equal(t, errors.Closed, errors.CategoryOf(err), "%v", err)
	hits := f.dev.Stats().Pool.Hits
	again, err := f.dev.Alloc(size)
	require.NoError(t, err)
	defer again.Close()
	assert.Equal(t, hits+1, f.dev.Stats().Pool.Hits, "the discarded capture kept its buffer")

	// Closing the device with a capture under way is clean too.
	dev := openCPU(t)
	ds, err := dev.NewStream()
	require.NoError(t, err)
	require.NoError(t, ds.BeginCapture())
	require.NoError(t, dev.Close())
}

// TestGraphProfiled: a profiler sees a replay as one kernel operation named
// "graph", and nothing of the capture.
func TestGraphProfiled(t *testing.T) {
	ctx := context.Background()
	p := profiling.New()
	dev, err := gpu.Open(ctx, gpu.WithBackends("cpu"), gpu.WithProfiler(p))
	require.NoError(t, err)
	defer dev.Close()
	a, err := dev.Alloc(64)
	require.NoError(t, err)
	defer a.Close()
	b, err := dev.Alloc(64)
	require.NoError(t, err)
	defer b.Close()
	s := dev.DefaultStream()
	require.NoError(t, s.BeginCapture())
	require.NoError(t, s.Fill(a, 0, 64, 1))
	require.NoError(t, s.Copy(b, 0, a, 0, 64))
	g, err := s.EndCapture()
	require.NoError(t, err)
	defer g.Close()
	require.NoError(t, s.Synchronize(ctx))
	before := len(dev.Profiler().Records())
	for _, r := range dev.Profiler().Records() {
		assert.Equal(t, profiling.KindAlloc, r.Kind, "the capture was profiled: %s %q", r.Kind, r.Name)
	}
	require.NoError(t, g.Launch(s))
	require.NoError(t, s.Synchronize(ctx))
	recs := dev.Profiler().Records()[before:]
	var kinds []profiling.Kind
	for _, r := range recs {
		if r.Kind != profiling.KindAlloc {
			kinds = append(kinds, r.Kind)
			assert.Equal(t, "graph", r.Name)
		}
	}
	assert.Equal(t, []profiling.Kind{profiling.KindKernel}, kinds)
}

// TestGraphConcurrent launches one graph from several goroutines, each on
// its own stream, while one of them closes it: every launch either runs or
// is Closed, and the graph's bookkeeping does not race (go test -race).
func TestGraphConcurrent(t *testing.T) {
	f := newGraphFixture(t)
	s := f.stream(t)
	// An empty graph: replays of one that writes memory, on several
	// streams at once, would race on that memory (as they would on a GPU).
	require.NoError(t, s.BeginCapture())
	g, err := s.EndCapture()
	require.NoError(t, err)
	const workers, rounds = 4, 50
	errs := make(chan error, workers*rounds+1)
	done := make(chan struct{})
	for w := range workers {
		st := f.stream(t)
		go func() {
			defer func() { done <- struct{}{} }()
			for r := range rounds {
				if w == 0 && r == rounds/2 {
					errs <- g.Close()
				}
				errs <- g.Launch(st)
			}
		}()
	}
	for range workers {
		<-done
	}
	close(errs)
	closed := 0
	for err := range errs {
		if err != nil {
			require.Equal(t, errors.Closed, errors.CategoryOf(err), "%v", err)
			closed++
		}
	}
	assert.Positive(t, closed, "launches after Close")
	require.NoError(t, f.dev.Synchronize(context.Background()))
}
