package kernels

import (
	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/internal/gemm"
)

// goSgemm is the CPU's sgemm (Source's OpSgemm): the hand-tuned GEMM of
// internal/gemm (gemm.GroupSgemm), which splits C among the grid's groups
// in blocks of 128×256 to 512×1024 and packs each block's panels once.
// The generated OpSgemmFrom (kernel.MatMulAddFrom, 64×128 tiles that each
// pack their own panels) reached 0.82-0.84× it on one and two cores, but
// on an H200 machine's 16 cores 0.26 TFLOP/s in gpu bench against NumPy's
// 1.23, where this GEMM ran at 0.95-0.98: packing per small tile does not
// scale, so the hand-tuned kernel stays the CPU's.
var goSgemm backend.GoKernel = gemm.GroupSgemm
