package cuda

// MatMul on the GPU through the real cuBLASLt. The tests skip without an
// NVIDIA GPU or without cuBLASLt, and fail instead when ANYGPU_TEST_REQUIRE
// names cuda (the GPU machine has both: cuBLASLt from the CUDA toolkit under
// /usr/local/cuda/lib64 or from PyTorch's nvidia-cublas wheel in
// site-packages, which the search finds; ANYGPU_CUBLASLT_LIBRARY names it
// otherwise).

import (
	"context"
	"errors"
	"math"
	"testing"
	"time"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/backend/backendtest"
	"github.com/anygpu/gpu/backend/cuda/internal/cublaslt"
	gerrors "github.com/anygpu/gpu/errors"
	"github.com/stretchr/testify/require"
)

// openMatMulGPU opens the GPU and loads cuBLASLt, skipping without either.
func openMatMulGPU(t testing.TB) *gpu.Device {
	t.Helper()
	dev := openGPU(t)
	lib, err := cublaslt.Load()
	if err != nil {
		if backendtest.Required(Name) {
			t.Fatalf("cuBLASLt is required with %s=cuda: %v (hint: %s)", backendtest.EnvRequire, err, gerrors.Hint(err))
		}
		t.Skipf("no cuBLASLt: %v", err)
	}
	t.Logf("cuBLASLt %s (%d) from %s", lib.VersionString(), lib.Version, lib.File)
	return dev
}

// gpuCase is a product checked on the GPU; mayRefuse marks those cuBLASLt
// may decline (NotSupported is then logged, not failed).
type gpuCase struct {
	mmCase
	mayRefuse bool
}

// gpuCases cover every type pair, every transpose, leading dimensions beyond
// the row length, offsets, batches and a shared B, at sizes that are not
// multiples of any tile.
var gpuCases = []gpuCase{
	{mmCase: mmCase{name: "float32", m: 67, n: 45, k: 129, in: gpu.MatMulFloat32}},
	{mmCase: mmCase{name: "float32 TN", m: 64, n: 96, k: 80, in: gpu.MatMulFloat32, transA: true}},
	{mmCase: mmCase{name: "float32 NT", m: 64, n: 96, k: 80, in: gpu.MatMulFloat32, transB: true}},
	{mmCase: mmCase{name: "float32 TT", m: 33, n: 17, k: 65, in: gpu.MatMulFloat32, transA: true, transB: true}},
	{mmCase: mmCase{name: "float32 padded and offset", m: 100, n: 60, k: 70, in: gpu.MatMulFloat32, padA: 3, padB: 5, padC: 7, offA: 1, offB: 2, offC: 3}},
	{mmCase: mmCase{name: "float32 alpha beta", m: 128, n: 128, k: 128, in: gpu.MatMulFloat32, alpha: 0.5, beta: -2}},
	{mmCase: mmCase{name: "float16", m: 256, n: 128, k: 320, in: gpu.MatMulFloat16}},
	{mmCase: mmCase{name: "float16 NT padded", m: 96, n: 72, k: 200, in: gpu.MatMulFloat16, transB: true, padA: 8, padB: 8, padC: 8}},
	{mmCase: mmCase{name: "float16 TT odd", m: 31, n: 47, k: 53, in: gpu.MatMulFloat16, transA: true, transB: true}, mayRefuse: true},
	{mmCase: mmCase{name: "float16 to float32", m: 128, n: 256, k: 512, in: gpu.MatMulFloat16, out: gpu.MatMulFloat32, alpha: 1, beta: 1}},
	{mmCase: mmCase{name: "bfloat16", m: 512, n: 256, k: 384, in: gpu.MatMulBFloat16}},
	{mmCase: mmCase{name: "bfloat16 TN", m: 128, n: 64, k: 256, in: gpu.MatMulBFloat16, transA: true}},
	{mmCase: mmCase{name: "bfloat16 NT linear layer", m: 77, n: 768, k: 768, in: gpu.MatMulBFloat16, transB: true}},
	{mmCase: mmCase{name: "bfloat16 2-byte aligned", m: 64, n: 64, k: 64, in: gpu.MatMulBFloat16, offA: 1, offB: 3, offC: 5}, mayRefuse: true},
	{mmCase: mmCase{name: "bfloat16 to float32", m: 200, n: 136, k: 264, in: gpu.MatMulBFloat16, out: gpu.MatMulFloat32, transB: true, padC: 4}},
	{mmCase: mmCase{name: "int8 TN", m: 128, n: 64, k: 256, in: gpu.MatMulInt8, transB: true}},
	{mmCase: mmCase{name: "int8 TN padded, alpha beta", m: 64, n: 96, k: 128, in: gpu.MatMulInt8, transB: true, padA: 4, padB: 8, padC: 4, alpha: 2, beta: 1}},
	{mmCase: mmCase{name: "int8 NN", m: 64, n: 64, k: 64, in: gpu.MatMulInt8}, mayRefuse: true},
	{mmCase: mmCase{name: "int8 TT", m: 64, n: 64, k: 64, in: gpu.MatMulInt8, transA: true, transB: true}, mayRefuse: true},
	{mmCase: mmCase{name: "batch float32", m: 40, n: 24, k: 56, in: gpu.MatMulFloat32, batch: 5, padB: 2}},
	{mmCase: mmCase{name: "batch bfloat16 shared B", m: 64, n: 128, k: 96, in: gpu.MatMulBFloat16, batch: 6, shareB: true, transB: true}},
	{mmCase: mmCase{name: "batch float16 to float32", m: 32, n: 48, k: 64, in: gpu.MatMulFloat16, out: gpu.MatMulFloat32, batch: 3, transA: true}},
	{mmCase: mmCase{name: "batch int8 shared B", m: 64, n: 32, k: 64, in: gpu.MatMulInt8, transB: true, batch: 4, shareB: true}},
	{mmCase: mmCase{name: "batch bfloat16 folded into one product", m: 77, n: 256, k: 128, in: gpu.MatMulBFloat16, batch: 8, shareB: true, tight: true, transB: true}},
	{mmCase: mmCase{name: "attention-like scores", m: 128, n: 128, k: 64, in: gpu.MatMulBFloat16, transB: true, batch: 12, alpha: 0.125}},
	{mmCase: mmCase{name: "float32 bias", m: 67, n: 45, k: 129, in: gpu.MatMulFloat32, bias: true, offBias: 3}},
	{mmCase: mmCase{name: "bfloat16 linear layer with bias, one row", m: 1, n: 2304, k: 768, in: gpu.MatMulBFloat16, transB: true, bias: true}},
	{mmCase: mmCase{name: "float16 bias, alpha beta", m: 96, n: 72, k: 200, in: gpu.MatMulFloat16, transB: true, alpha: 0.5, beta: 1, bias: true, offBias: 8}},
	{mmCase: mmCase{name: "bfloat16 to float32 with bias", m: 64, n: 136, k: 64, in: gpu.MatMulBFloat16, out: gpu.MatMulFloat32, transB: true, bias: true}},
	{mmCase: mmCase{name: "batch bfloat16 folded, with bias", m: 33, n: 256, k: 128, in: gpu.MatMulBFloat16, batch: 4, shareB: true, tight: true, transB: true, bias: true}},
	{mmCase: mmCase{name: "batch float32 with bias", m: 40, n: 24, k: 56, in: gpu.MatMulFloat32, batch: 3, padB: 2, bias: true}},
	{mmCase: mmCase{name: "float32 residual into a separate D", m: 33, n: 40, k: 64, in: gpu.MatMulFloat32, beta: 1, padC: 3, offC: 2, separateD: true}},
	{mmCase: mmCase{name: "bfloat16 residual and bias into a separate D, one row", m: 1, n: 768, k: 768, in: gpu.MatMulBFloat16, transB: true, alpha: 1, beta: 1, bias: true, separateD: true}},
	{mmCase: mmCase{name: "bfloat16 GPT-2 MLP up projection with bias and GELU, one row", m: 1, n: 3072, k: 768, in: gpu.MatMulBFloat16, transB: true, bias: true, act: gpu.MatMulGELU}},
	{mmCase: mmCase{name: "bfloat16 MLP prefill with bias and GELU", m: 77, n: 3072, k: 768, in: gpu.MatMulBFloat16, bias: true, act: gpu.MatMulGELU}},
	{mmCase: mmCase{name: "float32 GELU without a bias", m: 67, n: 45, k: 129, in: gpu.MatMulFloat32, act: gpu.MatMulGELU}},
	{mmCase: mmCase{name: "float16 bias and GELU, alpha", m: 96, n: 72, k: 200, in: gpu.MatMulFloat16, transB: true, alpha: 2, bias: true, offBias: 8, act: gpu.MatMulGELU}},
	{mmCase: mmCase{name: "batch bfloat16 folded, bias and GELU", m: 33, n: 256, k: 128, in: gpu.MatMulBFloat16, batch: 4, shareB: true, tight: true, transB: true, bias: true, act: gpu.MatMulGELU}},
	{mmCase: mmCase{name: "bfloat16 to float32 bias and ReLU into a separate D", m: 64, n: 136, k: 64, in: gpu.MatMulBFloat16, out: gpu.MatMulFloat32, transB: true, bias: true, act: gpu.MatMulReLU, separateD: true}},
	{mmCase: mmCase{name: "float16 ReLU", m: 31, n: 48, k: 40, in: gpu.MatMulFloat16, act: gpu.MatMulReLU}},
}

// TestMatMulGPU checks every case against the CPU reference, padding and
// everything around C included.
func TestMatMulGPU(t *testing.T) {
	dev := openMatMulGPU(t)
	s := dev.DefaultStream()
	for i, c := range gpuCases {
		t.Run(c.name, func(t *testing.T) {
			r := prepare(t, dev, c.mmCase, false, uint64(100+i))
			err := s.MatMul(r.mm)
			if c.mayRefuse && gerrors.CategoryOf(err) == gerrors.NotSupported {
				t.Logf("declined (allowed for this case): %v", err)
				return
			}
			require.NoError(t, err, "%v", c.mmCase)
			worst := r.check(t, s)
			t.Logf("largest error %.3g of the tolerance", worst)
		})
	}
}

// TestMatMulFloat32Exact: float32 products are exact FP32 (what torch.mm
// gives with TF32 off), not TF32: with K = 1024 random terms the largest
// error stays far below TF32's (about 2⁻¹¹ per term, 1e-5 of the terms'
// magnitude), under 1e-6 of the magnitude.
func TestMatMulFloat32Exact(t *testing.T) {
	dev := openMatMulGPU(t)
	s := dev.DefaultStream()
	c := mmCase{name: "fp32 not tf32", m: 64, n: 64, k: 1024, in: gpu.MatMulFloat32}
	r := prepare(t, dev, c, false, 5)
	require.NoError(t, s.MatMul(r.mm))
	r.check(t, s)
	raw := make([]byte, len(r.o.vals)*4)
	require.NoError(t, s.Read(raw, r.mm.C, 0))
	require.NoError(t, s.Synchronize(context.Background()))
	got := r.o.decode(raw)
	want, _ := r.want()
	worst := 0.0
	for i := range c.m {
		for j := range c.n {
			var mag float64
			for p := range c.k {
				mag += math.Abs(r.a.vals[r.a.at(0, i, p)] * r.b.vals[r.b.at(0, p, j)])
			}
			at := r.o.at(0, i, j)
			worst = max(worst, math.Abs(got[at]-want[at])/mag)
		}
	}
	t.Logf("largest error %.3g of the terms' magnitude", worst)
	require.Less(t, worst, 1e-6, "float32 products must not go through TF32")
}

// TestMatMulGPUStreams: products on several streams at once, each with its
// workspace, on one handle and plan cache.
func TestMatMulGPUStreams(t *testing.T) {
	dev := openMatMulGPU(t)
	c := mmCase{name: "streams", m: 256, n: 256, k: 256, in: gpu.MatMulBFloat16, transB: true}
	const n = 4
	errs := make(chan error, n)
	runs := make([]*mmRun, n)
	streams := make([]*gpu.Stream, n)
	for i := range n {
		runs[i] = prepare(t, dev, c, false, uint64(i))
		st, err := dev.NewStream()
		require.NoError(t, err)
		t.Cleanup(func() { _ = st.Close() })
		streams[i] = st
	}
	for i := range n {
		go func() {
			var err error
			for range 20 {
				if err = streams[i].MatMul(runs[i].mm); err != nil {
					break
				}
			}
			errs <- err
		}()
	}
	for range n {
		require.NoError(t, <-errs)
	}
	for i := range n {
		runs[i].check(t, streams[i])
	}
}

// BenchmarkMatMul times cuBLASLt products at the sizes of the issue's
// comparison with PyTorch (bf16 8192³; torch.matmul bf16 reaches about 735
// TFLOP/s on an H100) and reports TFLOP/s: 2·M·N·K per product.
func BenchmarkMatMul(b *testing.B) {
	dev := openMatMulGPU(b)
	for _, bc := range []struct {
		name    string
		n       int
		in, out gpu.MatMulType
		transB  bool
	}{
		{"bfloat16_8192", 8192, gpu.MatMulBFloat16, 0, false},
		{"bfloat16_linear_8192", 8192, gpu.MatMulBFloat16, 0, true},
		{"float16_8192", 8192, gpu.MatMulFloat16, 0, false},
		{"bfloat16_to_float32_8192", 8192, gpu.MatMulBFloat16, gpu.MatMulFloat32, false},
		{"float32_4096", 4096, gpu.MatMulFloat32, 0, false},
		{"int8_8192", 8192, gpu.MatMulInt8, 0, true},
	} {
		b.Run(bc.name, func(b *testing.B) {
			n := bc.n
			out := bc.out
			if out == 0 {
				out = bc.in
				if bc.in == gpu.MatMulInt8 {
					out = gpu.MatMulInt32
				}
			}
			s := dev.DefaultStream()
			alloc := func(size int64, pattern uint32) *gpu.Buffer {
				buf, err := dev.Alloc(size)
				require.NoError(b, err)
				b.Cleanup(func() { _ = buf.Close() })
				require.NoError(b, s.Fill(buf, 0, size, pattern))
				return buf
			}
			nn := int64(n) * int64(n)
			small := map[gpu.MatMulType]uint32{gpu.MatMulFloat32: 0x3c23d70a, gpu.MatMulFloat16: 0x211f211f,
				gpu.MatMulBFloat16: 0x3c243c24, gpu.MatMulInt8: 0x01010101, gpu.MatMulInt32: 0}
			m := gpu.MatMul{M: n, N: n, K: n, A: alloc(nn*bc.in.Size(), small[bc.in]), B: alloc(nn*bc.in.Size(), small[bc.in]),
				C: alloc(nn*out.Size(), 0), In: bc.in, Out: bc.out, TransB: bc.transB}
			if err := s.MatMul(m); err != nil {
				if errors.Is(err, gerrors.NotSupported) && bc.in == gpu.MatMulInt8 {
					b.Skipf("int8: %v", err)
				}
				require.NoError(b, err)
			}
			require.NoError(b, s.Synchronize(context.Background()))
			b.ResetTimer()
			start := time.Now()
			for range b.N {
				if err := s.MatMul(m); err != nil {
					b.Fatal(err)
				}
			}
			require.NoError(b, s.Synchronize(context.Background()))
			d := time.Since(start)
			b.ReportMetric(2*float64(n)*float64(n)*float64(n)*float64(b.N)/d.Seconds()/1e12, "TFLOP/s")
		})
	}
}
