package tensor

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/tensor/internal/ops"
)

// TestAttentionFlashKernel: prefills take the flash kernel their head
// dimension needs where the device's groups have its shared memory, and
// only where a block kernel would take them (attend asks in that order).
func TestAttentionFlashKernel(t *testing.T) {
	tests := []struct {
		nq, dim, shared int
		off             bool
		want            string
	}{
		{nq: 15, dim: 64, shared: 48 << 10, want: ""}, // a decode-sized batch: the split per-query kernel
		{nq: 16, dim: 64, shared: 48 << 10, want: "attentionFlash"},
		{nq: 1024, dim: 1, shared: 0, want: "attentionFlash"}, // not reported
		{nq: 1024, dim: 64, shared: 16 << 10, want: ""},       // WebGPU's default limit
		{nq: 1024, dim: 64, shared: ops.AttentionFlashShared, want: "attentionFlash"},
		{nq: 4096, dim: 65, shared: 32 << 10, want: "attentionFlashWide"}, // llvmpipe's GLES
		{nq: 4096, dim: 128, shared: ops.AttentionFlashWideShared, want: "attentionFlashWide"},
		{nq: 4096, dim: 128, shared: ops.AttentionFlashWideShared - 1, want: ""},
		{nq: 4096, dim: 129, shared: 48 << 10, want: ""},
		{nq: 4096, dim: 64, shared: 48 << 10, off: true, want: ""},
	}
	for _, tc := range tests {
		require.Equal(t, tc.want, attentionFlashKernel(tc.nq, tc.dim, tc.shared, tc.off), "%+v", tc)
	}
	for _, nq := range []int{1, 15, 16, 33, 4096} {
		for _, dim := range []int{1, 64, 65, 128, 129, 256} {
			for _, shared := range []int{0, 16 << 10, 24 << 10, 28 << 10, 32 << 10, 48 << 10} {
				if attentionFlashKernel(nq, dim, shared, false) != "" {
					block, _ := attentionBlockKernel(nq, dim, shared)
					require.NotEmpty(t, block, "nq %d dim %d shared %d: flash where no block kernel is", nq, dim, shared)
				}
			}
		}
	}
	require.LessOrEqual(t, ops.AttentionFlashShared, 32<<10, "within OpenGL's 32 KiB")
	require.LessOrEqual(t, ops.AttentionFlashWideShared, 32<<10, "within OpenGL's 32 KiB")
	forEachDevice(t, func(t *testing.T, dev *gpu.Device) {
		shared := stateOf(dev).info().SharedMemPerBlock
		t.Logf("shared memory per group %d: head dimension 64 takes %q, 128 %q", shared,
			attentionFlashKernel(1024, 64, shared, false), attentionFlashKernel(1024, 128, shared, false))
	})
}
