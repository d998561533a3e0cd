package cuda

import (
	"math"
	"testing"

	"github.com/anygpu/gpu/kernel/internal/ir"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A helper named like a CUDA function and locals named like C++ keywords
// and CUDA built-ins get suffixes; kernels keep their names.
func TestReservedNamesAreRenamed(t *testing.T) {
	a, b := param("float", ir.F32, 0), param("threadIdx", ir.F32, 1)
	sq := &ir.Func{Name: "sqrtf", Params: []*ir.Var{a, b}, Result: ir.F32, Pos: at,
		Body: []ir.Stmt{&ir.Return{Value: bin(ir.Mul, ref(a), ref(b)), Pos: at}}}
	out := param("out", slice(ir.F32), 0)
	x, clash, alpha := local("int", ir.F32), local("sqrtf", ir.F32), local("α", ir.F32)
	k := kernel("Scale", []*ir.Var{out},
		decl(x, f32(3)),
		decl(clash, &ir.Call{Func: sq, Args: []ir.Expr{ref(x), builtin(ir.Sqrt, ir.F32, ref(x))}, Pos: at}),
		decl(alpha, ref(clash)),
		assign(index(ref(out), builtin(ir.ThreadX, ir.U32)), ref(alpha)))
	src, err := Emit(&ir.Module{Funcs: []*ir.Func{sq, k}})
	require.NoError(t, err)
	for _, want := range []string{
		"__device__ float sqrtf_1(float float_1, float threadIdx_1) {",
		"return float_1 * threadIdx_1;",
		`extern "C" __global__ void Scale(float* out) {`,
		"float int_1 = 3.0f;",
		"float sqrtf_2 = sqrtf_1(int_1, sqrtf(int_1));",
		"float _u03b1 = sqrtf_2;",
	} {
		assert.Contains(t, src, want)
	}
	clangCheck(t, src)
	res := runOnHost(t, src, "Scale", 1, 1, []hostArg{{elem: ir.F32, bits: []uint64{0}}})
	assert.Equal(t, uint64(math.Float32bits(3*float32(math.Sqrt(3)))), res[0][0])
}
