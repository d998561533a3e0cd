package cuda

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu/internal/testreq"
	"github.com/anygpu/gpu/kernel/internal/front"
	"github.com/anygpu/gpu/nvrtc"
)

// emitMatMulTestdata emits the front end's MatMulAdd kernels.
func emitMatMulTestdata(t *testing.T) string {
	t.Helper()
	src, err := os.ReadFile("../../front/testdata/matmul.go")
	require.NoError(t, err)
	m, err := front.Load([]front.File{{Name: "matmul.go", Src: string(src)}})
	require.NoError(t, err)
	text, err := Emit(m)
	require.NoError(t, err)
	return text
}

// TestMatMulAddText checks the structure of the emitted MatMulAdds: one
// function per shape, tensor cores for the 16-bit precisions under the
// sm_80 guard with the right conversions, the scalar loop for float32 (no
// TF32 anywhere), aligned shared operands, and the calls.
func TestMatMulAddText(t *testing.T) {
	text := emitMatMulTestdata(t)
	bf16 := "anygpu_mm_bf16t_16x32x64_72_72_36"
	f16 := "anygpu_mm_f16_32x64x16_17_64_64"
	f32 := "anygpu_mm_f32_32x64x16_17_64_64"
	fn := func(name string) string {
		i := strings.Index(text, "__device__ void "+name+"(")
		require.GreaterOrEqual(t, i, 0, "no function %s in\n%s", name, text)
		j := strings.Index(text[i:], "\n}\n")
		require.Positive(t, j)
		return text[i : i+j]
	}
	tests := []struct {
		name       string
		has, hasnt []string
	}{
		{bf16, []string{"#if __CUDA_ARCH__ >= 800", "cvt.rn.bf16x2.f32", "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32",
			"anygpu_round_bf16(", "reinterpret_cast<const float2*>(&b[n * 72u + k0 + 2u * t])", "__syncthreads();"},
			[]string{"cvt.rn.f16x2", "tf32"}},
		{f16, []string{"#if __CUDA_ARCH__ >= 800", "cvt.rn.f16x2.f32", "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32",
			"anygpu_h2f(anygpu_f2h(", "a[(r0 + g) * 17u + k0 + 2u * t + 1]", "b[(k0 + 2u * t + 1u) * 64u + n]"},
			[]string{"bf16", "tf32", "reinterpret_cast<const float2*>(&a["}},
		{f32, []string{"acc += a[i * 17u + k] * b[(k) * 64u + j];", "__syncthreads();"},
			[]string{"mma", "cvt.rn", "tf32", "__CUDA_ARCH__"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := fn(tt.name)
			for _, s := range tt.has {
				assert.Contains(t, body, s)
			}
			for _, s := range tt.hasnt {
				assert.NotContains(t, body, s)
			}
			assert.Equal(t, 1, strings.Count(text, "__device__ void "+tt.name+"("), "one function per shape")
		})
	}
	assert.Contains(t, text, "\t"+bf16+"(ss, qs, ks);\n")
	assert.Contains(t, text, "\t"+f16+"(os, ps, vs);\n")
	assert.Contains(t, text, "\t"+f32+"(os, ps, vs);\n")
	assert.Contains(t, text, "__shared__ __align__(16) float qs[1152];")
	clangCheck(t, text)
}

// TestMatMulAddNVRTC compiles the emitted MatMulAdds with the installed
// NVRTC for devices before sm_80 (the scalar loop) and after (the tensor
// cores), to PTX and, for sm_80 and sm_90, through ptxas to CUBIN.
func TestMatMulAddNVRTC(t *testing.T) {
	if err := nvrtc.Available(); err != nil {
		if testreq.Required("nvrtc") {
			t.Fatalf("NVRTC is required (ANYGPU_TEST_REQUIRE names nvrtc) but unavailable: %v", err)
		}
		t.Skipf("no NVRTC: %v", err)
	}
	text := emitMatMulTestdata(t)
	for _, arch := range []string{"compute_75", "compute_80", "sm_80", "sm_90"} {
		t.Run(arch, func(t *testing.T) {
			r, err := nvrtc.Compile(text, nvrtc.Options{Arch: arch, PTX: strings.HasPrefix(arch, "compute"), NoCache: true})
			require.NoError(t, err, "NVRTC rejects the emitted text:\n%s", numbered(text))
			if arch == "compute_80" {
				assert.Contains(t, r.PTX, "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32")
				assert.Contains(t, r.PTX, "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32")
			}
			if arch == "compute_75" {
				assert.NotContains(t, r.PTX, "mma.sync")
			}
		})
	}
}

// matMulFromSrc is a kernel with two MatMulAddFroms: float32 into a padded
// tile, and bfloat16 with a transposed B.
const matMulFromSrc = `package k

import "github.com/anygpu/gpu/kernel"

//gpu:kernel
func From(c, a, b []float32, k, ld uint32) {
	cs := kernel.Shared[[16 * 36]float32]()
	r0 := kernel.GroupX() * 16
	kernel.MatMulAddFrom(cs, a, r0*k, k, b, 0, ld, kernel.MatMul{M: 16, N: 32, K: 16, LDC: 36})
	kernel.MatMulAddFrom(cs, a, r0*k, k, b, 16, ld, kernel.MatMul{M: 16, N: 32, K: 16, LDC: 36, TransposeB: true, Precision: kernel.PrecisionBFloat16})
	c[kernel.GlobalX()] = cs[kernel.ThreadX()]
}
`

// TestMatMulAddFromText checks the structure of emitted MatMulAddFroms: a
// function per shape that takes the strides as parameters, indexes A and B
// with them, loads the buffers' floats one by one on the tensor cores (their
// offsets and strides may be odd), and calls that pass the buffers from
// their offsets.
func TestMatMulAddFromText(t *testing.T) {
	m, err := front.Load([]front.File{{Name: "from.go", Src: matMulFromSrc}})
	require.NoError(t, err)
	text, err := Emit(m)
	require.NoError(t, err)
	tests := []struct {
		name       string
		has, hasnt []string
	}{
		{"anygpu_mm_from_f32_16x32x16_36", []string{"(float* c, const float* a, const float* b, unsigned lda, unsigned ldb)",
			"acc += a[i * lda + k] * b[(k) * ldb + j];", "c[i * 36u + j] = acc;", "__syncthreads();"},
			[]string{"mma", "__CUDA_ARCH__"}},
		{"anygpu_mm_from_bf16t_16x32x16_36", []string{"(float* c, const float* a, const float* b, unsigned lda, unsigned ldb)",
			"mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", "a[(r0 + g) * lda + k0 + 2u * t + 1]", "b[n * ldb + k0 + 2u * t + 1]",
			"anygpu_round_bf16(b[(j) * ldb + k])"},
			[]string{"reinterpret_cast<const float2*>(&a[", "reinterpret_cast<const float2*>(&b["}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			i := strings.Index(text, "__device__ void "+tt.name+"(")
			require.GreaterOrEqual(t, i, 0, "no function %s in\n%s", tt.name, text)
			body := text[i : i+strings.Index(text[i:], "\n}\n")]
			for _, s := range tt.has {
				assert.Contains(t, body, s)
			}
			for _, s := range tt.hasnt {
				assert.NotContains(t, body, s)
			}
		})
	}
	assert.Contains(t, text, "anygpu_mm_from_f32_16x32x16_36(cs, a + (unsigned)(r0 * k), b + (unsigned)(0u), (unsigned)(k), (unsigned)(ld));")
	assert.Contains(t, text, "anygpu_mm_from_bf16t_16x32x16_36(cs, a + (unsigned)(r0 * k), b + (unsigned)(16u), (unsigned)(k), (unsigned)(ld));")
	assert.Contains(t, text, "__shared__ __align__(16) float cs[576];")
	assert.NotContains(t, text, "__align__(16) float a")
	clangCheck(t, text)
}
