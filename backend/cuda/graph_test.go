package cuda

import (
	"context"
	"encoding/binary"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/backend/cuda/internal/cu"
	"github.com/anygpu/gpu/backend/cuda/internal/fakecuda"
	"github.com/anygpu/gpu/errors"
)

// The capture tests run over the fake driver, whose streams record copies,
// fills, launches and host functions while capturing and whose graph
// launches replay them (copies and fills move host memory, launches are
// logged), and the fake cuBLASLt, whose products captured become host nodes
// computed at every replay.

// graphKernelPTX declares one kernel, noop(buffer, f32), for the fake driver.
const graphKernelPTX = ".version 8.0\n.target sm_90\n.visible .entry noop(\n.param .u64 p\n.param .f32 a\n)\n{\nret;\n}\n"

// graphDriverSyms are the entry points the native capture needs.
var graphDriverSyms = []string{"cuStreamBeginCapture_v2", "cuStreamEndCapture", "cuGraphInstantiateWithFlags",
	"cuGraphLaunch", "cuGraphExecDestroy", "cuGraphDestroy"}

func TestGraphCapture(t *testing.T) {
	for _, tc := range []struct {
		name   string
		omit   []string // driver entry points left out
		native bool
	}{
		{"native", nil, true},
		{"driver without graphs", graphDriverSyms, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			cudaLog := filepath.Join(dir, "cuda.log")
			t.Setenv("FAKECUDA_LOG", cudaLog)
			f := openFakeMatMul(t)
			if tc.omit != nil {
				lib, err := fakecuda.BuildCustom(dir, tc.omit, nil)
				require.NoError(t, err)
				t.Setenv(EnvLibrary, lib)
				require.NoError(t, f.dev.Close())
				f.dev, err = gpu.OpenDriver(context.Background(), Driver{}, 0)
				require.NoError(t, err)
				t.Cleanup(func() { _ = f.dev.Close() })
			}
			testGraphCapture(t, f.dev, cudaLog, tc.native)
		})
	}
}

func testGraphCapture(t *testing.T, dev *gpu.Device, cudaLog string, native bool) {
	ctx := context.Background()
	mod, err := dev.Compile(ctx, gpu.Source{Name: "graph", PTX: graphKernelPTX,
		Params: map[string][]backend.ArgKind{"noop": {backend.ArgBuffer, backend.ArgF32}}})
	require.NoError(t, err)
	defer mod.Close()
	noop, err := mod.Kernel("noop")
	require.NoError(t, err)
	u32s := func(vals ...uint32) []byte {
		b := make([]byte, 4*len(vals))
		for i, v := range vals {
			binary.LittleEndian.PutUint32(b[4*i:], v)
		}
		return b
	}
	alloc := func(vals ...uint32) *gpu.Buffer {
		b, err := gpu.FromSlice(ctx, dev, u32s(vals...))
		require.NoError(t, err)
		t.Cleanup(func() { _ = b.Close() })
		return b
	}
	read := func(b *gpu.Buffer) []byte {
		out := make([]byte, b.Size())
		_, err := b.ReadAt(out, 0)
		require.NoError(t, err)
		return out
	}
	src, dst, filled := alloc(1, 2, 3, 4), alloc(0, 0, 0, 0), alloc(0, 0, 0, 0)
	mm := prepare(t, dev, mmCase{name: "graph", m: 2, n: 3, k: 4, in: gpu.MatMulFloat32}, true, 3)
	cBefore := read(mm.mm.C)
	s, err := dev.NewStream()
	require.NoError(t, err)
	defer s.Close()

	require.NoError(t, s.BeginCapture())
	require.NoError(t, s.Copy(dst, 0, src, 0, 16))
	require.NoError(t, s.Fill(filled, 0, 16, 7))
	require.NoError(t, s.Launch(noop, gpu.D1(1), gpu.D1(32), gpu.Buf(dst), gpu.F32(2)))
	require.NoError(t, s.MatMul(mm.mm))
	assert.Error(t, s.Write(dst, 0, u32s(9)), "a host transfer while capturing")
	g, err := s.EndCapture()
	require.NoError(t, err)
	defer g.Close()
	assert.Equal(t, native, g.Native())
	assert.Equal(t, 4, g.Ops())
	if native {
		assert.Len(t, lines(t, cudaLog, "begin capture mode=2"), 1, "a relaxed capture")
		assert.Len(t, lines(t, cudaLog, "end capture 4"), 1, "the driver recorded 4 nodes")
		assert.Len(t, lines(t, cudaLog, "instantiate 4 flags=0"), 1)
	} else {
		assert.Empty(t, lines(t, cudaLog, "begin capture"))
	}
	assert.Equal(t, u32s(0, 0, 0, 0), read(dst), "the capture ran the copy")
	assert.Equal(t, u32s(0, 0, 0, 0), read(filled), "the capture ran the fill")
	assert.Equal(t, cBefore, read(mm.mm.C), "the capture ran the product")
	assert.Empty(t, lines(t, cudaLog, "launch noop"), "the capture ran the kernel")

	before := dev.Stats()
	for i := range 2 {
		in := []uint32{uint32(10 * i), 5, 6, uint32(i)}
		_, err := src.WriteAt(u32s(in...), 0)
		require.NoError(t, err)
		_, err = mm.mm.C.WriteAt(make([]byte, mm.mm.C.Size()), 0)
		require.NoError(t, err)
		require.NoError(t, g.Launch(s))
		require.NoError(t, s.Synchronize(ctx))
		assert.Equal(t, u32s(in...), read(dst), "replay %d", i)
		assert.Equal(t, u32s(7, 7, 7, 7), read(filled), "replay %d", i)
		mm.check(t, s)
		assert.Len(t, lines(t, cudaLog, "launch noop"), i+1, "replay %d", i)
	}
	if native {
		assert.Len(t, lines(t, cudaLog, "graph launch 4"), 2, "one submission per replay")
	}
	after := dev.Stats()
	assert.Equal(t, int64(2), after.GraphLaunches-before.GraphLaunches)
	assert.Equal(t, int64(4), after.KernelLaunches-before.KernelLaunches, "a kernel and a product per replay")
	require.NoError(t, g.Close())
	if native {
		assert.Len(t, lines(t, cudaLog, "destroy exec"), 1)
		assert.Len(t, lines(t, cudaLog, "destroy graph"), 1)
	}
}

// TestCaptureInvalidated: a call the driver cannot capture invalidates the
// capture, and EndCapture says so by name (the backend's streams, below the
// root, which refuses such calls itself).
func TestCaptureInvalidated(t *testing.T) {
	t.Setenv(EnvLibrary, fakeDriver(t))
	d, err := Driver{}.Open(context.Background(), 0)
	require.NoError(t, err)
	defer d.Close()
	st, err := d.NewStream()
	require.NoError(t, err)
	defer st.Close()
	b, err := d.Alloc(16)
	require.NoError(t, err)
	defer b.Close()
	gc := st.(backend.GraphCapturer)

	require.NoError(t, gc.BeginCapture())
	err = gc.BeginCapture()
	require.Error(t, err, "capturing twice")
	require.Error(t, st.Write(b, 0, make([]byte, 4)))
	_, err = gc.EndCapture()
	require.Error(t, err)
	assert.True(t, strings.Contains(err.Error(), "CUDA_ERROR_STREAM_CAPTURE_INVALIDATED"), "%v", err)
	assert.Equal(t, errors.InvalidArgument, errors.CategoryOf(err))
	_, err = gc.EndCapture()
	require.Error(t, err, "ending a capture that is not under way")

	// A fresh capture on the same stream works, and its graph's node count
	// is the driver's.
	lib, h := d.(*device).lib, st.(*stream).h
	status, r := lib.StreamIsCapturing(h)
	require.Equal(t, cu.Success, r)
	assert.Equal(t, cu.CaptureNone, status)
	require.NoError(t, gc.BeginCapture())
	status, _ = lib.StreamIsCapturing(h)
	assert.Equal(t, cu.CaptureActive, status)
	require.NoError(t, st.Fill(b, 0, 16, 1))
	require.NoError(t, st.Copy(b, 8, b, 0, 8))
	g, err := gc.EndCapture()
	require.NoError(t, err)
	defer g.Close()
	n, err := g.(*graph).Nodes()
	require.NoError(t, err)
	assert.Equal(t, 2, n)
	require.NoError(t, g.Launch(st))
	require.NoError(t, st.Synchronize(context.Background()))
	require.NoError(t, g.Close())
	require.NoError(t, g.Close(), "closing twice")
}

// BenchmarkGraphStep compares the host time of a step of 132 launches (a
// GPT-2 decode step's count) enqueued one by one with one launch of the
// graph captured from them, over the fake driver (launches do nothing: what
// is timed is the host path).
func BenchmarkGraphStep(b *testing.B) {
	b.Setenv(EnvLibrary, fakeDriver(b))
	ctx := context.Background()
	dev, err := gpu.OpenDriver(ctx, Driver{}, 0)
	require.NoError(b, err)
	defer dev.Close()
	mod, err := dev.Compile(ctx, gpu.Source{Name: "graph", PTX: graphKernelPTX,
		Params: map[string][]backend.ArgKind{"noop": {backend.ArgBuffer, backend.ArgF32}}})
	require.NoError(b, err)
	noop, err := mod.Kernel("noop")
	require.NoError(b, err)
	buf, err := dev.Alloc(256)
	require.NoError(b, err)
	defer buf.Close()
	s := dev.DefaultStream()
	const launches = 132
	step := func() error {
		for i := range launches {
			if err := s.Launch(noop, gpu.D1(1), gpu.D1(32), gpu.Buf(buf), gpu.F32(float32(i))); err != nil {
				return err
			}
		}
		return nil
	}
	require.NoError(b, s.BeginCapture())
	require.NoError(b, step())
	g, err := s.EndCapture()
	require.NoError(b, err)
	defer g.Close()
	require.True(b, g.Native())
	b.Run("launches", func(b *testing.B) {
		for b.Loop() {
			if err := step(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("graph", func(b *testing.B) {
		for b.Loop() {
			if err := g.Launch(s); err != nil {
				b.Fatal(err)
			}
		}
	})
}
