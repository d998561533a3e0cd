package opt

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu/kernel/internal/ir"
)

func i32(v int32) *ir.Const    { return &ir.Const{Type: ir.I32, Int: int64(v)} }
func u32(v uint32) *ir.Const   { return &ir.Const{Type: ir.U32, Uint: uint64(v)} }
func i64(v int64) *ir.Const    { return &ir.Const{Type: ir.I64, Int: v} }
func u64(v uint64) *ir.Const   { return &ir.Const{Type: ir.U64, Uint: v} }
func boolean(v bool) *ir.Const { return &ir.Const{Type: ir.Bool, Bool: v} }

func call(b ir.Builtin, t ir.Scalar, args ...ir.Expr) *ir.CallBuiltin {
	return &ir.CallBuiltin{Builtin: b, Args: args, Type: t}
}

func bin(op ir.Op, x, y ir.Expr) *ir.Binary {
	t := x.ExprType()
	if op.IsCompare() {
		t = ir.Bool
	}
	return &ir.Binary{Op: op, X: x, Y: y, Type: t}
}

// TestFold checks folded constants against Go's own typed arithmetic (run
// time values, so that overflow wraps as in a kernel).
func TestFold(t *testing.T) {
	maxI32, minI32, minI64 := int32(math.MaxInt32), int32(math.MinInt32), int64(math.MinInt64)
	minusOne, one, three, big := int32(-1), int32(1), int32(3), uint32(0xfffffff0)
	count := uint32(40)
	v := &ir.Var{Name: "v", Type: ir.I32}
	tests := []struct {
		name string
		expr ir.Expr
		want *ir.Const // nil: not folded
	}{
		{"int32 add wraps", bin(ir.Add, i32(maxI32), i32(1)), i32(maxI32 + one)},
		{"uint32 mul wraps", bin(ir.Mul, u32(big), u32(16)), u32(big * 16)},
		{"int32 abs of the most negative wraps", call(ir.Abs, ir.I32, i32(minI32)), i32(-minI32)},
		{"int32 abs", call(ir.Abs, ir.I32, i32(-7)), i32(7)},
		{"uint32 clamp", call(ir.Clamp, ir.U32, u32(3), u32(102), u32(133)), u32(102)},
		{"int64 min", call(ir.Min, ir.I64, i64(minI64), i64(5)), i64(minI64)},
		{"uint64 max", call(ir.Max, ir.U64, u64(1), u64(math.MaxUint64)), u64(math.MaxUint64)},
		{"a shift of a folded clamp folds", bin(ir.Shl, call(ir.Clamp, ir.U32, u32(3), u32(102), u32(133)), u32(30)), u32(102 << 30 & math.MaxUint32)},
		{"clamp of a variable is left", call(ir.Clamp, ir.I32, &ir.Ref{Var: v}, i32(1), i32(2)), nil},
		{"float min is left", call(ir.Min, ir.F32, &ir.Const{Type: ir.F32, Float: 1}, &ir.Const{Type: ir.F32, Float: 2}), nil},
		{"division truncates", bin(ir.Div, i32(-7), i32(2)), i32(int32(-7) / int32(2))},
		{"division by zero is the dividend", bin(ir.Div, i32(7), i32(0)), i32(7)},
		{"remainder by zero is 0", bin(ir.Rem, u32(7), u32(0)), u32(0)},
		{"most negative / -1 wraps", bin(ir.Div, i32(minI32), i32(minusOne)), i32(minI32 / minusOne)},
		{"int64 most negative % -1", bin(ir.Rem, i64(minI64), i64(-1)), i64(minI64 % int64(minusOne))},
		{"remainder takes the dividend's sign", bin(ir.Rem, i32(-7), i32(three)), i32(int32(-7) % three)},
		{"shift by the width or more is 0", bin(ir.Shl, u32(1), u32(count)), u32(uint32(1) << count)},
		{"signed shift right fills the sign", bin(ir.Shr, i32(-8), u32(count)), i32(int32(-8) >> count)},
		{"shift by a uint64 count", bin(ir.Shr, u64(1<<40), u64(3)), u64(uint64(1<<40) >> 3)},
		{"negative shift count is left alone", bin(ir.Shl, i32(1), i32(minusOne)), nil},
		{"and-not", bin(ir.AndNot, u32(0xff), u32(0x0f)), u32(0xf0)},
		{"comparison of signed values", bin(ir.Lt, i32(minusOne), i32(1)), boolean(true)},
		{"comparison of unsigned values", bin(ir.Lt, u32(uint32(minusOne)), u32(1)), boolean(false)},
		{"negation wraps", &ir.Unary{Op: ir.Neg, X: i32(minI32)}, i32(-minI32)},
		{"bitwise not", &ir.Unary{Op: ir.BitNot, X: u32(0)}, u32(^uint32(0))},
		{"not", &ir.Unary{Op: ir.Not, X: boolean(true)}, boolean(false)},
		{"int32 to uint32 keeps the bits", &ir.Convert{To: ir.U32, X: i32(minusOne)}, u32(uint32(minusOne))},
		{"int32 to uint64 sign-extends", &ir.Convert{To: ir.U64, X: i32(minusOne)}, u64(uint64(int64(minusOne)))},
		{"uint64 to int32 truncates", &ir.Convert{To: ir.I32, X: u64(1<<32 + 5)}, i32(5)},
		{"int32 to float32 rounds once", &ir.Convert{To: ir.F32, X: i32(16777217)},
			&ir.Const{Type: ir.F32, Float: float64(float32(int32(16777217)))}},
		{"false && x is false", bin(ir.LAnd, boolean(false), &ir.Ref{Var: &ir.Var{Name: "b", Type: ir.Bool}}), boolean(false)},
		{"a variable is not folded", bin(ir.Add, &ir.Ref{Var: v}, i32(1)), nil},
		{"nested constants fold", bin(ir.Add, &ir.Ref{Var: v}, bin(ir.Mul, i32(16), &ir.Convert{To: ir.I32, X: u32(2)})), nil},
		{"len of an array", &ir.CallBuiltin{Builtin: ir.Len, Type: ir.I32,
			Args: []ir.Expr{&ir.Ref{Var: &ir.Var{Name: "a", Type: &ir.Array{Elem: ir.F32, Len: 7}}}}}, i32(7)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := foldExpr(tt.expr)
			if tt.want == nil {
				_, isConst := got.(*ir.Const)
				assert.False(t, isConst, "folded to %+v", got)
				return
			}
			c, ok := got.(*ir.Const)
			require.True(t, ok, "not folded: %T", got)
			assert.Equal(t, *tt.want, *c)
		})
	}
}

// TestFoldInside checks that a constant operand inside a non-constant
// expression is folded in place: v + 16*int32(2u) becomes v + 32.
func TestFoldInside(t *testing.T) {
	v := &ir.Var{Name: "v", Type: ir.I32}
	e := foldExpr(bin(ir.Add, &ir.Ref{Var: v}, bin(ir.Mul, i32(16), &ir.Convert{To: ir.I32, X: u32(2)})))
	b, ok := e.(*ir.Binary)
	require.True(t, ok)
	assert.Equal(t, ir.Const{Type: ir.I32, Int: 32}, *b.Y.(*ir.Const))
}
