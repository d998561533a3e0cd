package cuda

import (
	"math"
	"testing"

	"github.com/anygpu/gpu/kernel/internal/ir"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// floatKind is float32 or float64 for the tests: the IR type, how a value
// becomes the bits the host prints, and back.
type floatKind struct {
	s      ir.Scalar
	bits   func(float64) uint64 // the value rounded to the type
	value  func(uint64) float64
	consts func(float64) *ir.Const
}

var float32Kind = floatKind{ir.F32,
	func(f float64) uint64 { return uint64(math.Float32bits(float32(f))) },
	func(w uint64) float64 { return float64(math.Float32frombits(uint32(w))) },
	func(f float64) *ir.Const { return &ir.Const{Type: ir.F32, Float: float64(float32(f)), Pos: at} }}

var float64Kind = floatKind{ir.F64, math.Float64bits, math.Float64frombits,
	func(f float64) *ir.Const { return &ir.Const{Type: ir.F64, Float: f, Pos: at} }}

// interestingFloats are the inputs of the float tests.
var interestingFloats = []float64{0, math.Copysign(0, -1), 1, -1, 1.5, -2.5, 0.9, -0.9, math.NaN(), math.Inf(1), math.Inf(-1),
	1e-45, 3.4e38, 2147483648, -2147483648, 2147483520, 4294967296, 4294967295.5, 9223372036854775808,
	-9223372036854775808, 18446744073709551616, 1e20, -1e20}

// sameFloat reports whether got is want, any NaN matching any NaN.
func sameFloat(k floatKind, want float64, got uint64) bool {
	if math.IsNaN(want) {
		return math.IsNaN(k.value(got))
	}
	return k.bits(want) == got
}

// saturate is Go's float → integer conversion as package ir defines it:
// truncate, saturate at [lo, hi], NaN → 0. hiPlus1 is hi+1 as a float (a
// power of two, exact).
func saturate(f float64, lo, hi uint64, loF, hiPlus1 float64) uint64 {
	t := math.Trunc(f)
	switch {
	case math.IsNaN(f):
		return 0
	case t <= loF:
		return lo
	case t >= hiPlus1:
		return hi
	case t < 0:
		return uint64(int64(t))
	}
	return uint64(t)
}

func TestFloatToIntSaturates(t *testing.T) {
	for _, k := range []floatKind{float32Kind, float64Kind} {
		t.Run(k.s.String(), func(t *testing.T) {
			outs := []ir.Scalar{ir.I32, ir.U32, ir.I64, ir.U64}
			a, n := param("a", slice(k.s), len(outs)), param("n", ir.U32, len(outs)+1)
			i := local("i", ir.U32)
			var params []*ir.Var
			var then []ir.Stmt
			for j, s := range outs {
				o := param("o"+s.String(), slice(s), j)
				params = append(params, o)
				then = append(then, assign(index(ref(o), ref(i)), conv(s, index(ref(a), ref(i)))))
			}
			f := kernel("Cvt", append(params, a, n), decl(i, builtin(ir.GlobalX, ir.U32)),
				&ir.If{Cond: bin(ir.Lt, ref(i), ref(n)), Then: then, Pos: at})
			src, err := Emit(&ir.Module{Funcs: []*ir.Func{f}})
			require.NoError(t, err)
			assert.Contains(t, src, "anygpu_cvt_"+suffixes[k.s]+"_i32(a[i])")
			clangCheck(t, src)

			nv := len(interestingFloats)
			in := make([]uint64, nv)
			for j, v := range interestingFloats {
				in[j] = k.bits(v)
			}
			args := []hostArg{{elem: ir.I32, bits: make([]uint64, nv)}, {elem: ir.U32, bits: make([]uint64, nv)},
				{elem: ir.I64, bits: make([]uint64, nv)}, {elem: ir.U64, bits: make([]uint64, nv)},
				{elem: k.s, bits: in}, {scalar: itoa(nv) + "u"}}
			res := runOnHost(t, src, "Cvt", 1, nv, args)
			for j := range nv {
				v := k.value(in[j]) // the input as the type holds it
				assert.Equal(t, saturate(v, 0x80000000, math.MaxInt32, -2147483648, 2147483648)&math.MaxUint32, res[0][j], "int32(%v)", v)
				assert.Equal(t, saturate(v, 0, math.MaxUint32, 0, 4294967296), res[1][j], "uint32(%v)", v)
				assert.Equal(t, saturate(v, 1<<63, math.MaxInt64, -9223372036854775808, 9223372036854775808), res[2][j], "int64(%v)", v)
				assert.Equal(t, saturate(v, 0, math.MaxUint64, 0, 18446744073709551616), res[3][j], "uint64(%v)", v)
			}
		})
	}
}

// floatOp is one float operation and Go's result.
type floatOp struct {
	name  string
	build func(s ir.Scalar, a, b ir.Expr) ir.Expr
	want  func(a, b float64) float64 // computed in the type (round each result with the kind)
}

func TestFloatSemantics(t *testing.T) {
	for _, k := range []floatKind{float32Kind, float64Kind} {
		t.Run(k.s.String(), func(t *testing.T) {
			round := func(f float64) float64 { return k.value(k.bits(f)) }
			ops := []floatOp{
				{"add", func(_ ir.Scalar, a, b ir.Expr) ir.Expr { return bin(ir.Add, a, b) }, func(a, b float64) float64 { return a + b }},
				{"div", func(_ ir.Scalar, a, b ir.Expr) ir.Expr { return bin(ir.Div, a, b) }, func(a, b float64) float64 { return a / b }},
				{"neg", func(_ ir.Scalar, a, _ ir.Expr) ir.Expr { return un(ir.Neg, a) }, func(a, _ float64) float64 { return -a }},
				{"min", func(s ir.Scalar, a, b ir.Expr) ir.Expr { return builtin(ir.Min, s, a, b) }, func(a, b float64) float64 { return min(a, b) }},
				{"max", func(s ir.Scalar, a, b ir.Expr) ir.Expr { return builtin(ir.Max, s, a, b) }, func(a, b float64) float64 { return max(a, b) }},
				{"abs", func(s ir.Scalar, a, _ ir.Expr) ir.Expr { return builtin(ir.Abs, s, a) }, func(a, _ float64) float64 { return math.Abs(a) }},
				{"clamp", func(s ir.Scalar, a, b ir.Expr) ir.Expr { return builtin(ir.Clamp, s, a, b, k.consts(2)) },
					func(a, b float64) float64 { return min(max(a, b), 2) }},
				{"floor", func(s ir.Scalar, a, _ ir.Expr) ir.Expr { return builtin(ir.Floor, s, a) }, func(a, _ float64) float64 { return math.Floor(a) }},
				{"trunc", func(s ir.Scalar, a, _ ir.Expr) ir.Expr { return builtin(ir.Trunc, s, a) }, func(a, _ float64) float64 { return math.Trunc(a) }},
				{"sqrt", func(s ir.Scalar, a, _ ir.Expr) ir.Expr { return builtin(ir.Sqrt, s, a) }, func(a, _ float64) float64 { return math.Sqrt(a) }},
			}
			out, a, b, n := param("out", slice(k.s), 0), param("a", slice(k.s), 1), param("b", slice(k.s), 2), param("n", ir.U32, 3)
			i := local("i", ir.U32)
			var then []ir.Stmt
			for j, op := range ops {
				at := bin(ir.Add, bin(ir.Mul, ref(i), u32(uint64(len(ops)))), u32(uint64(j)))
				then = append(then, assign(index(ref(out), at), op.build(k.s, index(ref(a), ref(i)), index(ref(b), ref(i)))))
			}
			f := kernel("Ops", []*ir.Var{out, a, b, n}, decl(i, builtin(ir.GlobalX, ir.U32)),
				&ir.If{Cond: bin(ir.Lt, ref(i), ref(n)), Then: then, Pos: at})
			src, err := Emit(&ir.Module{Funcs: []*ir.Func{f}})
			require.NoError(t, err)
			clangCheck(t, src)

			var as, bs []uint64
			for _, x := range interestingFloats {
				for _, y := range interestingFloats[:11] {
					as, bs = append(as, k.bits(x)), append(bs, k.bits(y))
				}
			}
			nv := len(as)
			res := runOnHost(t, src, "Ops", (nv+63)/64, 64, []hostArg{{elem: k.s, bits: make([]uint64, nv*len(ops))},
				{elem: k.s, bits: as}, {elem: k.s, bits: bs}, {scalar: itoa(nv) + "u"}})
			for j := range nv {
				x, y := k.value(as[j]), k.value(bs[j])
				for o, op := range ops {
					want := round(op.want(x, y))
					got := res[0][j*len(ops)+o]
					assert.True(t, sameFloat(k, want, got), "%s(%v, %v) = %v, want %v", op.name, x, y, k.value(got), want)
				}
			}
		})
	}
}

func TestFloatConstantsAreExact(t *testing.T) {
	values := []float64{0, math.Copysign(0, -1), 0.1, -0.1, 1.0 / 3, 1e-45, 5e-324, math.MaxFloat32, math.SmallestNonzeroFloat32,
		math.MaxFloat64, 16777217, 1e10, 123456789.125, math.Inf(1), math.Inf(-1), math.NaN(), math.Pi, -2.5e-38}
	for _, k := range []floatKind{float32Kind, float64Kind} {
		t.Run(k.s.String(), func(t *testing.T) {
			out := param("out", slice(k.s), 0)
			var body []ir.Stmt
			for j, v := range values {
				body = append(body, assign(index(ref(out), u32(uint64(j))), k.consts(v)))
			}
			src, err := Emit(&ir.Module{Funcs: []*ir.Func{kernel("Consts", []*ir.Var{out}, body...)}})
			require.NoError(t, err)
			clangCheck(t, src)
			res := runOnHost(t, src, "Consts", 1, 1, []hostArg{{elem: k.s, bits: make([]uint64, len(values))}})
			for j, v := range values {
				assert.True(t, sameFloat(k, k.value(k.bits(v)), res[0][j]), "constant %v: got %v", v, k.value(res[0][j]))
			}
		})
	}
}

// Every math built-in is the full-precision CUDA function of its type, and
// runs on the host within a few units in the last place of Go's math.
func TestMathFunctions(t *testing.T) {
	funcs := []struct {
		b    ir.Builtin
		f32  string
		args int
		want func(x float64) float64
	}{
		{ir.Sqrt, "sqrtf", 1, math.Sqrt}, {ir.Rsqrt, "rsqrtf", 1, func(x float64) float64 { return 1 / math.Sqrt(x) }},
		{ir.Exp, "expf", 1, math.Exp}, {ir.Exp2, "exp2f", 1, math.Exp2}, {ir.Log, "logf", 1, math.Log},
		{ir.Log2, "log2f", 1, math.Log2}, {ir.Sin, "sinf", 1, math.Sin}, {ir.Cos, "cosf", 1, math.Cos},
		{ir.Tanh, "tanhf", 1, math.Tanh}, {ir.Pow, "powf", 2, func(x float64) float64 { return math.Pow(x, x) }},
		{ir.Floor, "floorf", 1, math.Floor}, {ir.Ceil, "ceilf", 1, math.Ceil}, {ir.Trunc, "truncf", 1, math.Trunc},
		{ir.Fma, "fmaf", 3, func(x float64) float64 { return math.FMA(x, x, x) }},
	}
	for _, k := range []floatKind{float32Kind, float64Kind} {
		t.Run(k.s.String(), func(t *testing.T) {
			out, in := param("out", slice(k.s), 0), param("in", slice(k.s), 1)
			var body []ir.Stmt
			for j, f := range funcs {
				args := make([]ir.Expr, f.args)
				for a := range args {
					args[a] = index(ref(in), u32(0))
				}
				body = append(body, assign(index(ref(out), u32(uint64(j))), builtin(f.b, k.s, args...)))
			}
			src, err := Emit(&ir.Module{Funcs: []*ir.Func{kernel("Math", []*ir.Var{out, in}, body...)}})
			require.NoError(t, err)
			for _, f := range funcs {
				name := f.f32
				if k.s == ir.F64 {
					name = name[:len(name)-1]
				}
				assert.Contains(t, src, " = "+name+"(in[0u]", f.b.String())
			}
			clangCheck(t, src)
			const x = 1.375
			res := runOnHost(t, src, "Math", 1, 1, []hostArg{{elem: k.s, bits: make([]uint64, len(funcs))}, {elem: k.s, bits: []uint64{k.bits(x)}}})
			for j, f := range funcs {
				want, got := f.want(x), k.value(res[0][j])
				assert.InEpsilon(t, want, got, 1e-6, "%v(%v)", f.b, x)
			}
		})
	}
}
