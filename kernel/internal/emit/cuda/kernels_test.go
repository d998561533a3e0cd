package cuda

import (
	"math"
	"strings"
	"testing"

	"github.com/anygpu/gpu/kernel/internal/ir"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// reduce is a partial sum per group through a shared array:
//
//	func Reduce(out, in []float32, n uint32) {
//		sh := kernel.Shared[[256]float32]()
//		t, i := kernel.ThreadX(), kernel.GlobalX()
//		var v float32
//		if i < n {
//			v = in[i]
//		}
//		sh[t] = v
//		kernel.Barrier()
//		for s := kernel.GroupSizeX() / 2; s > 0; s >>= 1 {
//			if t < s {
//				sh[t] += sh[t+s]
//			}
//			kernel.Barrier()
//		}
//		if t == 0 {
//			out[kernel.GroupX()] = sh[0]
//		}
//	}
func reduce() *ir.Func {
	out, in, n := param("out", slice(ir.F32), 0), param("in", slice(ir.F32), 1), param("n", ir.U32, 2)
	sh := shared("sh", &ir.Array{Elem: ir.F32, Len: 256})
	t, i, v, s := local("t", ir.U32), local("i", ir.U32), local("v", ir.F32), local("s", ir.U32)
	f := kernel("Reduce", []*ir.Var{out, in, n},
		decl(t, builtin(ir.ThreadX, ir.U32)),
		decl(i, builtin(ir.GlobalX, ir.U32)),
		decl(v, nil),
		&ir.If{Cond: bin(ir.Lt, ref(i), ref(n)), Then: []ir.Stmt{assign(ref(v), index(ref(in), ref(i)))}, Pos: at},
		assign(index(ref(sh), ref(t)), ref(v)),
		&ir.Barrier{Pos: at},
		&ir.For{
			Init: decl(s, bin(ir.Div, builtin(ir.GroupSizeX, ir.U32), u32(2))),
			Cond: bin(ir.Gt, ref(s), u32(0)),
			Post: assign(ref(s), &ir.Binary{Op: ir.Shr, X: ref(s), Y: i32(1), Type: ir.U32, Pos: at}),
			Body: []ir.Stmt{
				&ir.If{Cond: bin(ir.Lt, ref(t), ref(s)), Then: []ir.Stmt{
					assign(index(ref(sh), ref(t)), bin(ir.Add, index(ref(sh), ref(t)), index(ref(sh), bin(ir.Add, ref(t), ref(s))))),
				}, Pos: at},
				&ir.Barrier{Pos: at},
			},
			Pos: at,
		},
		&ir.If{Cond: bin(ir.Eq, ref(t), u32(0)), Then: []ir.Stmt{
			assign(index(ref(out), builtin(ir.GroupX, ir.U32)), index(ref(sh), u32(0))),
		}, Pos: at})
	f.Shared = []*ir.Var{sh}
	f.Barriers = true
	return f
}

func TestReductionWithSharedAndBarrier(t *testing.T) {
	src, err := Emit(&ir.Module{Funcs: []*ir.Func{reduce()}})
	require.NoError(t, err)
	for _, want := range []string{
		`extern "C" __global__ void Reduce(float* out, float* in, unsigned n) {` + "\n\t__shared__ float sh[256];\n",
		"float v = 0.0f;",
		"__syncthreads();",
		"for (unsigned s = blockDim.x / 2u; s > 0u; s = anygpu_shr_u32(s, 1ull)) {",
		"sh[t] = sh[t] + sh[t + s];",
		"out[blockIdx.x] = sh[0u];",
	} {
		assert.Contains(t, src, want)
	}
	assert.Equal(t, 1, strings.Count(src, "__shared__"), "shared arrays are declared once, at kernel scope")
	clangCheck(t, src)
}

// histogram is
//
//	func Hist(hist, data []uint32, n uint32) {
//		for i := kernel.GlobalX(); i < n; i += kernel.GroupSizeX() * kernel.GridX() {
//			kernel.AtomicAdd(&hist[data[i]%16], 1)
//		}
//	}
func histogram() *ir.Func {
	hist, data, n := param("hist", slice(ir.U32), 0), param("data", slice(ir.U32), 1), param("n", ir.U32, 2)
	i := local("i", ir.U32)
	return kernel("Hist", []*ir.Var{hist, data, n}, &ir.For{
		Init: decl(i, builtin(ir.GlobalX, ir.U32)),
		Cond: bin(ir.Lt, ref(i), ref(n)),
		Post: assign(ref(i), bin(ir.Add, ref(i), bin(ir.Mul, builtin(ir.GroupSizeX, ir.U32), builtin(ir.GridX, ir.U32)))),
		Body: []ir.Stmt{&ir.ExprStmt{X: &ir.Atomic{Op: ir.AtomicAdd,
			Place: index(ref(hist), bin(ir.Rem, index(ref(data), ref(i)), u32(16))), Args: []ir.Expr{u32(1)}, Pos: at}, Pos: at}},
		Pos: at,
	})
}

func TestAtomicHistogram(t *testing.T) {
	src, err := Emit(&ir.Module{Funcs: []*ir.Func{histogram()}})
	require.NoError(t, err)
	assert.Contains(t, src, "atomicAdd(&hist[data[i] % 16u], 1u);")
	clangCheck(t, src)

	const n = 1000
	data := make([]uint64, n)
	want := make([]uint64, 16)
	for i := range data {
		data[i] = uint64(i*i*7 + 3)
		want[uint32(data[i])%16]++
	}
	res := runOnHost(t, src, "Hist", 3, 32, []hostArg{{elem: ir.U32, bits: make([]uint64, 16)}, {elem: ir.U32, bits: data}, {scalar: "1000u"}})
	assert.Equal(t, want, res[0], "a grid-stride loop of 96 threads counts every element once")
}

func TestAtomicOperations(t *testing.T) {
	p, sh := param("p", slice(ir.I32), 0), shared("counts", &ir.Array{Elem: &ir.Array{Elem: ir.U32, Len: 4}, Len: 2})
	fp := param("f", slice(ir.F32), 1)
	old := local("old", ir.I32)
	atom := func(op ir.AtomicOp, place *ir.Index, args ...ir.Expr) *ir.Atomic {
		return &ir.Atomic{Op: op, Place: place, Args: args, Pos: at}
	}
	f := kernel("Atomics", []*ir.Var{p, fp},
		decl(old, atom(ir.AtomicMin, index(ref(p), u32(0)), i32(-5))),
		&ir.ExprStmt{X: atom(ir.AtomicMax, index(ref(p), u32(1)), ref(old)), Pos: at},
		&ir.ExprStmt{X: atom(ir.AtomicAnd, index(index(ref(sh), u32(1)), u32(2)), u32(6)), Pos: at},
		&ir.ExprStmt{X: atom(ir.AtomicOr, index(ref(p), u32(2)), i32(1)), Pos: at},
		&ir.ExprStmt{X: atom(ir.AtomicXor, index(ref(p), u32(3)), i32(3)), Pos: at},
		&ir.ExprStmt{X: atom(ir.AtomicExchange, index(ref(p), u32(4)), i32(9)), Pos: at},
		&ir.ExprStmt{X: atom(ir.AtomicCompareExchange, index(ref(p), u32(5)), i32(0), i32(1)), Pos: at},
		&ir.ExprStmt{X: atom(ir.AtomicAdd, index(ref(fp), u32(0)), f32(0.5)), Pos: at},
	)
	f.Shared = []*ir.Var{sh}
	src, err := Emit(&ir.Module{Funcs: []*ir.Func{f}})
	require.NoError(t, err)
	for _, want := range []string{
		"int old = atomicMin(&p[0u], -5);", "atomicMax(&p[1u], old);", "atomicAnd(&counts[1u][2u], 6u);",
		"atomicOr(&p[2u], 1);", "atomicXor(&p[3u], 3);", "atomicExch(&p[4u], 9);", "atomicCAS(&p[5u], 0, 1);",
		"atomicAdd(&f[0u], 0.5f);", "__shared__ unsigned counts[2][4];",
	} {
		assert.Contains(t, src, want)
	}
	clangCheck(t, src)
}

// add4 is
//
//	func Add4(y, x []float32, n4 uint32) {
//		i := kernel.GlobalX()
//		if i < n4 {
//			c := kernel.Load4(x, i) + kernel.Load4(y, i) // lane-wise in the IR
//			c.W = c.W * 2
//			kernel.Store4(y, i, kernel.Float4{c.X, c.Y, c.Z, -c.W})
//		}
//	}
func add4() *ir.Func {
	y, x, n4 := param("y", slice(ir.F32), 0), param("x", slice(ir.F32), 1), param("n4", ir.U32, 2)
	f4 := &ir.Vec{Elem: ir.F32, N: 4}
	i, c := local("i", ir.U32), local("c", f4)
	lane := func(v *ir.Var, n int) *ir.Lane { return &ir.Lane{X: ref(v), N: n, Pos: at} }
	return kernel("Add4", []*ir.Var{y, x, n4},
		decl(i, builtin(ir.GlobalX, ir.U32)),
		&ir.If{Cond: bin(ir.Lt, ref(i), ref(n4)), Then: []ir.Stmt{
			decl(c, bin(ir.Add, builtin(ir.Load4, f4, ref(x), ref(i)), builtin(ir.Load4, f4, ref(y), ref(i)))),
			assign(lane(c, 3), bin(ir.Mul, lane(c, 3), f32(2))),
			&ir.Store4{Buf: ref(y), Index: ref(i), Value: &ir.MakeVec{Type: f4,
				Elems: []ir.Expr{lane(c, 0), lane(c, 1), lane(c, 2), un(ir.Neg, lane(c, 3))}, Pos: at}, Pos: at},
		}, Pos: at})
}

func TestFloat4(t *testing.T) {
	src, err := Emit(&ir.Module{Funcs: []*ir.Func{add4()}})
	require.NoError(t, err)
	for _, want := range []string{
		"float4 c = anygpu_add_f4(reinterpret_cast<const float4*>(x)[i], reinterpret_cast<const float4*>(y)[i]);",
		"c.w = c.w * 2.0f;",
		"reinterpret_cast<float4*>(y)[i] = make_float4(c.x, c.y, c.z, -c.w);",
	} {
		assert.Contains(t, src, want)
	}
	clangCheck(t, src)

	const n = 12
	xs, ys := make([]uint64, n), make([]uint64, n)
	for i := range n {
		xs[i], ys[i] = uint64(math.Float32bits(float32(i))), uint64(math.Float32bits(float32(10*i)))
	}
	res := runOnHost(t, src, "Add4", 1, 4, []hostArg{{elem: ir.F32, bits: ys}, {elem: ir.F32, bits: xs}, {scalar: "3u"}})
	for i := range n {
		want := float32(11 * i)
		if i%4 == 3 {
			want *= -2
		}
		assert.Equal(t, want, math.Float32frombits(uint32(res[0][i])), "y[%d]", i)
	}
}

// arrays is
//
//	func Arrays(out []int32) {
//		var m [2][3]int32
//		for i := int32(0); i < 3; i++ {
//			m[1][i] = i + 1
//		}
//		c := m
//		m[0] = m[1]
//		m[1][0] = 7
//		for j := int32(0); ; j++ {
//			if j >= 3 { break }
//			if j == 1 { continue }
//			out[j] = m[0][j]*10 + c[1][j] + c[0][j]
//		}
//		out[3] = int32(len(m))
//	}
func arrays() *ir.Func {
	out := param("out", slice(ir.I32), 0)
	row := &ir.Array{Elem: ir.I32, Len: 3}
	mt := &ir.Array{Elem: row, Len: 2}
	m, c, i, j := local("m", mt), local("c", mt), local("i", ir.I32), local("j", ir.I32)
	return kernel("Arrays", []*ir.Var{out},
		decl(m, nil),
		&ir.For{Init: decl(i, i32(0)), Cond: bin(ir.Lt, ref(i), i32(3)), Post: assign(ref(i), bin(ir.Add, ref(i), i32(1))),
			Body: []ir.Stmt{assign(index(index(ref(m), i32(1)), ref(i)), bin(ir.Add, ref(i), i32(1)))}, Pos: at},
		decl(c, ref(m)),
		assign(index(ref(m), i32(0)), index(ref(m), i32(1))),
		assign(index(index(ref(m), i32(1)), i32(0)), i32(7)),
		&ir.For{Init: decl(j, i32(0)), Post: assign(ref(j), bin(ir.Add, ref(j), i32(1))), Body: []ir.Stmt{
			&ir.If{Cond: bin(ir.Ge, ref(j), i32(3)), Then: []ir.Stmt{&ir.Break{Pos: at}}, Pos: at},
			&ir.If{Cond: bin(ir.Eq, ref(j), i32(1)), Then: []ir.Stmt{&ir.Continue{Pos: at}}, Pos: at},
			assign(index(ref(out), ref(j)), bin(ir.Add, bin(ir.Add, bin(ir.Mul, index(index(ref(m), i32(0)), ref(j)), i32(10)),
				index(index(ref(c), i32(1)), ref(j))), index(index(ref(c), i32(0)), ref(j)))),
		}, Pos: at},
		assign(index(ref(out), i32(3)), builtin(ir.Len, ir.I32, ref(m))))
}

func TestArraysAreValues(t *testing.T) {
	src, err := Emit(&ir.Module{Funcs: []*ir.Func{arrays()}})
	require.NoError(t, err)
	for _, want := range []string{"int m[2][3] = {};", "int c[2][3];", "for (int j = 0; ; j = (int)((unsigned)j + 1u)) {",
		"break;", "continue;", "out[3] = 2;"} {
		assert.Contains(t, src, want)
	}
	clangCheck(t, src)
	res := runOnHost(t, src, "Arrays", 1, 1, []hostArg{{elem: ir.I32, bits: make([]uint64, 4)}})
	// m[0] = {1,2,3} (the old m[1]), c = {{0,0,0},{1,2,3}}; out[1] is skipped.
	assert.Equal(t, []uint64{10 + 1, 0, 30 + 3, 2}, res[0])
}

// A helper returning a value, else-if chains and early returns.
func TestHelpersAndControlFlow(t *testing.T) {
	x := param("x", ir.I32, 0)
	sign := &ir.Func{Name: "sign", Params: []*ir.Var{x}, Result: ir.I32, Pos: at, Body: []ir.Stmt{
		&ir.If{Cond: bin(ir.Lt, ref(x), i32(0)), Then: []ir.Stmt{&ir.Return{Value: i32(-1), Pos: at}},
			Else: []ir.Stmt{&ir.If{Cond: bin(ir.Gt, ref(x), i32(0)), Then: []ir.Stmt{&ir.Return{Value: i32(1), Pos: at}}, Pos: at}}, Pos: at},
		&ir.Return{Value: i32(0), Pos: at},
	}}
	out, in := param("out", slice(ir.I32), 0), param("in", slice(ir.I32), 1)
	i := local("i", ir.U32)
	k := kernel("Signs", []*ir.Var{out, in},
		decl(i, builtin(ir.ThreadIndex, ir.U32)),
		&ir.If{Cond: bin(ir.Ge, ref(i), u32(5)), Then: []ir.Stmt{&ir.Return{Pos: at}}, Pos: at},
		&ir.Block{Body: []ir.Stmt{assign(index(ref(out), ref(i)), &ir.Call{Func: sign, Args: []ir.Expr{index(ref(in), ref(i))}, Pos: at})}, Pos: at})
	src, err := Emit(&ir.Module{Funcs: []*ir.Func{sign, k}})
	require.NoError(t, err)
	assert.Contains(t, src, "__device__ int sign(int x) {")
	assert.Contains(t, src, "} else if (x > 0) {")
	assert.Contains(t, src, "unsigned i = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);")
	assert.Less(t, strings.Index(src, "__device__ int sign"), strings.Index(src, "void Signs"), "helpers come before their callers")
	clangCheck(t, src)
	res := runOnHost(t, src, "Signs", 1, 8, []hostArg{
		{elem: ir.I32, bits: []uint64{9, 9, 9, 9, 9, 9, 9, 9}},
		{elem: ir.I32, bits: []uint64{5, 0, uint64(uint32(0x80000000)), 1, uint64(math.MaxInt32), 4, 4, 4}}})
	assert.Equal(t, []uint64{1, 0, uint64(math.MaxUint32), 1, 1, 9, 9, 9}, res[0])
}
