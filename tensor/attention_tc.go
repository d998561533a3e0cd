package tensor

import (
	"os"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/tensor/internal/ops"
)

// EnvAttentionTC chooses where 16-bit prefill attention runs on matrix
// units (attentionTC, on kernel.MMA): by default on CUDA, where MMA is the
// tensor cores; "off" keeps CUDA on the flash kernels; "on" runs it on
// every backend too, where MMA is its portable form (correct, but slower
// than the flash kernels there: for tests and comparison).
const EnvAttentionTC = "ANYGPU_TENSOR_ATTENTION_TC"

// tcKernels are attentionTC's variants by dtype and head dimension.
var tcKernels = map[DType]map[int]string{
	BFloat16: {64: "attentionTCBF16D64", 128: "attentionTCBF16D128"},
	Float16:  {64: "attentionTCF16D64", 128: "attentionTCF16D128"},
}

// attentionTCKernel is the variant of attentionTC that takes the prefill
// of the checked queries q (nq queries, head dimension dim) on a device
// described by info, with EnvAttentionTC set to env; "" when none does: a
// dtype other than bfloat16 and float16, a head dimension other than 64
// and 128, fewer queries than a block kernel's (a decode), query rows that
// are not contiguous or do not start on words, less shared memory than
// ops.AttentionTCShared, or a backend other than CUDA unless env is "on".
func attentionTCKernel(q *Tensor, dim int, info gpu.DeviceInfo, env string) string {
	if env == "off" || (env != "on" && info.Backend != "cuda") {
		return ""
	}
	if q.shape[0] < ops.AttentionBlockQueries || q.strides[2] != 1 || q.offset%2 != 0 || q.strides[0]%2 != 0 || q.strides[1]%2 != 0 {
		return ""
	}
	if info.SharedMemPerBlock > 0 && info.SharedMemPerBlock < ops.AttentionTCShared {
		return ""
	}
	return tcKernels[q.dtype][dim]
}

// attentionTCEnv is EnvAttentionTC's value.
func attentionTCEnv() string { return os.Getenv(EnvAttentionTC) }
