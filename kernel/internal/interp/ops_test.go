package interp

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/kernel/internal/ir"
)

// opsKernel is a kernel that, for thread i < n, writes out[i*len(ops)+j] =
// ops[j](a[i], b[i]).
func opsKernel(elem, outElem ir.Scalar, ops []func(x, y ir.Expr) ir.Expr) *ir.Func {
	in, out := &ir.Slice{Elem: elem}, &ir.Slice{Elem: outElem}
	a, b, o, n := param("a", in, 0), param("b", in, 1), param("out", out, 2), param("n", ir.U32, 3)
	i := local("i", ir.U32)
	x, y := local("x", elem), local("y", elem)
	body := []ir.Stmt{
		decl(i, idb(ir.GlobalX)),
		&ir.If{Cond: bin(ir.Ge, ref(i), ref(n)), Then: []ir.Stmt{&ir.Return{}}},
		decl(x, at(ref(a), ref(i))),
		decl(y, at(ref(b), ref(i))),
	}
	for j, op := range ops {
		idx := bin(ir.Add, bin(ir.Mul, ref(i), cU32(uint32(len(ops)))), cU32(uint32(j)))
		body = append(body, set(at(ref(o), idx), op(ref(x), ref(y))))
	}
	return kernelFunc("Ops", []*ir.Var{a, b, o, n}, body...)
}

func binop(op ir.Op) func(x, y ir.Expr) ir.Expr {
	return func(x, y ir.Expr) ir.Expr { return bin(op, x, y) }
}

// runOps runs opsKernel over the pairs (as[i], bs[i]) and returns out.
func runOps[T, O interface{ ~int32 | ~uint32 | ~float32 }](t *testing.T, elem, outElem ir.Scalar, ops []func(x, y ir.Expr) ir.Expr, as, bs []T) []O {
	t.Helper()
	k := compileOne(t, opsKernel(elem, outElem, ops))
	out := make([]O, len(as)*len(ops))
	require.NoError(t, launch(k, backend.Dim3{X: (len(as) + 3) / 4}, backend.Dim3{X: 4}, buf(as), buf(bs), buf(out), argU32(uint32(len(as)))))
	return out
}

func TestInt32Ops(t *testing.T) {
	type pair struct{ a, b int32 }
	pairs := []pair{{7, 2}, {-7, 2}, {7, -2}, {5, 0}, {-5, 0}, {math.MinInt32, -1}, {math.MaxInt32, 1},
		{math.MinInt32, 1}, {1, 31}, {1, 32}, {-8, 33}, {-1, 100}, {12345, 3}}
	tests := []struct {
		op   ir.Op
		want func(a, b int32) int32
	}{
		{ir.Add, func(a, b int32) int32 { return a + b }},
		{ir.Sub, func(a, b int32) int32 { return a - b }},
		{ir.Mul, func(a, b int32) int32 { return a * b }},
		{ir.Div, func(a, b int32) int32 {
			if b == 0 {
				return a
			}
			return a / b
		}},
		{ir.Rem, func(a, b int32) int32 {
			if b == 0 {
				return 0
			}
			return a % b
		}},
		{ir.And, func(a, b int32) int32 { return a & b }},
		{ir.Or, func(a, b int32) int32 { return a | b }},
		{ir.Xor, func(a, b int32) int32 { return a ^ b }},
		{ir.AndNot, func(a, b int32) int32 { return a &^ b }},
		{ir.Shl, func(a, b int32) int32 { return a << uint32(b) }},
		{ir.Shr, func(a, b int32) int32 { return a >> uint32(b) }},
	}
	var ops []func(x, y ir.Expr) ir.Expr
	for _, tt := range tests {
		ops = append(ops, binop(tt.op))
	}
	var as, bs []int32
	for _, p := range pairs {
		as, bs = append(as, p.a), append(bs, p.b)
	}
	out := runOps[int32, int32](t, ir.I32, ir.I32, ops, as, bs)
	for i, p := range pairs {
		for j, tt := range tests {
			assert.Equal(t, tt.want(p.a, p.b), out[i*len(tests)+j], "%d %s %d", p.a, tt.op, p.b)
		}
	}
}

func TestUint32OpsAndShiftCounts(t *testing.T) {
	as := []uint32{7, 0xffffffff, 0x80000000, 5, 1, 1, 3}
	bs := []uint32{2, 1, 31, 0, 32, 200, 0xffffffff}
	tests := []struct {
		name string
		op   func(x, y ir.Expr) ir.Expr
		want func(a, b uint32) uint32
	}{
		{"add", binop(ir.Add), func(a, b uint32) uint32 { return a + b }},
		{"sub", binop(ir.Sub), func(a, b uint32) uint32 { return a - b }},
		{"mul", binop(ir.Mul), func(a, b uint32) uint32 { return a * b }},
		{"div", binop(ir.Div), func(a, b uint32) uint32 {
			if b == 0 {
				return a
			}
			return a / b
		}},
		{"rem", binop(ir.Rem), func(a, b uint32) uint32 {
			if b == 0 {
				return 0
			}
			return a % b
		}},
		{"shl", binop(ir.Shl), func(a, b uint32) uint32 { return a << b }},
		{"shr", binop(ir.Shr), func(a, b uint32) uint32 { return a >> b }},
		{"shr by int32 count", func(x, y ir.Expr) ir.Expr {
			return &ir.Binary{Op: ir.Shr, X: x, Y: &ir.Convert{To: ir.I32, X: y}, Type: ir.U32}
		}, func(a, b uint32) uint32 {
			if int32(b) < 0 {
				return 0 // a negative count counts as huge
			}
			return a >> b
		}},
		{"neg", func(x, _ ir.Expr) ir.Expr { return &ir.Unary{Op: ir.Neg, X: x} }, func(a, _ uint32) uint32 { return -a }},
		{"bitnot", func(x, _ ir.Expr) ir.Expr { return &ir.Unary{Op: ir.BitNot, X: x} }, func(a, _ uint32) uint32 { return ^a }},
		{"min", func(x, y ir.Expr) ir.Expr { return call(ir.Min, ir.U32, x, y) }, func(a, b uint32) uint32 { return min(a, b) }},
		{"clamp", func(x, y ir.Expr) ir.Expr { return call(ir.Clamp, ir.U32, x, cU32(2), y) }, func(a, b uint32) uint32 { return min(max(a, 2), b) }},
		{"bits of float32(x)", func(x, y ir.Expr) ir.Expr {
			return &ir.Convert{To: ir.U32, X: call(ir.Float32Bits, ir.U32, &ir.Convert{To: ir.F32, X: x})}
		}, func(a, _ uint32) uint32 { return math.Float32bits(float32(a)) }},
	}
	var ops []func(x, y ir.Expr) ir.Expr
	for _, tt := range tests {
		ops = append(ops, tt.op)
	}
	out := runOps[uint32, uint32](t, ir.U32, ir.U32, ops, as, bs)
	for i := range as {
		for j, tt := range tests {
			assert.Equal(t, tt.want(as[i], bs[i]), out[i*len(tests)+j], "%s(%d, %d)", tt.name, as[i], bs[i])
		}
	}
}

func TestFloat32Ops(t *testing.T) {
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	as := []float32{1.5, -2.25, 0, nan, inf, -inf, 1e30, 3e9, -3e9, 1, float32(math.Copysign(0, -1)), 16777217}
	bs := []float32{0.1, 3, 0, 1, inf, 2, 1e30, 0.5, nan, 0, 0, 1}
	f := func(op ir.Op) func(x, y ir.Expr) ir.Expr { return binop(op) }
	toInt := func(x, _ ir.Expr) ir.Expr {
		return call(ir.Float32FromBits, ir.F32, &ir.Convert{To: ir.U32, X: &ir.Convert{To: ir.I32, X: x}})
	}
	sat := func(v float32) int32 {
		switch {
		case v != v:
			return 0
		case v <= math.MinInt32:
			return math.MinInt32
		case v >= math.MaxInt32:
			return math.MaxInt32
		}
		return int32(v)
	}
	b2f := func(b bool) float32 {
		if b {
			return 1
		}
		return 0
	}
	cmp := func(op ir.Op) func(x, y ir.Expr) ir.Expr {
		return func(x, y ir.Expr) ir.Expr {
			// The comparison as 1 or 0, through a helper.
			return &ir.Call{Func: boolToF32, Args: []ir.Expr{bin(op, x, y)}}
		}
	}
	tests := []struct {
		name string
		op   func(x, y ir.Expr) ir.Expr
		want func(a, b float32) float32
	}{
		{"add", f(ir.Add), func(a, b float32) float32 { return a + b }},
		{"sub", f(ir.Sub), func(a, b float32) float32 { return a - b }},
		{"mul", f(ir.Mul), func(a, b float32) float32 { return a * b }},
		{"div", f(ir.Div), func(a, b float32) float32 { return a / b }},
		{"neg", func(x, _ ir.Expr) ir.Expr { return &ir.Unary{Op: ir.Neg, X: x} }, func(a, _ float32) float32 { return -a }},
		{"min", func(x, y ir.Expr) ir.Expr { return call(ir.Min, ir.F32, x, y) }, func(a, b float32) float32 { return min(a, b) }},
		{"max", func(x, y ir.Expr) ir.Expr { return call(ir.Max, ir.F32, x, y) }, func(a, b float32) float32 { return max(a, b) }},
		{"to int32 saturating", toInt, func(a, _ float32) float32 { return math.Float32frombits(uint32(sat(a))) }},
		{"lt", cmp(ir.Lt), func(a, b float32) float32 { return b2f(a < b) }},
		{"eq", cmp(ir.Eq), func(a, b float32) float32 { return b2f(a == b) }},
		{"ne", cmp(ir.Ne), func(a, b float32) float32 { return b2f(a != b) }},
		{"ge", cmp(ir.Ge), func(a, b float32) float32 { return b2f(a >= b) }},
		{"fma", func(x, y ir.Expr) ir.Expr { return call(ir.Fma, ir.F32, x, y, cF32(-1)) }, func(a, b float32) float32 {
			return float32(math.FMA(float64(a), float64(b), -1))
		}},
		{"via float64", func(x, y ir.Expr) ir.Expr {
			return &ir.Convert{To: ir.F32, X: bin(ir.Mul, &ir.Convert{To: ir.F64, X: x}, &ir.Convert{To: ir.F64, X: y})}
		}, func(a, b float32) float32 { return float32(float64(a) * float64(b)) }},
	}
	var ops []func(x, y ir.Expr) ir.Expr
	for _, tt := range tests {
		ops = append(ops, tt.op)
	}
	k := compileOne(t, opsKernel(ir.F32, ir.F32, ops), boolToF32)
	out := make([]float32, len(as)*len(ops))
	require.NoError(t, launch(k, backend.Dim3{X: 3}, backend.Dim3{X: 4}, buf(as), buf(bs), buf(out), argU32(uint32(len(as)))))
	for i := range as {
		for j, tt := range tests {
			want, got := tt.want(as[i], bs[i]), out[i*len(tests)+j]
			assert.Equal(t, math.Float32bits(want), math.Float32bits(got), "%s(%v, %v): want %v, got %v", tt.name, as[i], bs[i], want, got)
		}
	}
}

// boolToF32 is the helper
//
//	func boolToF32(b bool) float32 {
//		if b {
//			return 1
//		}
//		return 0
//	}
var boolToF32 = func() *ir.Func {
	b := param("b", ir.Bool, 0)
	return &ir.Func{Name: "boolToF32", Params: []*ir.Var{b}, Result: ir.F32, Body: []ir.Stmt{
		&ir.If{Cond: ref(b), Then: []ir.Stmt{&ir.Return{Value: cF32(1)}}},
		&ir.Return{Value: cF32(0)},
	}}
}()

func TestMathBuiltins(t *testing.T) {
	xs := []float32{0.5, 2, -1.25, 0, 100, float32(math.NaN()), float32(math.Inf(1)), -0.75, 1e-3}
	ys := []float32{3, 0.5, 2, -1, 0.25, 1, 2, 3, 4}
	un := func(b ir.Builtin) func(x, y ir.Expr) ir.Expr {
		return func(x, _ ir.Expr) ir.Expr { return call(b, ir.F32, x) }
	}
	f64 := func(g func(float64) float64) func(a, _ float32) float32 {
		return func(a, _ float32) float32 { return float32(g(float64(a))) }
	}
	tests := []struct {
		name string
		op   func(x, y ir.Expr) ir.Expr
		want func(a, b float32) float32
	}{
		{"Sqrt", un(ir.Sqrt), f64(math.Sqrt)},
		{"Rsqrt", un(ir.Rsqrt), f64(func(x float64) float64 { return 1 / math.Sqrt(x) })},
		{"Exp", un(ir.Exp), f64(math.Exp)},
		{"Exp2", un(ir.Exp2), f64(math.Exp2)},
		{"Log", un(ir.Log), f64(math.Log)},
		{"Log2", un(ir.Log2), f64(math.Log2)},
		{"Sin", un(ir.Sin), f64(math.Sin)},
		{"Cos", un(ir.Cos), f64(math.Cos)},
		{"Tanh", un(ir.Tanh), f64(math.Tanh)},
		{"Floor", un(ir.Floor), f64(math.Floor)},
		{"Ceil", un(ir.Ceil), f64(math.Ceil)},
		{"Trunc", un(ir.Trunc), f64(math.Trunc)},
		{"Abs", un(ir.Abs), f64(math.Abs)},
		{"Pow", func(x, y ir.Expr) ir.Expr { return call(ir.Pow, ir.F32, x, y) }, func(a, b float32) float32 {
			return float32(math.Pow(float64(a), float64(b)))
		}},
		{"Clamp", func(x, y ir.Expr) ir.Expr { return call(ir.Clamp, ir.F32, x, cF32(-1), y) }, func(a, b float32) float32 {
			return min(max(a, -1), b)
		}},
	}
	var ops []func(x, y ir.Expr) ir.Expr
	for _, tt := range tests {
		ops = append(ops, tt.op)
	}
	out := runOps[float32, float32](t, ir.F32, ir.F32, ops, xs, ys)
	for i := range xs {
		for j, tt := range tests {
			want, got := tt.want(xs[i], ys[i]), out[i*len(tests)+j]
			assert.Equal(t, math.Float32bits(want), math.Float32bits(got), "%s(%v, %v): want %v, got %v", tt.name, xs[i], ys[i], want, got)
		}
	}
}
