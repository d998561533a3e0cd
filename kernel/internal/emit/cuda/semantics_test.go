package cuda

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/anygpu/gpu/kernel/internal/ir"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The tests here run emitted kernels on the host (runOnHost) and compare
// every result with Go's own arithmetic, as package ir defines it.

// intOp is one integer operation: how to build it and what Go computes.
type intOp[T integer] struct {
	name  string
	build func(a, b, c ir.Expr) ir.Expr // c is the shift count, a uint32
	want  func(a, b T, c uint32) T
}

type integer interface {
	~int32 | ~uint32 | ~int64 | ~uint64
}

func intOps[T integer](s ir.Scalar) []intOp[T] {
	binop := func(op ir.Op) func(a, b, c ir.Expr) ir.Expr {
		return func(a, b, _ ir.Expr) ir.Expr { return bin(op, a, b) }
	}
	ops := []intOp[T]{
		{"add", binop(ir.Add), func(a, b T, _ uint32) T { return a + b }},
		{"sub", binop(ir.Sub), func(a, b T, _ uint32) T { return a - b }},
		{"mul", binop(ir.Mul), func(a, b T, _ uint32) T { return a * b }},
		{"div", binop(ir.Div), func(a, b T, _ uint32) T {
			if b == 0 {
				return a
			}
			return a / b
		}},
		{"rem", binop(ir.Rem), func(a, b T, _ uint32) T {
			if b == 0 {
				return 0
			}
			return a % b
		}},
		{"and", binop(ir.And), func(a, b T, _ uint32) T { return a & b }},
		{"or", binop(ir.Or), func(a, b T, _ uint32) T { return a | b }},
		{"xor", binop(ir.Xor), func(a, b T, _ uint32) T { return a ^ b }},
		{"andnot", binop(ir.AndNot), func(a, b T, _ uint32) T { return a &^ b }},
		{"shl", func(a, _, c ir.Expr) ir.Expr { return &ir.Binary{Op: ir.Shl, X: a, Y: c, Type: s, Pos: at} },
			func(a, _ T, c uint32) T { return a << c }},
		{"shr", func(a, _, c ir.Expr) ir.Expr { return &ir.Binary{Op: ir.Shr, X: a, Y: c, Type: s, Pos: at} },
			func(a, _ T, c uint32) T { return a >> c }},
		{"neg", func(a, _, _ ir.Expr) ir.Expr { return un(ir.Neg, a) }, func(a, _ T, _ uint32) T { return -a }},
		{"bitnot", func(a, _, _ ir.Expr) ir.Expr { return un(ir.BitNot, a) }, func(a, _ T, _ uint32) T { return ^a }},
		{"abs", func(a, _, _ ir.Expr) ir.Expr { return builtin(ir.Abs, s, a) }, func(a, _ T, _ uint32) T {
			if a < 0 {
				return -a
			}
			return a
		}},
		{"min", func(a, b, _ ir.Expr) ir.Expr { return builtin(ir.Min, s, a, b) }, func(a, b T, _ uint32) T { return min(a, b) }},
		{"max", func(a, b, _ ir.Expr) ir.Expr { return builtin(ir.Max, s, a, b) }, func(a, b T, _ uint32) T { return max(a, b) }},
		{"clamp", func(a, b, _ ir.Expr) ir.Expr { return builtin(ir.Clamp, s, a, b, bin(ir.Add, b, b)) },
			func(a, b T, _ uint32) T { return min(max(a, b), b+b) }},
	}
	// By constants: a bare / or % where C++ means Go's, the helpers for 0
	// and -1.
	divisors := []int64{7, 1, 0, math.MaxInt32}
	if s.IsSigned() {
		divisors = append(divisors, -7, -1, math.MinInt32)
	}
	for _, d := range divisors {
		k := &ir.Const{Type: s, Int: d, Uint: uint64(d), Pos: at}
		b := T(d)
		ops = append(ops,
			intOp[T]{fmt.Sprintf("div by %d", d), func(a, _, _ ir.Expr) ir.Expr { return bin(ir.Div, a, k) }, func(a, _ T, _ uint32) T {
				if b == 0 {
					return a
				}
				return a / b
			}},
			intOp[T]{fmt.Sprintf("rem by %d", d), func(a, _, _ ir.Expr) ir.Expr { return bin(ir.Rem, a, k) }, func(a, _ T, _ uint32) T {
				if b == 0 {
					return 0
				}
				return a % b
			}})
	}
	return ops
}

// opsKernel is
//
//	func Ops(out []T, a, b []T, c []uint32, n uint32) {
//		i := kernel.GlobalX()
//		if i < n {
//			out[i*len(ops)+k] = op_k(a[i], b[i], c[i]) // for each k
//		}
//	}
func opsKernel(s ir.Scalar, builds []func(a, b, c ir.Expr) ir.Expr) *ir.Func {
	out, a, b := param("out", slice(s), 0), param("a", slice(s), 1), param("b", slice(s), 2)
	c, n := param("c", slice(ir.U32), 3), param("n", ir.U32, 4)
	i := local("i", ir.U32)
	var then []ir.Stmt
	for k, build := range builds {
		at := bin(ir.Add, bin(ir.Mul, ref(i), u32(uint64(len(builds)))), u32(uint64(k)))
		then = append(then, assign(index(ref(out), at),
			build(index(ref(a), ref(i)), index(ref(b), ref(i)), index(ref(c), ref(i)))))
	}
	return kernel("Ops", []*ir.Var{out, a, b, c, n},
		decl(i, builtin(ir.GlobalX, ir.U32)),
		&ir.If{Cond: bin(ir.Lt, ref(i), ref(n)), Then: then, Pos: at})
}

// testIntOps runs every operation of intOps on every pair of values.
func testIntOps[T integer](t *testing.T, s ir.Scalar, values []T, bits func(T) uint64) {
	ops := intOps[T](s)
	builds := make([]func(a, b, c ir.Expr) ir.Expr, len(ops))
	for k, op := range ops {
		builds[k] = op.build
	}
	src, err := Emit(&ir.Module{Funcs: []*ir.Func{opsKernel(s, builds)}})
	require.NoError(t, err)
	clangCheck(t, src)

	counts := []uint32{0, 1, 5, 31, 32, 33, 63, 64, 65, 200}
	var as, bs []T
	var cs []uint32
	for _, a := range values {
		for _, b := range values {
			as, bs = append(as, a), append(bs, b)
			cs = append(cs, counts[len(cs)%len(counts)])
		}
	}
	n := len(as)
	words := func(xs []T) []uint64 {
		w := make([]uint64, len(xs))
		for i, x := range xs {
			w[i] = bits(x)
		}
		return w
	}
	cw := make([]uint64, n)
	for i, c := range cs {
		cw[i] = uint64(c)
	}
	const block = 64
	res := runOnHost(t, src, "Ops", (n+block-1)/block, block, []hostArg{
		{elem: s, bits: make([]uint64, n*len(ops))},
		{elem: s, bits: words(as)}, {elem: s, bits: words(bs)}, {elem: ir.U32, bits: cw}, {scalar: itoa(n) + "u"},
	})
	for i := range n {
		for k, op := range ops {
			want := bits(op.want(as[i], bs[i], cs[i]))
			assert.Equal(t, want, res[0][i*len(ops)+k], "%s(%v, %v, count %d)", op.name, as[i], bs[i], cs[i])
		}
	}
}

func TestIntegerSemantics(t *testing.T) {
	t.Run("int32", func(t *testing.T) {
		testIntOps(t, ir.I32, []int32{0, 1, -1, 7, -7, 3, math.MinInt32, math.MaxInt32, math.MinInt32 + 1, 65536},
			func(v int32) uint64 { return uint64(uint32(v)) })
	})
	t.Run("uint32", func(t *testing.T) {
		testIntOps(t, ir.U32, []uint32{0, 1, 7, 3, math.MaxUint32, math.MaxUint32 - 6, 1 << 31, 65536},
			func(v uint32) uint64 { return uint64(v) })
	})
	t.Run("int64", func(t *testing.T) {
		testIntOps(t, ir.I64, []int64{0, 1, -1, 7, -7, math.MinInt64, math.MaxInt64, math.MinInt64 + 1, 1 << 32},
			func(v int64) uint64 { return uint64(v) })
	})
	t.Run("uint64", func(t *testing.T) {
		testIntOps(t, ir.U64, []uint64{0, 1, 7, math.MaxUint64, math.MaxUint64 - 6, 1 << 63, 1 << 32},
			func(v uint64) uint64 { return v })
	})
}

// TestDivisionByConstant: a constant divisor other than 0 and -1 is divided
// by bare (C++ means Go there); the others, and variables, take the helpers.
func TestDivisionByConstant(t *testing.T) {
	for _, tc := range []struct {
		name string
		t    ir.Scalar
		y    ir.Expr
		want string
	}{
		{"int32 by 7", ir.I32, i32(7), "= x / 7;"},
		{"int32 by -7", ir.I32, i32(-7), "= x / (-7);"},
		{"int32 by -1", ir.I32, i32(-1), "anygpu_div_i32(x, (-1))"},
		{"int32 by 0", ir.I32, i32(0), "anygpu_div_i32(x, 0)"},
		{"int32 by a variable", ir.I32, nil, "anygpu_div_i32(x, x)"},
		{"uint32 by 16", ir.U32, u32(16), "= x / 16u;"},
		{"uint32 by 0", ir.U32, u32(0), "anygpu_div_u32(x, 0u)"},
		{"int64 by 3", ir.I64, &ir.Const{Type: ir.I64, Int: 3, Pos: at}, "= x / 3ll;"},
		{"uint64 by 0", ir.U64, &ir.Const{Type: ir.U64, Pos: at}, "anygpu_div_u64(x, 0ull)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, x := param("out", slice(tc.t), 0), param("x", tc.t, 1)
			y := tc.y
			if y == nil {
				y = ref(x)
			}
			k := kernel("K", []*ir.Var{out, x},
				assign(index(ref(out), u32(0)), bin(ir.Div, ref(x), y)),
				assign(index(ref(out), u32(1)), bin(ir.Rem, ref(x), y)))
			src, err := Emit(&ir.Module{Funcs: []*ir.Func{k}})
			require.NoError(t, err)
			assert.Contains(t, src, tc.want)
			rem := strings.NewReplacer("x / ", "x % ", "div_", "rem_").Replace(tc.want)
			assert.Contains(t, src, rem)
		})
	}
}
