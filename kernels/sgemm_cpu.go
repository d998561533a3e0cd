package kernels

import (
	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/kernels/internal/sgemmops"
)

// goSgemm is the CPU's sgemm (Source's OpSgemm): the generated Go of
// OpSgemmFrom, which has sgemm's parameters and takes its tiles of C from any
// grid and group size, guarded as every generated kernel is. Each group
// multiplies its 64×128 tiles with kernel.MatMulAddFrom, which the CPU runs
// through the packed, register-blocked multiply of internal/gemm (assembly
// micro-kernels where the CPU has them) straight from the buffers. The
// hand-tuned GEMM it replaced is in kernels/internal/handwritten, the
// baseline of the benchmarks.
var goSgemm backend.GoKernel = guardGo(OpSgemm, sgemmops.Kernels.Go[OpSgemmFrom])
