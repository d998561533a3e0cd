package cuda

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/backend/cuda/internal/cublaslt"
	"github.com/anygpu/gpu/backend/cuda/internal/fakecublaslt"
	"github.com/anygpu/gpu/errors"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The MatMul tests over the fake driver and the fake cuBLASLt (both built
// with the C compiler; they skip without one). The fake driver's device
// memory is host memory and the fake cublasLtMatmul computes the column-major
// product it is asked for, so these tests check the row-major mapping by its
// results as well as by the calls logged.

// fakeMatMul is a device over the fake driver with the fake cuBLASLt named
// by ANYGPU_CUBLASLT_LIBRARY, and the file the fake logs its calls to.
type fakeMatMul struct {
	dev *gpu.Device
	log string
}

func openFakeMatMul(t *testing.T) *fakeMatMul {
	t.Helper()
	t.Setenv(EnvLibrary, fakeDriver(t))
	dir := t.TempDir()
	lt, err := fakecublaslt.Build(dir)
	if err != nil {
		t.Skipf("cannot build the fake cuBLASLt: %v", err)
	}
	f := &fakeMatMul{log: filepath.Join(dir, "cublaslt.log")}
	t.Setenv(cublaslt.EnvLibrary, lt)
	t.Setenv("FAKECUBLASLT_LOG", f.log)
	f.dev, err = gpu.OpenDriver(context.Background(), Driver{}, 0)
	require.NoError(t, err)
	t.Cleanup(func() { _ = f.dev.Close() })
	return f
}

// lines returns the logged calls that start with prefix.
func (f *fakeMatMul) lines(t *testing.T, prefix string) []string {
	t.Helper()
	data, err := os.ReadFile(f.log)
	if os.IsNotExist(err) {
		return nil
	}
	require.NoError(t, err)
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if strings.HasPrefix(l, prefix) {
			out = append(out, l)
		}
	}
	return out
}

// TestMatMulNotLoadedAtOpen: opening a device, allocating and copying leave
// cuBLASLt alone; the first MatMul loads it and creates the handle.
func TestMatMulNotLoadedAtOpen(t *testing.T) {
	f := openFakeMatMul(t)
	s := f.dev.DefaultStream()
	r := prepare(t, f.dev, mmCase{name: "first", m: 2, n: 3, k: 4, in: gpu.MatMulFloat32}, true, 1)
	require.NoError(t, s.Synchronize(context.Background()))
	require.False(t, cublaslt.Loaded(), "cuBLASLt is loaded at the first MatMul, not at Open")
	require.Empty(t, f.lines(t, "create"))
	require.NoError(t, s.MatMul(r.mm))
	require.True(t, cublaslt.Loaded())
	require.Len(t, f.lines(t, "create"), 1)
	r.check(t, s)
}

// fakeCases are products of every type pair and layout feature, in small
// integers so the fake's results are exact.
var fakeCases = []mmCase{
	{name: "float32", m: 3, n: 5, k: 4, in: gpu.MatMulFloat32},
	{name: "float32 transposed A", m: 3, n: 5, k: 4, in: gpu.MatMulFloat32, transA: true},
	{name: "float32 transposed B", m: 3, n: 5, k: 4, in: gpu.MatMulFloat32, transB: true},
	{name: "float32 both transposed", m: 4, n: 2, k: 7, in: gpu.MatMulFloat32, transA: true, transB: true},
	{name: "float32 padded rows and offsets", m: 5, n: 3, k: 6, in: gpu.MatMulFloat32, padA: 2, padB: 3, padC: 1, offA: 1, offB: 5, offC: 2},
	{name: "float32 alpha and beta", m: 3, n: 3, k: 3, in: gpu.MatMulFloat32, alpha: 2, beta: -1},
	{name: "float32 beta only", m: 2, n: 3, k: 2, in: gpu.MatMulFloat32, beta: 1},
	{name: "float16", m: 4, n: 6, k: 5, in: gpu.MatMulFloat16, transB: true, padC: 2},
	{name: "float16 to float32", m: 4, n: 6, k: 5, in: gpu.MatMulFloat16, out: gpu.MatMulFloat32, transA: true},
	{name: "bfloat16", m: 6, n: 4, k: 3, in: gpu.MatMulBFloat16, padA: 1, offC: 3},
	{name: "bfloat16 to float32", m: 6, n: 4, k: 3, in: gpu.MatMulBFloat16, out: gpu.MatMulFloat32, transA: true, transB: true},
	{name: "int8", m: 8, n: 4, k: 12, in: gpu.MatMulInt8, transB: true, padA: 4, padB: 4, padC: 4},
	{name: "int8 alpha and beta", m: 4, n: 8, k: 8, in: gpu.MatMulInt8, transB: true, alpha: 3, beta: -2},
	{name: "batch", m: 3, n: 4, k: 5, in: gpu.MatMulFloat32, batch: 3, padA: 1},
	{name: "batch sharing B", m: 3, n: 4, k: 5, in: gpu.MatMulBFloat16, batch: 4, shareB: true, transB: true},
	{name: "batch int8", m: 4, n: 4, k: 8, in: gpu.MatMulInt8, transB: true, batch: 2},
	{name: "float32 bias", m: 3, n: 5, k: 4, in: gpu.MatMulFloat32, bias: true, offBias: 1},
	{name: "float32 gelu", m: 3, n: 5, k: 4, in: gpu.MatMulFloat32, act: gpu.MatMulGELU},
	{name: "float32 bias and gelu", m: 4, n: 3, k: 5, in: gpu.MatMulFloat32, transB: true, bias: true, act: gpu.MatMulGELU},
	{name: "bfloat16 bias and gelu into D", m: 5, n: 4, k: 3, in: gpu.MatMulBFloat16, transB: true, bias: true, act: gpu.MatMulGELU, separateD: true},
	{name: "float16 relu", m: 4, n: 6, k: 5, in: gpu.MatMulFloat16, transA: true, act: gpu.MatMulReLU},
	{name: "bfloat16 to float32 bias and relu, batch", m: 3, n: 4, k: 5, in: gpu.MatMulBFloat16, out: gpu.MatMulFloat32, batch: 2, bias: true, act: gpu.MatMulReLU},
}

// TestMatMulFake runs every case over the fakes and checks the result
// against the CPU reference and the heuristic's call against the mapping:
// cuBLASLt's first operand is B read column-major, its second A, C is
// N×M, TRANSA is TransB and TRANSB TransA.
func TestMatMulFake(t *testing.T) {
	f := openFakeMatMul(t)
	s := f.dev.DefaultStream()
	for i, c := range fakeCases {
		t.Run(c.name, func(t *testing.T) {
			before := len(f.lines(t, "heuristic"))
			r := prepare(t, f.dev, c, true, uint64(i))
			require.NoError(t, s.MatMul(r.mm), "%v", c)
			r.check(t, s)
			h := f.lines(t, "heuristic")
			require.Len(t, h, before+1, "one plan per new shape")
			require.Equal(t, wantHeuristic(r), h[before])
		})
	}
}

// wantHeuristic is the heuristic line the fake logs for a run's plan.
func wantHeuristic(r *mmRun) string {
	c := r.c
	batch := max(c.batch, 1)
	layout := func(t gpu.MatMulType, o *mmOperand) string {
		stride := 0
		if batch > 1 {
			stride = o.stride
		}
		return fmt.Sprintf("%d/%dx%d/ld%d/b%d/s%d", dataType(t), o.cols, o.rows, o.ld, batch, stride)
	}
	compute, scale := 68, 0
	if c.in == gpu.MatMulInt8 {
		compute, scale = 72, 10
	}
	ta, tb := 0, 0
	if c.transB {
		ta = 1
	}
	if c.transA {
		tb = 1
	}
	al := func(buf *gpu.Buffer, off int64, stride int, size int64) uint32 {
		h, err := buf.NativeHandle()
		if err != nil {
			return 0
		}
		return alignment(uint64(h)+uint64(off), int64(stride)*size, batch)
	}
	cAlign := al(r.mm.C, r.mm.COffset, r.o.stride, r.o.t.Size())
	dAlign := cAlign
	if r.mm.D != nil {
		dAlign = al(r.mm.D, r.mm.DOffset, r.o.stride, r.o.t.Size())
	}
	lc := layout(c.outType(), r.o)
	// cublasLtEpilogue_t from cublasLt.h: DEFAULT 1, BIAS 4; RELU 2,
	// RELU_BIAS 6; GELU 32, GELU_BIAS 36.
	epilogue := map[gpu.MatMulActivation][2]int{
		gpu.MatMulNoActivation: {1, 4}, gpu.MatMulReLU: {2, 6}, gpu.MatMulGELU: {32, 36},
	}[c.act][boolIndex(c.bias)]
	return fmt.Sprintf("heuristic compute=%d scale=%d ta=%d tb=%d a=%s b=%s c=%s d=%s ws=%d align=%d,%d,%d,%d epilogue=%d",
		compute, scale, ta, tb, layout(c.in, r.b), layout(c.in, r.a), lc, lc, matMulWorkspaceBytes,
		al(r.mm.B, r.mm.BOffset, r.b.stride, r.b.t.Size()), al(r.mm.A, r.mm.AOffset, r.a.stride, r.a.t.Size()), cAlign, dAlign, epilogue)
}

// boolIndex is 1 for true, 0 for false.
func boolIndex(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestMatMulPlanCache: the same problem again reuses its plan (no new
// heuristic call); another leading dimension or alignment makes a new one;
// one handle serves every stream of the device, which destroys it at Close.
func TestMatMulPlanCache(t *testing.T) {
	f := openFakeMatMul(t)
	s := f.dev.DefaultStream()
	base := mmCase{name: "cached", m: 4, n: 4, k: 4, in: gpu.MatMulBFloat16}
	r := prepare(t, f.dev, base, true, 1)
	for range 3 {
		require.NoError(t, s.MatMul(r.mm))
	}
	r.check(t, s)
	require.Len(t, f.lines(t, "heuristic"), 1)
	require.Len(t, f.lines(t, "matmul"), 3)

	other, err := f.dev.NewStream()
	require.NoError(t, err)
	require.NoError(t, other.MatMul(r.mm))
	r.check(t, other)
	require.Len(t, f.lines(t, "heuristic"), 1, "plans are the device's, shared by its streams")

	padded := base
	padded.padC = 1
	r3 := prepare(t, f.dev, padded, true, 3)
	require.NoError(t, s.MatMul(r3.mm))
	require.Len(t, f.lines(t, "heuristic"), 2, "another leading dimension is another plan")

	offset := base
	offset.offA = 1 // 2-byte aligned A
	r4 := prepare(t, f.dev, offset, true, 4)
	require.NoError(t, s.MatMul(r4.mm))
	h := f.lines(t, "heuristic")
	require.Len(t, h, 3, "another alignment is another plan")
	assert.Contains(t, h[2], ",2,", "A's alignment is the second operand's")
	r4.check(t, s)

	gelu := base
	gelu.act = gpu.MatMulGELU
	r5 := prepare(t, f.dev, gelu, true, 5)
	require.NoError(t, s.MatMul(r5.mm))
	h = f.lines(t, "heuristic")
	require.Len(t, h, 4, "another activation is another plan")
	assert.True(t, strings.HasSuffix(h[3], " epilogue=32"), h[3])
	r5.check(t, s)
	require.NoError(t, s.MatMul(r.mm))
	require.Len(t, f.lines(t, "heuristic"), 4, "the plan without the activation is still cached")
	r.check(t, s)

	require.NoError(t, other.Close())
	require.Len(t, f.lines(t, "create"), 1)
	require.Empty(t, f.lines(t, "destroy"))
	require.NoError(t, f.dev.Close())
	require.Len(t, f.lines(t, "destroy"), 1, "the device's Close destroys the handle")
}

// TestMatMulWorkspace: a stream allocates its workspace at its first MatMul,
// once, and frees it when it closes.
func TestMatMulWorkspace(t *testing.T) {
	t.Setenv(EnvLibrary, fakeDriver(t))
	dir := t.TempDir()
	lt, err := fakecublaslt.Build(dir)
	if err != nil {
		t.Skipf("cannot build the fake cuBLASLt: %v", err)
	}
	t.Setenv(cublaslt.EnvLibrary, lt)
	d, err := Driver{}.Open(context.Background(), 0)
	require.NoError(t, err)
	dev := d.(*device)
	defer dev.Close()
	bs, err := dev.NewStream()
	require.NoError(t, err)
	st := bs.(*stream)
	buf, err := dev.Alloc(64)
	require.NoError(t, err)
	m := backend.MatMulArgs{M: 2, N: 2, K: 2, A: buf, B: buf, C: buf, LDA: 2, LDB: 2, LDC: 2,
		In: backend.MatMulFloat32, Out: backend.MatMulFloat32, Alpha: 1, Batch: 1}
	require.Nil(t, st.mm.work)
	require.NoError(t, st.MatMul(m))
	work := st.mm.work
	require.NotNil(t, work)
	require.EqualValues(t, matMulWorkspaceBytes, work.size)
	require.NoError(t, st.MatMul(m))
	require.Same(t, work, st.mm.work, "one workspace per stream")
	dev.mu.Lock()
	_, tracked := dev.buffers[work]
	dev.mu.Unlock()
	require.True(t, tracked, "the device frees it if the stream is never closed")
	require.NoError(t, st.Close())
	dev.mu.Lock()
	_, tracked = dev.buffers[work]
	dev.mu.Unlock()
	require.False(t, tracked, "the stream's Close frees it")
	require.Nil(t, st.mm.work)
}

// TestMatMulErrors: what cuBLASLt cannot do is NotSupported (the caller
// falls back), native failures keep the status's name and category, and
// every error names the product.
func TestMatMulErrors(t *testing.T) {
	f32 := mmCase{name: "f32", m: 8, n: 8, k: 8, in: gpu.MatMulFloat32}
	i8 := mmCase{name: "int8", m: 8, n: 8, k: 8, in: gpu.MatMulInt8, transB: true}
	for _, tc := range []struct {
		name   string
		c      mmCase
		env    map[string]string
		edit   func(m *gpu.MatMul)
		cat    errors.Category
		msg    []string
		loaded bool // cuBLASLt was loaded by the call
	}{
		{name: "a pair without a kernel", c: mmCase{name: "f32 to bf16", m: 8, n: 8, k: 8, in: gpu.MatMulFloat32, out: gpu.MatMulBFloat16},
			cat: errors.NotSupported, msg: []string{"cuda: matmul 8×8×8 float32→bfloat16: ", "not float32→bfloat16"}},
		{name: "an empty inner dimension", c: f32, edit: func(m *gpu.MatMul) { m.K = 0 },
			cat: errors.NotSupported, msg: []string{"K = 0"}},
		{name: "no library", c: f32, env: map[string]string{cublaslt.EnvLibrary: "/nonexistent/libcublasLt.so.13"},
			cat: errors.NotSupported, msg: []string{"cuda: matmul 8×8×8 float32: load cuBLASLt: no usable cuBLASLt library", "/nonexistent/libcublasLt.so.13"}},
		{name: "handle creation fails", c: f32, env: map[string]string{"FAKECUBLASLT_CREATE": "1"}, loaded: true,
			cat: errors.Initialization, msg: []string{"cublasLtCreate: ", "(CUBLAS_STATUS_NOT_INITIALIZED)"}},
		{name: "the heuristic does not support it", c: f32, env: map[string]string{"FAKECUBLASLT_HEURISTIC": "15"}, loaded: true,
			cat: errors.NotSupported, msg: []string{"cuda: matmul 8×8×8 float32: ", "(CUBLAS_STATUS_NOT_SUPPORTED)"}},
		{name: "the heuristic finds no algorithm", c: f32, env: map[string]string{"FAKECUBLASLT_ALGOS": "0"}, loaded: true,
			cat: errors.NotSupported, msg: []string{"found no algorithm", "(CUBLAS_STATUS_NOT_SUPPORTED)"}},
		{name: "the heuristic fails", c: f32, env: map[string]string{"FAKECUBLASLT_HEURISTIC": "3"}, loaded: true,
			cat: errors.OutOfMemory, msg: []string{"cublasLtMatmulAlgoGetHeuristic: ", "(CUBLAS_STATUS_ALLOC_FAILED)"}},
		{name: "the product fails", c: f32, env: map[string]string{"FAKECUBLASLT_MATMUL": "13"}, loaded: true,
			cat: errors.Execution, msg: []string{"cuda: matmul 8×8×8 float32: cublasLtMatmul: ", "(CUBLAS_STATUS_EXECUTION_FAILED)"}},
		{name: "int8 with a fractional alpha", c: i8, edit: func(m *gpu.MatMul) { m.Alpha = 0.5 },
			cat: errors.NotSupported, msg: []string{"cuda: matmul 8×8×8 int8: ", "must be integers"}},
		{name: "int8 with a leading dimension not a multiple of 4", c: mmCase{name: "i8", m: 8, n: 8, k: 8, in: gpu.MatMulInt8, transB: true, padA: 1},
			cat: errors.NotSupported, msg: []string{"LDA is 9"}},
		{name: "int8 misaligned", c: mmCase{name: "i8", m: 8, n: 8, k: 8, in: gpu.MatMulInt8, transB: true, offB: 2},
			cat: errors.NotSupported, msg: []string{"B is 2-byte aligned"}},
		{name: "int8 with a bias", c: mmCase{name: "i8 bias", m: 8, n: 8, k: 8, in: gpu.MatMulInt8, transB: true, bias: true},
			cat: errors.NotSupported, msg: []string{"cuda: matmul 8×8×8 int8: ", "bias epilogue"}},
		{name: "int8 transposes without a kernel", c: mmCase{name: "i8 NN", m: 8, n: 8, k: 8, in: gpu.MatMulInt8},
			env: map[string]string{"FAKECUBLASLT_INT8_TN": "1"}, loaded: true,
			cat: errors.NotSupported, msg: []string{"found no algorithm", "TransB"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := openFakeMatMul(t)
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			r := prepare(t, f.dev, tc.c, true, 1)
			if tc.edit != nil {
				tc.edit(&r.mm)
			}
			err := f.dev.DefaultStream().MatMul(r.mm)
			require.Error(t, err)
			assert.Equal(t, tc.cat, errors.CategoryOf(err), "%v", err)
			for _, m := range tc.msg {
				assert.Contains(t, err.Error()+" "+errors.Hint(err), m)
			}
			assert.NotEmpty(t, errors.Hint(err))
			assert.Equal(t, tc.loaded, cublaslt.Loaded())
		})
	}
}

// TestMatMulGPUCasesFake runs the GPU test's cases, random values and
// tolerances included, over the fakes: the cases and the reference are
// checked here, where there is no GPU.
func TestMatMulGPUCasesFake(t *testing.T) {
	if testing.Short() {
		t.Skip("a few seconds of C loops")
	}
	f := openFakeMatMul(t)
	s := f.dev.DefaultStream()
	for i, c := range gpuCases {
		t.Run(c.name, func(t *testing.T) {
			r := prepare(t, f.dev, c.mmCase, false, uint64(100+i))
			require.NoError(t, s.MatMul(r.mm), "%v", c.mmCase)
			r.check(t, s)
		})
	}
}

// TestMatMulFoldsSharedB: a batch sharing B whose A and C matrices follow
// one another row after row is one taller product (Batch·M rows); any gap
// between the matrices, or a transposed A, keeps the batch.
func TestMatMulFoldsSharedB(t *testing.T) {
	f := openFakeMatMul(t)
	s := f.dev.DefaultStream()
	for i, tc := range []struct {
		c    mmCase
		want string // the layout of C in the heuristic's line
	}{
		{mmCase{name: "folded", m: 3, n: 4, k: 5, in: gpu.MatMulBFloat16, batch: 4, shareB: true, tight: true, transB: true, padA: 1, padC: 2},
			"c=14/4x12/ld6/b1/s0"},
		{mmCase{name: "folded int8", m: 4, n: 8, k: 8, in: gpu.MatMulInt8, batch: 3, shareB: true, tight: true, transB: true},
			"c=10/8x12/ld8/b1/s0"},
		{mmCase{name: "gaps between matrices", m: 3, n: 4, k: 5, in: gpu.MatMulFloat32, batch: 4, shareB: true},
			"c=0/4x3/ld4/b4/s16"},
		{mmCase{name: "transposed A", m: 3, n: 4, k: 5, in: gpu.MatMulFloat32, batch: 2, shareB: true, tight: true, transA: true},
			"c=0/4x3/ld4/b2/s12"},
		{mmCase{name: "B not shared", m: 3, n: 4, k: 5, in: gpu.MatMulFloat32, batch: 2, tight: true},
			"c=0/4x3/ld4/b2/s12"},
	} {
		t.Run(tc.c.name, func(t *testing.T) {
			before := len(f.lines(t, "heuristic"))
			r := prepare(t, f.dev, tc.c, true, uint64(i))
			require.NoError(t, s.MatMul(r.mm))
			r.check(t, s)
			h := f.lines(t, "heuristic")
			require.Len(t, h, before+1)
			assert.Contains(t, h[before], tc.want)
		})
	}
}

// TestMatMulScalars: float products pass Alpha and Beta as float32 bits,
// int8 products as int32 values, which must be integers in int32's range.
func TestMatMulScalars(t *testing.T) {
	f32, _ := matMulTypesOf(backend.MatMulBFloat16, backend.MatMulFloat32)
	i32, _ := matMulTypesOf(backend.MatMulInt8, backend.MatMulInt32)
	for _, tc := range []struct {
		ty          matMulTypes
		alpha, beta float32
		wantA       uint32
		wantB       uint32
		ok          bool
	}{
		{f32, 0.5, -2, 0x3f000000, 0xc0000000, true},
		{i32, 3, -2, 3, 0xfffffffe, true},
		{i32, -2147483648, 0, 0x80000000, 0, true},
		{i32, 0.5, 0, 0, 0, false},
		{i32, 1, 2147483648, 0, 0, false}, // 2³¹ is beyond int32
		{i32, float32(math.NaN()), 0, 0, 0, false},
		{i32, float32(math.Inf(1)), 0, 0, 0, false},
	} {
		a, b, err := matMulScalars("matmul", tc.ty, tc.alpha, tc.beta)
		if !tc.ok {
			assert.Equal(t, errors.NotSupported, errors.CategoryOf(err), "%v %v", tc.alpha, tc.beta)
			continue
		}
		require.NoError(t, err)
		assert.Equal(t, tc.wantA, a)
		assert.Equal(t, tc.wantB, b)
	}
	_, ok := matMulTypesOf(backend.MatMulFloat32, backend.MatMulFloat16)
	assert.False(t, ok, "float32 in, float16 out has no kernel")
	_, ok = matMulTypesOf(backend.MatMulInt8, backend.MatMulInt8)
	assert.False(t, ok, "int8 out is not offered")
}

// TestAlignment: the largest power of two up to 256 dividing every matrix's
// address.
func TestAlignment(t *testing.T) {
	for _, tc := range []struct {
		addr   uint64
		stride int64
		batch  int
		want   uint32
	}{
		{0x7f0000000000, 0, 1, 256},
		{0x7f0000000002, 0, 1, 2},
		{0x7f0000000010, 0, 1, 16},
		{0x7f0000000000, 8, 2, 8},
		{0x7f0000000000, 8, 1, 256}, // one matrix: the stride is never used
		{0x7f0000000000, 0, 4, 256}, // a shared operand
	} {
		assert.Equal(t, tc.want, alignment(tc.addr, tc.stride, tc.batch), "%#x stride %d batch %d", tc.addr, tc.stride, tc.batch)
	}
}

// TestEpilogueOf: each bias and activation maps to its cublasLtEpilogue_t
// (values of cublasLt.h); an activation outside the list has none.
func TestEpilogueOf(t *testing.T) {
	for _, tc := range []struct {
		bias bool
		act  backend.MatMulActivation
		want cublaslt.Epilogue
		ok   bool
	}{
		{false, backend.MatMulNoActivation, 1, true},
		{true, backend.MatMulNoActivation, 4, true},
		{false, backend.MatMulReLU, 2, true},
		{true, backend.MatMulReLU, 6, true},
		{false, backend.MatMulGELU, 32, true},
		{true, backend.MatMulGELU, 36, true},
		{false, backend.MatMulReLU + 1, 0, false},
		{true, -1, 0, false},
	} {
		got, ok := epilogueOf(tc.bias, tc.act)
		assert.Equal(t, tc.ok, ok, "bias %v, %v", tc.bias, tc.act)
		assert.Equal(t, tc.want, got, "bias %v, %v", tc.bias, tc.act)
	}
}

// geluFloat32 is GELU in its tanh form evaluated in float32, as the fake
// cuBLASLt does (C's float arithmetic and tanhf; Go's float64 tanh rounded
// to float32 is within an ulp of tanhf).
func geluFloat32(x float32) float32 {
	inner := float32(0.7978845608) * (x + float32(0.044715)*x*x*x)
	return float32(0.5) * x * (1 + float32(math.Tanh(float64(inner))))
}

// TestMatMulActivationFake: the fake applies the activation to the sum after
// the bias, in float32, and rounds once to the output type: the same
// numbers as float32 GELU (tanh form, not the erf form, which differs by up
// to 2e-4 around |x| = 2) or ReLU of the exact sum, rounded, within one unit
// of the float32 tanh. The values are small integers, so every sum is exact.
func TestMatMulActivationFake(t *testing.T) {
	f := openFakeMatMul(t)
	s := f.dev.DefaultStream()
	for i, c := range []mmCase{
		{name: "float32 gelu", m: 7, n: 9, k: 3, in: gpu.MatMulFloat32, act: gpu.MatMulGELU},
		{name: "float32 bias and gelu", m: 7, n: 9, k: 3, in: gpu.MatMulFloat32, transB: true, bias: true, act: gpu.MatMulGELU},
		{name: "bfloat16 bias and gelu", m: 5, n: 8, k: 2, in: gpu.MatMulBFloat16, transB: true, bias: true, act: gpu.MatMulGELU},
		{name: "float16 gelu", m: 5, n: 8, k: 2, in: gpu.MatMulFloat16, transA: true, act: gpu.MatMulGELU},
		{name: "float16 to float32 bias and relu", m: 6, n: 5, k: 4, in: gpu.MatMulFloat16, out: gpu.MatMulFloat32, bias: true, act: gpu.MatMulReLU},
		{name: "bfloat16 relu", m: 6, n: 5, k: 4, in: gpu.MatMulBFloat16, act: gpu.MatMulReLU},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := prepare(t, f.dev, c, true, uint64(40+i))
			require.NoError(t, s.MatMul(r.mm))
			raw := make([]byte, len(r.o.vals)*int(r.o.t.Size()))
			require.NoError(t, s.Read(raw, r.mm.C, 0))
			require.NoError(t, s.Synchronize(context.Background()))
			got := r.o.decode(raw)
			plain := *r
			plain.c.act = gpu.MatMulNoActivation
			sums, tol := plain.want() // exact: small integers
			seen := map[bool]int{}    // activations of negative and positive sums
			for at, sum := range sums {
				if tol[at] == 0 {
					continue
				}
				x := float32(sum)
				var y float32
				if c.act == gpu.MatMulGELU {
					y = geluFloat32(x)
				} else {
					y = max(x, 0)
				}
				seen[x > 0]++
				want := roundTo(c.outType(), float64(y))
				ulp := math.Abs(float64(y)) / (1 << 23)
				if c.outType() != gpu.MatMulFloat32 { // the float32 tanh may fall on the other side of a rounding boundary
					ulp = math.Abs(want - roundTo(c.outType(), math.Nextafter(want, math.Inf(1))))
				}
				require.InDelta(t, want, got[at], ulp+1e-7, "element %d: sum %v", at, sum)
			}
			require.NotZero(t, seen[true], "no positive sums")
			require.NotZero(t, seen[false], "no negative sums")
		})
	}
}
