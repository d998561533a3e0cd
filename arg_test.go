package gpu_test

import (
	"math"
	"testing"

	"github.com/anygpu/gpu"
	"github.com/stretchr/testify/assert"
)

func TestArgBits(t *testing.T) {
	for _, tc := range []struct {
		arg  gpu.Arg
		kind gpu.ArgKind
		bits uint64
	}{
		{gpu.F32(1.5), gpu.KindF32, uint64(math.Float32bits(1.5))},
		{gpu.F64(-2), gpu.KindF64, math.Float64bits(-2)},
		{gpu.I32(-1), gpu.KindI32, 0xffffffff},
		{gpu.U32(7), gpu.KindU32, 7},
		{gpu.I64(-1), gpu.KindI64, math.MaxUint64},
		{gpu.U64(1 << 40), gpu.KindU64, 1 << 40},
		{gpu.Buf(nil), gpu.KindBuffer, 0},
	} {
		assert.Equal(t, tc.kind, tc.arg.Kind())
		assert.Equal(t, tc.bits, tc.arg.Bits(), "%v", tc.kind)
	}
}
