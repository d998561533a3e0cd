package backendtest

import (
	"bytes"
	"context"
	"testing"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/errors"
	"github.com/anygpu/gpu/kernels"
	"github.com/stretchr/testify/require"
)

// testCloseTwice: every Close is idempotent.
func (s *suite) testCloseTwice(t *testing.T) {
	dev := s.open(t)
	bk := s.builtins(t, dev)
	buf, err := dev.Alloc(64)
	require.NoError(t, err)
	hb, err := dev.AllocHost(64)
	require.NoError(t, err)
	st, err := dev.NewStream()
	require.NoError(t, err)
	ev, err := st.Record()
	require.NoError(t, err)
	for i := 0; i < 2; i++ {
		require.NoError(t, ev.Close(), "event close %d", i)
		require.NoError(t, st.Close(), "stream close %d", i)
		require.NoError(t, buf.Close(), "buffer close %d", i)
		require.NoError(t, hb.Close(), "host buffer close %d", i)
		require.NoError(t, bk.mod.Close(), "module close %d", i)
		require.NoError(t, dev.DefaultStream().Close(), "default stream close %d", i)
	}
	require.NoError(t, dev.Close())
	require.NoError(t, dev.Close())
}

// testUseAfterClose: each object reports Closed once closed, and so does
// everything of a closed device.
func (s *suite) testUseAfterClose(t *testing.T) {
	ctx := ctxT(t)
	dev := s.open(t)
	bk := s.builtins(t, dev)
	st, err := dev.NewStream()
	require.NoError(t, err)
	buf, err := dev.Alloc(64)
	require.NoError(t, err)
	other, err := dev.Alloc(64)
	require.NoError(t, err)
	hb, err := dev.AllocHost(64)
	require.NoError(t, err)
	ev, err := st.Record()
	require.NoError(t, err)
	fill := bk.kernel(t, kernels.OpFill)

	require.NoError(t, buf.Close())
	requireCategory(t, st.Write(buf, 0, []byte{1}), errors.Closed, "write to a closed buffer")
	requireCategory(t, st.Read(make([]byte, 1), buf, 0), errors.Closed, "read from a closed buffer")
	requireCategory(t, st.Copy(other, 0, buf, 0, 4), errors.Closed, "copy from a closed buffer")
	requireCategory(t, st.Copy(buf, 0, other, 0, 4), errors.Closed, "copy to a closed buffer")
	requireCategory(t, st.Fill(buf, 0, 4, 0), errors.Closed, "fill a closed buffer")
	requireCategory(t, st.Launch(fill, gpu.D1(1), gpu.D1(1), gpu.Buf(buf), gpu.U32(1), gpu.F32(0)), errors.Closed, "launch on a closed buffer")
	_, err = buf.ReadAt(make([]byte, 1), 0)
	requireCategory(t, err, errors.Closed)
	_, err = buf.WriteAt([]byte{1}, 0)
	requireCategory(t, err, errors.Closed)
	_, err = buf.ReadFrom(bytes.NewReader([]byte{1}))
	requireCategory(t, err, errors.Closed)

	require.NoError(t, hb.Close())
	require.Nil(t, hb.Bytes())
	requireCategory(t, st.WriteHost(other, 0, hb, 0, 4), errors.Closed)

	require.NoError(t, ev.Close())
	requireCategory(t, ev.Synchronize(ctx), errors.Closed)
	_, err = ev.Done()
	requireCategory(t, err, errors.Closed)
	requireCategory(t, st.Wait(ev), errors.Closed)

	require.NoError(t, st.Close())
	requireCategory(t, st.Write(other, 0, []byte{1}), errors.Closed, "write on a closed stream")
	requireCategory(t, st.Synchronize(ctx), errors.Closed)
	_, err = st.Record()
	requireCategory(t, err, errors.Closed)

	require.NoError(t, bk.mod.Close())
	_, err = bk.mod.Kernel(kernels.OpFill)
	requireCategory(t, err, errors.Closed)
	requireCategory(t, dev.DefaultStream().Launch(fill, gpu.D1(1), gpu.D1(1), gpu.Buf(other), gpu.U32(1), gpu.F32(0)), errors.Closed, "launch of a closed module's kernel")

	require.NoError(t, dev.Close())
	_, err = dev.Alloc(64)
	requireCategory(t, err, errors.Closed)
	_, err = dev.AllocHost(64)
	requireCategory(t, err, errors.Closed)
	_, err = dev.NewStream()
	requireCategory(t, err, errors.Closed)
	_, err = dev.Compile(ctx, kernels.Source())
	requireCategory(t, err, errors.Closed)
	requireCategory(t, dev.Synchronize(ctx), errors.Closed)
	requireCategory(t, dev.DefaultStream().Write(other, 0, []byte{1}), errors.Closed, "default stream of a closed device")
	_, err = other.ReadAt(make([]byte, 1), 0)
	requireCategory(t, err, errors.Closed, "buffer of a closed device")
	require.NoError(t, other.Close(), "closing a buffer after its device is fine")
}

func (s *suite) testBadRanges(t *testing.T) {
	st := s.dev.DefaultStream()
	b, err := s.dev.Alloc(100)
	require.NoError(t, err)
	defer b.Close()
	c, err := s.dev.Alloc(100)
	require.NoError(t, err)
	defer c.Close()
	for _, tc := range []struct {
		name string
		err  error
	}{
		{"write past end", st.Write(b, 90, make([]byte, 11))},
		{"write negative offset", st.Write(b, -1, make([]byte, 1))},
		{"write at size", st.Write(b, 100, make([]byte, 1))},
		{"write offset overflow", st.Write(b, 1<<62, make([]byte, 1))},
		{"read past end", st.Read(make([]byte, 101), b, 0)},
		{"read negative offset", st.Read(make([]byte, 1), b, -5)},
		{"copy source past end", st.Copy(c, 0, b, 50, 51)},
		{"copy destination past end", st.Copy(c, 99, b, 0, 2)},
		{"copy negative size", st.Copy(c, 0, b, 0, -1)},
		{"copy negative source offset", st.Copy(c, 0, b, -4, 4)},
		{"fill past end", st.Fill(b, 96, 8, 0)},
		{"fill negative size", st.Fill(b, 0, -4, 0)},
		{"nil buffer write", st.Write(nil, 0, []byte{1})},
		{"nil buffer read", st.Read([]byte{1}, nil, 0)},
		{"nil source copy", st.Copy(b, 0, nil, 0, 1)},
	} {
		t.Run(tc.name, func(t *testing.T) { requireCategory(t, tc.err, errors.InvalidArgument) })
	}
	// Zero-length transfers are valid no-ops, also at the very end.
	require.NoError(t, st.Write(b, 100, nil))
	require.NoError(t, st.Read(nil, b, 100))
	require.NoError(t, st.Copy(c, 100, b, 0, 0))
	require.NoError(t, st.Fill(b, 0, 0, 0))
	require.NoError(t, st.Synchronize(ctxT(t)))
}

func (s *suite) testBadSizes(t *testing.T) {
	for _, size := range []int64{0, -1, -1 << 40} {
		_, err := s.dev.Alloc(size)
		requireCategory(t, err, errors.InvalidArgument, "Alloc(%d)", size)
		_, err = s.dev.AllocHost(size)
		requireCategory(t, err, errors.InvalidArgument, "AllocHost(%d)", size)
	}
}

// testOversize asks for more memory than the device has.
func (s *suite) testOversize(t *testing.T) {
	sizes := []int64{s.info.MemoryBytes + 1, 1 << 50, 1<<63 - 1}
	if max := s.info.MaxBufferBytes; max > 0 && max < s.info.MemoryBytes {
		sizes = append(sizes, max+1) // more than one buffer may hold, though the memory has room
	}
	for _, size := range sizes {
		_, err := s.dev.Alloc(size)
		requireCategory(t, err, errors.OutOfMemory, "Alloc(%d) on a device of %d bytes (largest buffer %d)", size, s.info.MemoryBytes, s.info.MaxBufferBytes)
	}
	// The device still works afterwards.
	b, err := s.dev.Alloc(4096)
	require.NoError(t, err)
	require.NoError(t, b.Close())
}

// brokenSource does not compile in any dialect.
func brokenSource() gpu.Source {
	return gpu.Source{
		Name:  "broken",
		CUDA:  `extern "C" __global__ void broken(float* x) { x[threadIdx.x] = undeclared_identifier; }`,
		SPIRV: []byte{0xde, 0xad, 0xbe, 0xef, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12},
		GLSL:  "#version 430\nlayout(local_size_x = 1) in;\nvoid main() { undeclared_function(); }\n",
		WGSL:  "@compute @workgroup_size(1) fn broken() { let x: f32 = undeclared_variable; }\n",
		MSL:   "#include <metal_stdlib>\nkernel void broken(device float* x [[buffer(0)]]) { x[0] = undeclared_identifier; }\n",
		Go:    map[string]gpu.GoKernel{"broken": nil},
	}
}

func (s *suite) testCompileErrors(t *testing.T) {
	ctx := ctxT(t)
	_, err := s.dev.Compile(ctx, brokenSource())
	requireCategory(t, err, errors.Compilation)
	require.NotEmpty(t, errors.LogOf(err), "a compile error carries the compiler's log")
	t.Logf("compile error: %v\nlog:\n%s", err, errors.LogOf(err))

	_, err = s.dev.Compile(ctx, gpu.Source{Name: "empty"})
	requireCategory(t, err, errors.NotSupported, "a source without this backend's dialect")

	bad := kernels.Source()
	bad.Params = map[string][]gpu.ArgKind{"fill": {gpu.ArgKind(99)}}
	_, err = s.dev.Compile(ctx, bad)
	requireCategory(t, err, errors.InvalidArgument, "Params with an invalid kind")

	var nilCtx context.Context
	_, err = s.dev.Compile(nilCtx, kernels.Source()) //nolint:staticcheck // a nil context is the point
	requireCategory(t, err, errors.InvalidArgument)

	bk := s.builtins(t, s.dev)
	_, err = bk.mod.Kernel("no_such_kernel")
	require.Error(t, err)
	require.Contains(t, []errors.Category{errors.InvalidArgument, errors.NotSupported}, errors.CategoryOf(err))
}

func (s *suite) testBadLaunches(t *testing.T) {
	bk := s.builtins(t, s.dev)
	st := s.dev.DefaultStream()
	axpy := bk.kernel(t, kernels.OpAxpy)
	x, err := gpu.AllocSlice[float32](s.dev, 256)
	require.NoError(t, err)
	defer x.Close()
	y, err := gpu.AllocSlice[float32](s.dev, 256)
	require.NoError(t, err)
	defer y.Close()
	g, b := gpu.D1(1), gpu.D1(min(256, s.info.MaxThreadsPerBlock))
	for _, tc := range []struct {
		name string
		err  error
		want errors.Category
	}{
		{"too few arguments", st.Launch(axpy, g, b, gpu.Buf(y), gpu.Buf(x), gpu.U32(256)), errors.InvalidArgument},
		{"too many arguments", st.Launch(axpy, g, b, gpu.Buf(y), gpu.Buf(x), gpu.U32(256), gpu.F32(1), gpu.F32(1)), errors.InvalidArgument},
		{"scalar for buffer", st.Launch(axpy, g, b, gpu.F32(1), gpu.Buf(x), gpu.U32(256), gpu.F32(1)), errors.InvalidArgument},
		{"buffer for scalar", st.Launch(axpy, g, b, gpu.Buf(y), gpu.Buf(x), gpu.Buf(x), gpu.F32(1)), errors.InvalidArgument},
		{"f64 for f32", st.Launch(axpy, g, b, gpu.Buf(y), gpu.Buf(x), gpu.U32(256), gpu.F64(1)), errors.InvalidArgument},
		{"i32 for u32", st.Launch(axpy, g, b, gpu.Buf(y), gpu.Buf(x), gpu.I32(256), gpu.F32(1)), errors.InvalidArgument},
		{"zero value arg", st.Launch(axpy, g, b, gpu.Buf(y), gpu.Buf(x), gpu.Arg{}, gpu.F32(1)), errors.InvalidArgument},
		{"nil buffer", st.Launch(axpy, g, b, gpu.Buf(nil), gpu.Buf(x), gpu.U32(256), gpu.F32(1)), errors.InvalidArgument},
		{"nil kernel", st.Launch(nil, g, b), errors.InvalidArgument},
		{"zero grid", st.Launch(axpy, gpu.Dim3{}, b, gpu.Buf(y), gpu.Buf(x), gpu.U32(256), gpu.F32(1)), errors.InvalidArgument},
		{"negative block", st.Launch(axpy, g, gpu.D1(-1), gpu.Buf(y), gpu.Buf(x), gpu.U32(256), gpu.F32(1)), errors.InvalidArgument},
		{"block too large", st.Launch(axpy, g, gpu.D1(s.info.MaxThreadsPerBlock+1), gpu.Buf(y), gpu.Buf(x), gpu.U32(256), gpu.F32(1)), errors.Launch},
		{"block too large in y", st.Launch(axpy, g, gpu.D2(1, s.info.MaxBlockDim.Y+1), gpu.Buf(y), gpu.Buf(x), gpu.U32(256), gpu.F32(1)), errors.Launch},
	} {
		t.Run(tc.name, func(t *testing.T) { requireCategory(t, tc.err, tc.want) })
	}
	if s.info.MaxGridDim.Y > 0 && s.info.MaxGridDim.Y < 1<<30 {
		requireCategory(t, st.Launch(axpy, gpu.D2(1, s.info.MaxGridDim.Y+1), b, gpu.Buf(y), gpu.Buf(x), gpu.U32(256), gpu.F32(1)), errors.Launch, "grid too large in y")
	}
	t.Run("launch options", func(t *testing.T) {
		args := []gpu.Arg{gpu.Buf(y), gpu.Buf(x), gpu.U32(256), gpu.F32(1)}
		with := func(smem int, coop bool) error {
			return st.LaunchWith(axpy, gpu.LaunchConfig{Grid: g, Block: b, SharedMemBytes: smem, Cooperative: coop}, args...)
		}
		requireCategory(t, with(-4, false), errors.InvalidArgument, "negative shared memory")
		if limit := max(s.info.SharedMemPerBlockOptin, s.info.SharedMemPerBlock); limit > 0 {
			// More than the device has: refused before the backend sees it, never a fault.
			requireCategory(t, with(limit+1, false), errors.InvalidArgument, "shared memory over the device's limit")
		}
		// What the device can do runs; a backend that cannot size shared
		// memory at launch or launch cooperatively says NotSupported.
		for _, tc := range []struct {
			name string
			err  error
		}{{"1 KiB of dynamic shared memory", with(1024, false)}, {"cooperative", with(0, true)}} {
			if tc.err != nil {
				requireCategory(t, tc.err, errors.NotSupported, tc.name)
			}
		}
	})
	require.NoError(t, st.Synchronize(ctxT(t)), "refused launches leave no error behind")
}

// testCrossDevice uses buffers of one Device with another Device of the same
// backend: copies work (peer or staged), kernels and plain transfers refuse.
func (s *suite) testCrossDevice(t *testing.T) {
	ctx := ctxT(t)
	other := s.open(t)
	ob, err := gpu.FromSlice(ctx, other, []float32{1, 2, 3, 4})
	require.NoError(t, err)
	defer ob.Close()
	mine, err := gpu.AllocSlice[float32](s.dev, 4)
	require.NoError(t, err)
	defer mine.Close()
	st := s.dev.DefaultStream()
	requireCategory(t, st.Write(ob, 0, []byte{1}), errors.InvalidArgument, "writing another device's buffer")
	require.NoError(t, st.Copy(mine, 0, ob, 0, 16), "copy from another device")
	require.NoError(t, st.Synchronize(ctx))
	require.Equal(t, []float32{1, 2, 3, 4}, download(t, mine))
	bk := s.builtins(t, s.dev)
	requireCategory(t, st.Launch(bk.kernel(t, kernels.OpFill), gpu.D1(1), gpu.D1(4), gpu.Buf(ob), gpu.U32(4), gpu.F32(0)), errors.InvalidArgument, "kernel on another device's buffer")
}

func (s *suite) testPoolAndStats(t *testing.T) {
	ctx := ctxT(t)
	dev := s.open(t)
	st := dev.DefaultStream()
	before := dev.Pool().Stats()
	for i := 0; i < 3; i++ {
		b, err := dev.Alloc(1 << 20)
		require.NoError(t, err)
		require.NoError(t, b.Close())
	}
	ps := dev.Pool().Stats()
	require.Equal(t, before.Misses+1, ps.Misses, "the first 1 MiB allocation misses")
	require.Equal(t, before.Hits+2, ps.Hits, "the next two reuse the block")
	require.Positive(t, ps.HitRate())
	require.Equal(t, int64(1<<20), ps.Available)
	dev.Pool().Trim()
	require.Zero(t, dev.Pool().Stats().Available)

	b, err := dev.Alloc(1000)
	require.NoError(t, err)
	defer b.Close()
	c, err := dev.Alloc(1000)
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, st.Write(b, 0, make([]byte, 1000)))
	require.NoError(t, st.Write(b, 0, make([]byte, 10)))
	require.NoError(t, st.Copy(c, 0, b, 0, 500))
	require.NoError(t, st.Read(make([]byte, 300), c, 0))
	require.NoError(t, st.Fill(b, 0, 400, 0))
	require.NoError(t, st.Synchronize(ctx))
	bs := b.Transfers()
	require.Equal(t, gpu.Transfer{Count: 2, Bytes: 1010}, bs.H2D)
	require.Equal(t, gpu.Transfer{Count: 1, Bytes: 500}, bs.D2D, "the source of a copy counts it")
	require.Equal(t, gpu.Transfer{Count: 1, Bytes: 400}, bs.Fill)
	cs := c.Transfers()
	require.Equal(t, gpu.Transfer{Count: 1, Bytes: 300}, cs.D2H)
	ds := dev.Stats()
	require.Equal(t, int64(1010), ds.Transfers.H2D.Bytes)
	require.Equal(t, int64(300), ds.Transfers.D2H.Bytes)
	require.Equal(t, int64(500), ds.Transfers.D2D.Bytes)
	require.Equal(t, int64(2000), ds.LiveBytes)
	require.GreaterOrEqual(t, ds.PeakBytes, int64(1<<20))
	require.Equal(t, int64(5), ds.Allocations)
	require.Equal(t, int64(3), ds.Frees)
}

func (s *suite) testErrorHistory(t *testing.T) {
	dev := s.open(t)
	_, _ = dev.Alloc(-1)
	_, _ = dev.Alloc(0)
	_, _ = dev.Alloc(1 << 50)
	h := dev.Errors()
	require.Equal(t, 3, h.Total)
	require.Equal(t, 2, h.Count(errors.InvalidArgument))
	require.Equal(t, 1, h.Count(errors.OutOfMemory))
	require.Len(t, h.Recent, 3)
	require.Equal(t, errors.OutOfMemory, h.Recent[2].Category, "oldest first")
	require.Equal(t, 3, dev.Stats().Errors)
}

// faultSource indexes far out of bounds in every dialect that can fault.
func faultSource() gpu.Source {
	return gpu.Source{
		Name: "fault",
		// The address comes from a parameter and the store is volatile: NVVM
		// deletes a store through a constant null-based pointer.
		CUDA: `extern "C" __global__ void fault(float* x, unsigned n) { ((volatile float*)((unsigned long long)n << 2))[threadIdx.x] = 1.0f; }`,
		Go: map[string]gpu.GoKernel{"fault": func(g gpu.Group, args []gpu.KernelArg) {
			x := args[0].Float32s()
			x[len(x)+int(args[1].U32())] = 1
		}},
		Params: map[string][]gpu.ArgKind{"fault": {gpu.KindBuffer, gpu.KindU32}},
	}
}

// testKernelFault launches a kernel that writes out of bounds: the error
// surfaces (at Launch or Synchronize) as Execution or DeviceLost, and
// afterwards the device either works or fails fast with DeviceLost.
func (s *suite) testKernelFault(t *testing.T) {
	ctx := ctxT(t)
	dev := s.open(t)
	mod, err := dev.Compile(ctx, faultSource())
	if errors.Is(err, errors.NotSupported) {
		t.Logf("no faulting dialect for %s: %v", dev.Backend(), err)
		return
	}
	require.NoError(t, err)
	k, err := mod.Kernel("fault")
	require.NoError(t, err)
	x, err := dev.Alloc(64)
	require.NoError(t, err)
	st := dev.DefaultStream()
	err = st.Launch(k, gpu.D1(1), gpu.D1(1), gpu.Buf(x), gpu.U32(1<<20))
	if err == nil {
		err = st.Synchronize(ctx)
	}
	require.Error(t, err, "an out-of-bounds write is reported")
	require.Contains(t, []errors.Category{errors.Execution, errors.DeviceLost}, errors.CategoryOf(err), "fault: %v", err)
	_, err = dev.Alloc(64)
	if err != nil {
		requireCategory(t, err, errors.DeviceLost, "after a fatal fault the device fails fast")
		require.True(t, errors.IsFatal(err))
		return
	}
	// A device that survived must compute correctly again.
	b, err := gpu.FromSlice(ctx, dev, []float32{5})
	require.NoError(t, err)
	require.Equal(t, []float32{5}, download(t, b))
}
