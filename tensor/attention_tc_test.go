package tensor

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/tensor/internal/ops"
)

// TestAttentionTCKernel: the matrix-unit kernel takes 16-bit prefills of
// head dimension 64 or 128 with word-aligned, contiguous query rows, on
// CUDA by default and anywhere when asked, never when turned off or short
// of shared memory.
func TestAttentionTCKernel(t *testing.T) {
	ctx := t.Context()
	dev := cpuDevice(t)
	cuda := gpu.DeviceInfo{Backend: "cuda", SharedMemPerBlock: 48 << 10}
	vulkan := gpu.DeviceInfo{Backend: "vulkan", SharedMemPerBlock: 32 << 10}
	mk := func(d DType, shape ...int) *Tensor {
		x, err := Zeros(ctx, dev, d, shape...)
		require.NoError(t, err)
		t.Cleanup(func() { _ = x.Close() })
		return x
	}
	view := func(x *Tensor, err error) *Tensor {
		require.NoError(t, err)
		t.Cleanup(func() { _ = x.Close() })
		return x
	}
	rows := view(mk(BFloat16, 65, 4, 64).Slice(0, 1, 65))        // starts a row in: on a word
	flat := view(mk(BFloat16, 1+64*4*64).Slice(0, 1, 1+64*4*64)) // starts an element in: mid-word
	oddStart := view(flat.Reshape(64, 4, 64))
	qkv := view(mk(BFloat16, 64, 3, 4, 128).Slice(1, 0, 1))
	q3 := view(qkv.Reshape(64, 4, 128))
	tests := []struct {
		name string
		q    *Tensor
		dim  int
		info gpu.DeviceInfo
		env  string
		want string
	}{
		{"bf16 128 on cuda", mk(BFloat16, 4096, 32, 128), 128, cuda, "", "attentionTCBF16D128"},
		{"f16 64 on cuda", mk(Float16, 1024, 12, 64), 64, cuda, "", "attentionTCF16D64"},
		{"a view of a fused qkv", q3, 128, cuda, "", "attentionTCBF16D128"},
		{"a row offset", rows, 64, cuda, "", "attentionTCBF16D64"},
		{"mid-word start", oddStart, 64, cuda, "", ""},
		{"float32", mk(Float32, 1024, 12, 64), 64, cuda, "", ""},
		{"head dimension 96", mk(BFloat16, 1024, 12, 96), 96, cuda, "", ""},
		{"a decode", mk(BFloat16, 1, 12, 64), 64, cuda, "", ""},
		{"off", mk(BFloat16, 1024, 12, 64), 64, cuda, "off", ""},
		{"vulkan by default", mk(BFloat16, 1024, 12, 64), 64, vulkan, "", ""},
		{"vulkan when on", mk(BFloat16, 1024, 12, 64), 64, vulkan, "on", "attentionTCBF16D64"},
		{"too little shared memory", mk(BFloat16, 1024, 12, 64), 64, gpu.DeviceInfo{Backend: "cuda", SharedMemPerBlock: 16 << 10}, "", ""},
	}
	for _, tc := range tests {
		require.Equal(t, tc.want, attentionTCKernel(tc.q, tc.dim, tc.info, tc.env), tc.name)
	}
	require.LessOrEqual(t, ops.AttentionTCShared, 32<<10, "within OpenGL's 32 KiB")
}

// TestAttentionTCPrefill runs the matrix-unit kernel (asked for on every
// backend) on prefills of both 16-bit dtypes and both head dimensions, long
// enough to be split on a device of many units, and a second chunk
// continuing the cache, against attention in float64 (attentionTolerance).
// Mesa's Vulkan and OpenGL drivers take minutes to compile the
// head-dimension-128 variants' unrolled portable MMAs (up to 270 s on
// llvmpipe), which no device there chooses by default: they run the 64
// ones; the CPU, WebGPU and the simulated H100 run both. On OpenGL only
// bfloat16 runs: on NVIDIA's GL driver (580.159, H200) the float16 variant
// of the kernel with copies and matrix loads (their portable forms) did not
// come back from its first launch within 250 s (whether in the driver's
// compiler or on the GPU was not found), where the bfloat16 one passed.
func TestAttentionTCPrefill(t *testing.T) {
	t.Setenv(EnvAttentionTC, "on")
	forEachDevice(t, func(t *testing.T, dev *gpu.Device) {
		for _, tc := range []struct{ heads, dim, prompt, chunk int }{{2, 64, 300, 70}, {1, 128, 130, 33}} {
			if b := dev.Backend(); tc.dim > 64 && (b == "vulkan" || b == "opengl") {
				t.Logf("%s: head dimension %d not run (compile time)", b, tc.dim)
				continue
			}
			for _, d := range []DType{BFloat16, Float16} {
				if d == Float16 && dev.Backend() == "opengl" {
					t.Logf("opengl: float16 not run (NVIDIA's driver did not come back)")
					continue
				}
				t.Run(fmt.Sprintf("%s/%d heads of %d, prompt %d + %d", d, tc.heads, tc.dim, tc.prompt, tc.chunk), func(t *testing.T) {
					checkPrefill(t, dev, d, tc.heads, tc.dim, tc.prompt, tc.chunk)
				})
			}
		}
	})
}

// attentionTolerance is how close attention of the queries q (head
// dimension dim) on dev must come to attention in float64: tol for the
// dtype (forDType), and where attentionTC takes the queries, 4 roundings of
// the dtype more in absolute terms: it rounds the probabilities to the
// dtype before they meet the values (as the tensor cores take them, and as
// FlashAttention does), which moves a row by up to a rounding times the
// values' largest magnitude (2 in the tests), and sums the unrounded ones.
func attentionTolerance(dev *gpu.Device, q *Tensor, dim int, tol tolerance) tolerance {
	tol = tol.forDType(q.dtype)
	if attentionTCKernel(q, dim, stateOf(dev).info(), attentionTCEnv()) != "" {
		ulp := 1.0 / (1 << 8)
		if q.dtype == Float16 {
			ulp = 1.0 / (1 << 11)
		}
		tol.abs += 4 * ulp
	}
	return tol
}
