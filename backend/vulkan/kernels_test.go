package vulkan_test

import (
	"context"
	_ "embed"
	"encoding/binary"
	"os"
	"os/exec"
	"testing"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/backend/vulkan"
	"github.com/anygpu/gpu/errors"
	"github.com/anygpu/gpu/kernels"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The SPIR-V TestSPIRVSource loads, generated and committed:
//
//go:generate glslc --target-env=vulkan1.1 -O -o testdata/fill_push.spv testdata/fill_push.comp
//go:generate spirv-val --target-env vulkan1.1 testdata/fill_push.spv

//go:embed testdata/fill_push.spv
var fillPushSPIRV []byte

func openDevice(t testing.TB, opts ...gpu.Option) *gpu.Device {
	t.Helper()
	ctx := context.Background()
	if _, err := (vulkan.Driver{}).Probe(ctx); err != nil {
		t.Skip("no Vulkan:", err)
	}
	dev, err := gpu.OpenDriver(ctx, vulkan.Driver{}, 0, opts...)
	require.NoError(t, err)
	t.Cleanup(func() { _ = dev.Close() })
	return dev
}

func requireShaderc(t *testing.T) {
	t.Helper()
	if ok, why := vulkan.GLSLCompiler(); !ok {
		t.Skip("no GLSL compiler:", why)
	}
}

// pushGLSL is a Vulkan GLSL kernel: any block size, scalars as push constants.
const pushGLSL = `#version 450
layout(local_size_x_id = 0) in;
layout(set = 0, binding = 0) buffer Y { float y[]; };
layout(push_constant) uniform P { uint n; float a; } p;
void main() {
	uint i = gl_GlobalInvocationID.x;
	if (i < p.n) y[i] = y[i] * p.a + OFFSET;
}
`

// openglGLSL is written for OpenGL 4.3: a fixed local size and the scalars in
// a uniform block at binding n (the OpenGL backend's ABI).
const openglGLSL = `#version 430
layout(local_size_x = 64) in;
layout(std430, binding = 0) buffer Y { float y[]; };
layout(std430, binding = 1) readonly buffer X { float x[]; };
layout(std140, binding = 2) uniform Params { uint n; float a; };
void main() {
	uint i = gl_GlobalInvocationID.x;
#ifdef ANYGPU_KERNEL_axpy
	if (i < n) y[i] += a * x[i];
#endif
#ifdef ANYGPU_KERNEL_scale
	if (i < n) y[i] = a * x[i];
#endif
}
`

func TestRuntimeGLSL(t *testing.T) {
	requireShaderc(t)
	dev := openDevice(t)
	ctx := context.Background()
	mod, err := dev.Compile(ctx, gpu.Source{Name: "affine", GLSL: pushGLSL}, gpu.Define("OFFSET", "1.0"))
	require.NoError(t, err)
	defer mod.Close()
	k, err := mod.Kernel("affine")
	require.NoError(t, err)
	attrs, err := k.Attributes()
	require.NoError(t, err)
	assert.Zero(t, attrs.WorkGroupSize, "the launch chooses the block")
	y, err := gpu.FromSlice(ctx, dev, []float32{1, 2, 3, 4, 5})
	require.NoError(t, err)
	defer y.Close()
	st := dev.DefaultStream()
	for _, block := range []int{1, 3, 64} {
		require.NoError(t, st.Launch(k, gpu.D1((5+block-1)/block), gpu.D1(block), gpu.Buf(y), gpu.U32(5), gpu.F32(2)))
	}
	got, err := gpu.ToSlice[float32](ctx, y)
	require.NoError(t, err)
	// Three times y = 2y + 1.
	assert.Equal(t, []float32{15, 23, 31, 39, 47}, got)
	requireNoValidationMessages(t)
}

func TestRuntimeGLSLOpenGLABI(t *testing.T) {
	requireShaderc(t)
	dev := openDevice(t)
	ctx := context.Background()
	src := gpu.Source{Name: "gl", GLSL: openglGLSL, Params: map[string][]gpu.ArgKind{
		"axpy":  {gpu.KindBuffer, gpu.KindBuffer, gpu.KindU32, gpu.KindF32},
		"scale": {gpu.KindBuffer, gpu.KindBuffer, gpu.KindU32, gpu.KindF32},
	}}
	mod, err := dev.Compile(ctx, src)
	require.NoError(t, err)
	defer mod.Close()
	axpy, err := mod.Kernel("axpy")
	require.NoError(t, err)
	scale, err := mod.Kernel("scale")
	require.NoError(t, err)
	attrs, err := axpy.Attributes()
	require.NoError(t, err)
	assert.Equal(t, gpu.Dim3{X: 64, Y: 1, Z: 1}, attrs.WorkGroupSize)
	const n = 1000
	xs := make([]float32, n)
	for i := range xs {
		xs[i] = float32(i)
	}
	x, err := gpu.FromSlice(ctx, dev, xs)
	require.NoError(t, err)
	defer x.Close()
	y, err := gpu.AllocSlice[float32](dev, n)
	require.NoError(t, err)
	defer y.Close()
	st := dev.DefaultStream()
	g := gpu.D1((n + 63) / 64)
	require.NoError(t, st.Launch(scale, g, gpu.D1(64), gpu.Buf(y), gpu.Buf(x), gpu.U32(n), gpu.F32(3)))
	require.NoError(t, st.Launch(axpy, g, gpu.D1(64), gpu.Buf(y), gpu.Buf(x), gpu.U32(n), gpu.F32(-1)))
	got, err := gpu.ToSlice[float32](ctx, y)
	require.NoError(t, err)
	for i, v := range got {
		require.Equal(t, float32(2*i), v, "y[%d]", i)
	}
	err = st.Launch(axpy, g, gpu.D1(32), gpu.Buf(y), gpu.Buf(x), gpu.U32(n), gpu.F32(1))
	require.Error(t, err)
	assert.Equal(t, errors.Launch, errors.CategoryOf(err), "%v", err)
	assert.Contains(t, err.Error(), "fixed")
	require.NoError(t, st.Synchronize(ctx))
	requireNoValidationMessages(t)
}

func TestRuntimeGLSLErrors(t *testing.T) {
	requireShaderc(t)
	dev := openDevice(t)
	ctx := context.Background()
	_, err := dev.Compile(ctx, gpu.Source{Name: "bad", GLSL: "#version 450\nlayout(local_size_x = 1) in;\nvoid main() { undeclared_function(); }\n"})
	require.Error(t, err)
	assert.Equal(t, errors.Compilation, errors.CategoryOf(err))
	assert.Contains(t, errors.LogOf(err), "undeclared_function")
	assert.Contains(t, err.Error(), "vulkan: ")

	_, err = dev.Compile(ctx, gpu.Source{Name: "affine", GLSL: pushGLSL}, gpu.Define("OFFSET", "1.0"), gpu.CompilerFlags("--bogus"))
	assert.Equal(t, errors.InvalidArgument, errors.CategoryOf(err), "%v", err)
	_, err = dev.Compile(ctx, gpu.Source{Name: "affine", GLSL: pushGLSL}, gpu.Define("OFFSET", "1.0"), gpu.CompilerFlags("-O0", "-g"))
	assert.NoError(t, err)
}

func TestSPIRVSource(t *testing.T) {
	dev := openDevice(t)
	ctx := context.Background()
	blob := fillPushSPIRV // scalars as push constants (testdata/fill_push.comp)
	// One module, one entry point "main", no Params: the kernel is named
	// after the source (and after its entry point).
	mod, err := dev.Compile(ctx, gpu.Source{Name: "myfill", SPIRV: blob})
	require.NoError(t, err)
	defer mod.Close()
	k, err := mod.Kernel("myfill")
	require.NoError(t, err)
	_, err = mod.Kernel("main")
	require.NoError(t, err)
	_, err = mod.Kernel("nope")
	assert.Equal(t, errors.InvalidArgument, errors.CategoryOf(err))
	y, err := gpu.AllocSlice[float32](dev, 100)
	require.NoError(t, err)
	defer y.Close()
	st := dev.DefaultStream()
	require.NoError(t, st.Launch(k, gpu.D1(2), gpu.D1(50), gpu.Buf(y), gpu.U32(100), gpu.F32(7)))
	got, err := gpu.ToSlice[float32](ctx, y)
	require.NoError(t, err)
	assert.Equal(t, kernels.RefFill(100, 7), got)

	// Without Params the backend checks what it can: the buffer count and
	// the push-constant size.
	err = st.Launch(k, gpu.D1(1), gpu.D1(1), gpu.Buf(y), gpu.Buf(y), gpu.U32(1), gpu.F32(0))
	assert.Equal(t, errors.InvalidArgument, errors.CategoryOf(err), "%v", err)
	err = st.Launch(k, gpu.D1(1), gpu.D1(1), gpu.Buf(y))
	assert.Equal(t, errors.InvalidArgument, errors.CategoryOf(err), "%v", err)
	err = st.Launch(k, gpu.D1(1), gpu.D1(1), gpu.Buf(y), gpu.U32(1), gpu.F32(0), gpu.U64(3))
	assert.Equal(t, errors.InvalidArgument, errors.CategoryOf(err), "%v", err)
	require.NoError(t, st.Synchronize(ctx))

	// Broken in ways only a validator sees: a float type 33 bits wide.
	if ok, _ := vulkan.SPIRVValidator(); ok {
		bad := append([]byte(nil), blob...)
		patched := false
		for i := 20; i+12 <= len(bad); i += 4 {
			w := binary.LittleEndian.Uint32(bad[i:])
			if w == 3<<16|22 && binary.LittleEndian.Uint32(bad[i+8:]) == 32 { // OpTypeFloat %id 32
				binary.LittleEndian.PutUint32(bad[i+8:], 33)
				patched = true
				break
			}
		}
		require.True(t, patched)
		_, err = dev.Compile(ctx, gpu.Source{Name: "badfloat", SPIRV: bad})
		require.Error(t, err)
		assert.Equal(t, errors.Compilation, errors.CategoryOf(err))
		assert.Contains(t, errors.LogOf(err), "spirv-val")
		t.Log(errors.LogOf(err))
	}
	requireNoValidationMessages(t)
}

func TestBuiltinsOddBlocks(t *testing.T) {
	dev := openDevice(t)
	ctx := context.Background()
	mod, err := dev.Compile(ctx, kernels.Source())
	require.NoError(t, err)
	defer mod.Close()
	st := dev.DefaultStream()
	k := func(op string) *gpu.Kernel {
		kk, err := mod.Kernel(op)
		require.NoError(t, err)
		return kk
	}
	// sgemm and transpose with blocks other than 16×16, and y/z extents.
	const m, n, kk = 37, 29, 23
	a := make([]float32, m*kk)
	b := make([]float32, kk*n)
	for i := range a {
		a[i] = float32(i%7) - 3
	}
	for i := range b {
		b[i] = float32(i%5) - 2
	}
	ba, err := gpu.FromSlice(ctx, dev, a)
	require.NoError(t, err)
	bb, err := gpu.FromSlice(ctx, dev, b)
	require.NoError(t, err)
	bc, err := gpu.AllocSlice[float32](dev, m*n)
	require.NoError(t, err)
	want := kernels.RefSgemm(make([]float32, m*n), a, b, m, n, kk, 1, 0)
	// A grid of idle groups around the data: 100×100 groups of 256 threads
	// take seconds on lavapipe; -short's 10×10 still leaves most groups idle.
	idle := 100
	if testing.Short() {
		idle = 10
	}
	for _, shape := range []struct{ grid, block gpu.Dim3 }{
		{gpu.D2(1, 1), gpu.D2(16, 16)},
		{gpu.D2(3, 2), gpu.D2(8, 4)},
		{gpu.Dim3{X: 2, Y: 2, Z: 2}, gpu.Dim3{X: 4, Y: 4, Z: 2}},
		{gpu.D2(idle, idle), gpu.D2(16, 16)},
	} {
		require.NoError(t, st.Fill(bc, 0, 4*m*n, 0x7fc00000)) // NaN: beta 0 must not read C
		require.NoError(t, st.Launch(k(kernels.OpSgemm), shape.grid, shape.block, gpu.Buf(bc), gpu.Buf(ba), gpu.Buf(bb),
			gpu.U32(m), gpu.U32(n), gpu.U32(kk), gpu.F32(1), gpu.F32(0)))
		got, err := gpu.ToSlice[float32](ctx, bc)
		require.NoError(t, err)
		assert.Equal(t, want, got, "sgemm grid %v block %v", shape.grid, shape.block)

		require.NoError(t, st.Launch(k(kernels.OpTranspose), shape.grid, shape.block, gpu.Buf(bc), gpu.Buf(ba), gpu.U32(m), gpu.U32(kk)))
		got, err = gpu.ToSlice[float32](ctx, bc)
		require.NoError(t, err)
		assert.Equal(t, kernels.RefTranspose(a, m, kk), got[:m*kk], "transpose grid %v block %v", shape.grid, shape.block)
	}
	// Reductions with an odd block size and y extent.
	x := make([]float32, 1001)
	for i := range x {
		x[i] = 1
	}
	bx, err := gpu.FromSlice(ctx, dev, x)
	require.NoError(t, err)
	part, err := gpu.AllocSlice[float32](dev, 7)
	require.NoError(t, err)
	require.NoError(t, st.Launch(k(kernels.OpReduceSum), gpu.D1(7), gpu.D2(13, 3), gpu.Buf(part), gpu.Buf(bx), gpu.U32(1001)))
	require.NoError(t, st.Launch(k(kernels.OpReduceSum), gpu.D1(1), gpu.D1(5), gpu.Buf(part), gpu.Buf(part), gpu.U32(7)))
	got, err := gpu.ToSlice[float32](ctx, part)
	require.NoError(t, err)
	assert.Equal(t, float32(1001), got[0])
	requireNoValidationMessages(t)
}

func TestInfo(t *testing.T) {
	dev := openDevice(t)
	info := dev.Info()
	assert.Equal(t, vulkan.Name, info.Backend)
	assert.NotEmpty(t, info.Vendor)
	assert.NotEmpty(t, info.DriverVersion)
	assert.Regexp(t, `^1\.\d+\.\d+$`, info.APIVersion)
	assert.Positive(t, info.WarpSize, "subgroup size")
	assert.Positive(t, info.SharedMemPerBlock)
	assert.Positive(t, info.TimestampPeriodNs)
	assert.Positive(t, info.MaxBufferBytes)
	assert.Positive(t, info.MaxBlockDim.Z)
	assert.Positive(t, info.MaxGridDim.Z)
	for _, k := range []string{"heaps", "memory_types", "queue_families", "queues", "max_storage_buffer_range", "sync", "descriptors"} {
		assert.NotEmpty(t, info.Extra[k], "Extra[%q]", k)
	}
	t.Logf("%+v", info)
	free, total, err := dev.MemInfo()
	require.NoError(t, err)
	assert.Positive(t, total)
	assert.LessOrEqual(t, free, total)
}

// A SPIR-V 1.6 module (glslc for Vulkan 1.3) has LocalSizeId: needs maintenance4.
func TestLocalSizeIdModule(t *testing.T) {
	if _, err := exec.LookPath("glslc"); err != nil {
		t.Skip("no glslc")
	}
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(dir+"/k.comp", []byte(pushGLSL), 0o644))
	out, err := exec.Command("glslc", "--target-env=vulkan1.3", "-DOFFSET=1.0", "-o", dir+"/k.spv", dir+"/k.comp").CombinedOutput()
	require.NoError(t, err, "%s", out)
	blob, _ := os.ReadFile(dir + "/k.spv")
	dev := openDevice(t)
	if dev.Info().APIVersion < "1.3" {
		t.Skip("device below 1.3")
	}
	mod, err := dev.Compile(context.Background(), gpu.Source{Name: "affine", SPIRV: blob})
	require.NoError(t, err)
	k, _ := mod.Kernel("affine")
	y, _ := gpu.FromSlice(context.Background(), dev, []float32{1, 2})
	require.NoError(t, dev.DefaultStream().Launch(k, gpu.D1(1), gpu.D1(2), gpu.Buf(y), gpu.U32(2), gpu.F32(2)))
	got, _ := gpu.ToSlice[float32](context.Background(), y)
	require.Equal(t, []float32{3, 5}, got)
	requireNoValidationMessages(t)
}

// TestCopyD2DPaths checks both ways Stream.Copy moves data within a device:
// the copy kernel (large copies at 16-byte multiples) and vkCmdCopyBuffer
// (everything else), also within one buffer.
func TestCopyD2DPaths(t *testing.T) {
	for _, mode := range []string{"kernel", "copy"} {
		t.Run(mode, func(t *testing.T) {
			t.Setenv(vulkan.EnvD2D, mode)
			dev := openDevice(t)
			want := map[string]string{"kernel": "copy kernel", "copy": "vkCmdCopyBuffer"}[mode]
			require.Equal(t, want, dev.Info().Extra["d2d"])
			ctx := context.Background()
			st := dev.DefaultStream()
			const size = 8<<20 + 64
			data := make([]byte, size)
			for i := range data {
				data[i] = byte(i*7 + i>>9)
			}
			src, err := dev.Alloc(size)
			require.NoError(t, err)
			defer src.Close()
			require.NoError(t, st.Write(src, 0, data))
			for _, c := range []struct{ dstOff, srcOff, n int64 }{
				{0, 0, 1 << 20}, {16, 4096, 3<<20 + 16}, {4096, 16, 2 << 20}, {3, 5, 1<<20 + 7}, {0, 0, size},
			} {
				dst, err := dev.Alloc(size)
				require.NoError(t, err)
				require.NoError(t, st.Fill(dst, 0, size, 0))
				require.NoError(t, st.Copy(dst, c.dstOff, src, c.srcOff, c.n))
				got := make([]byte, c.n)
				require.NoError(t, st.Read(got, dst, c.dstOff))
				require.NoError(t, st.Synchronize(ctx))
				require.Equal(t, data[c.srcOff:c.srcOff+c.n], got, "copy %+v", c)
				require.NoError(t, dst.Close())
			}
			// Within one buffer: the upper half from the lower.
			require.NoError(t, st.Copy(src, size/2, src, 0, size/2-32))
			got := make([]byte, size/2-32)
			require.NoError(t, st.Read(got, src, size/2))
			require.NoError(t, st.Synchronize(ctx))
			require.Equal(t, data[:size/2-32], got)
			requireNoValidationMessages(t)
		})
	}
}
