package tensor

import (
	"os"

	"github.com/anygpu/gpu/tensor/internal/ops"
)

// EnvAttentionFlash set to "off" runs prefill attention on the block kernels
// (attentionBlock, attentionBlockWide) instead of the register-tiled flash
// kernels, for comparison: the flash kernels are the default wherever the
// device's groups have their shared memory.
const EnvAttentionFlash = "ANYGPU_TENSOR_ATTENTION_FLASH"

// attentionFlashKernel is the flash kernel that takes a prefill of nq
// queries of head dimension dim on a device whose groups have shared bytes
// of shared memory (0: not reported), launched with groups of
// ops.AttentionFlashThreads taking ops.AttentionFlashQueries queries each;
// "" when none does: fewer queries than a
// block kernel's (a decode, which the split per-query kernel takes), a head
// dimension past ops.AttentionFlashWideDim, less shared memory than the
// kernel's (WebGPU's default 16 KiB, OpenGL ES's guaranteed 16), or off
// (EnvAttentionFlash). Head dimensions up to ops.AttentionFlashDim take the
// smaller kernel, whose key tiles are twice as long.
func attentionFlashKernel(nq, dim, shared int, off bool) string {
	name, need := "attentionFlash", ops.AttentionFlashShared
	if dim > ops.AttentionFlashDim {
		name, need = "attentionFlashWide", ops.AttentionFlashWideShared
	}
	if off || nq < ops.AttentionBlockQueries || dim > ops.AttentionFlashWideDim || (shared > 0 && shared < need) {
		return ""
	}
	return name
}

// attentionFlashOff reports whether EnvAttentionFlash turns the flash
// kernels off.
func attentionFlashOff() bool { return os.Getenv(EnvAttentionFlash) == "off" }
