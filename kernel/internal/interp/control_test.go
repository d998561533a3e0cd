package interp

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/kernel/internal/ir"
)

// TestNestedLoopsLabeledBreak runs, per thread i,
//
//	count := 0
//	outer:
//	for a := 0; a < 10; a++ {
//		for b := 0; b < 10; b++ {
//			if b > a { continue outer }
//			if a*b == i { break outer }
//			count++
//		}
//	}
//	out[i] = count
//
// with the labelled break and continue lowered to a Bool local, as the front
// end does.
func TestNestedLoopsLabeledBreak(t *testing.T) {
	out := param("out", &ir.Slice{Elem: ir.I32}, 0)
	i, count, a, b := local("i", ir.I32), local("count", ir.I32), local("a", ir.I32), local("b", ir.I32)
	brk, cont := local("brk", ir.Bool), local("cont", ir.Bool)
	inner := loop(b, cI32(0), cI32(10),
		&ir.If{Cond: bin(ir.Gt, ref(b), ref(a)), Then: []ir.Stmt{set(ref(cont), cBool(true)), &ir.Break{}}},
		&ir.If{Cond: bin(ir.Eq, bin(ir.Mul, ref(a), ref(b)), ref(i)), Then: []ir.Stmt{set(ref(brk), cBool(true)), &ir.Break{}}},
		addTo(ref(count), cI32(1)),
	)
	f := kernelFunc("Loops", []*ir.Var{out},
		decl(i, &ir.Convert{To: ir.I32, X: idb(ir.GlobalX)}),
		decl(count, nil),
		decl(brk, nil),
		loop(a, cI32(0), cI32(10),
			decl(cont, cBool(false)),
			inner,
			&ir.If{Cond: ref(brk), Then: []ir.Stmt{&ir.Break{}}},
			&ir.If{Cond: ref(cont), Then: []ir.Stmt{&ir.Continue{}}},
		),
		set(at(ref(out), ref(i)), ref(count)),
	)
	k := compileOne(t, f)
	const n = 40
	got := make([]int32, n)
	require.NoError(t, launch(k, backend.Dim3{X: n / 8}, backend.Dim3{X: 8}, buf(got)))
	for i := range int32(n) {
		count := int32(0)
	outer:
		for a := int32(0); a < 10; a++ {
			for b := int32(0); b < 10; b++ {
				if b > a {
					continue outer
				}
				if a*b == i {
					break outer
				}
				count++
			}
		}
		assert.Equal(t, count, got[i], "thread %d", i)
	}
}

// TestLocalArrayHelperAndFloat4 runs, per thread i < n,
//
//	var acc [4]float32
//	for j := 0; j < 4; j++ { acc[j] = square(x[4i+j]) }
//	v := kernel.Load4(x, i)
//	v.Y = acc[1] + v.Y
//	kernel.Store4(y, i, kernel.Float4{acc[0], v.Y, acc[i%4], float32(len(acc))})
//
// with square a helper with an early return.
func TestLocalArrayHelperAndFloat4(t *testing.T) {
	f32s := &ir.Slice{Elem: ir.F32}
	vec := &ir.Vec{Elem: ir.F32, N: 4}
	arr := &ir.Array{Elem: ir.F32, Len: 4}
	x, y, n := param("x", f32s, 0), param("y", f32s, 1), param("n", ir.U32, 2)
	i, j, acc, v := local("i", ir.U32), local("j", ir.U32), local("acc", arr), local("v", vec)
	p := param("p", ir.F32, 0)
	square := &ir.Func{Name: "square", Params: []*ir.Var{p}, Result: ir.F32, Body: []ir.Stmt{
		&ir.If{Cond: bin(ir.Lt, ref(p), cF32(0)), Then: []ir.Stmt{&ir.Return{Value: cF32(-1)}}},
		&ir.Return{Value: bin(ir.Mul, ref(p), ref(p))},
	}}
	lane := func(e ir.Expr, n int) *ir.Lane { return &ir.Lane{X: e, N: n} }
	f := kernelFunc("Vec", []*ir.Var{x, y, n},
		decl(i, idb(ir.GlobalX)),
		&ir.If{Cond: bin(ir.Ge, ref(i), ref(n)), Then: []ir.Stmt{&ir.Return{}}},
		decl(acc, nil),
		loop(j, cU32(0), cU32(4),
			set(at(ref(acc), ref(j)), &ir.Call{Func: square, Args: []ir.Expr{
				at(ref(x), bin(ir.Add, bin(ir.Mul, cU32(4), ref(i)), ref(j)))}})),
		decl(v, call(ir.Load4, vec, ref(x), ref(i))),
		set(lane(ref(v), 1), bin(ir.Add, at(ref(acc), cU32(1)), lane(ref(v), 1))),
		&ir.Store4{Buf: ref(y), Index: ref(i), Value: &ir.MakeVec{Type: vec, Elems: []ir.Expr{
			at(ref(acc), cU32(0)), lane(ref(v), 1), at(ref(acc), bin(ir.Rem, ref(i), cU32(4))),
			&ir.Convert{To: ir.F32, X: call(ir.Len, ir.I32, ref(acc))}}}},
	)
	k := compileOne(t, f, square)
	const n4 = 6
	xs, ys := make([]float32, 4*n4+4), make([]float32, 4*n4+4)
	for k := range xs {
		xs[k] = float32(k%7) - 2.5
	}
	require.NoError(t, launch(k, backend.Dim3{X: 2}, backend.Dim3{X: 4}, buf(xs), buf(ys), argU32(n4)))
	sq := func(p float32) float32 {
		if p < 0 {
			return -1
		}
		return p * p
	}
	want := make([]float32, len(ys))
	for i := range n4 {
		var acc [4]float32
		for j := range 4 {
			acc[j] = sq(xs[4*i+j])
		}
		vy := acc[1] + xs[4*i+1]
		copy(want[4*i:], []float32{acc[0], vy, acc[i%4], 4})
	}
	assert.Equal(t, want, ys)
}

// TestParamAssignedPerThread checks that a thread assigning a scalar
// parameter does not change it for the next thread of the group:
//
//	n = n + kernel.GlobalX()
//	out[kernel.GlobalX()] = n
func TestParamAssignedPerThread(t *testing.T) {
	out, n := param("out", &ir.Slice{Elem: ir.U32}, 0), param("n", ir.U32, 1)
	f := kernelFunc("P", []*ir.Var{out, n},
		set(ref(n), bin(ir.Add, ref(n), idb(ir.GlobalX))),
		set(at(ref(out), idb(ir.GlobalX)), ref(n)))
	k := compileOne(t, f)
	got := make([]uint32, 8)
	require.NoError(t, launch(k, backend.Dim3{X: 2}, backend.Dim3{X: 4}, buf(got), argU32(10)))
	assert.Equal(t, []uint32{10, 11, 12, 13, 14, 15, 16, 17}, got)
}

// TestThreadIDs writes every id built-in of a 3-D launch.
func TestThreadIDs(t *testing.T) {
	out := param("out", &ir.Slice{Elem: ir.U32}, 0)
	ids := []ir.Builtin{ir.ThreadX, ir.ThreadY, ir.ThreadZ, ir.ThreadIndex, ir.GroupX, ir.GroupY, ir.GroupZ,
		ir.GroupSizeX, ir.GroupSizeY, ir.GroupSizeZ, ir.GridX, ir.GridY, ir.GridZ, ir.GlobalX, ir.GlobalY, ir.GlobalZ}
	lin := local("lin", ir.U32)
	// lin = GlobalX + 4*(GlobalY + 6*GlobalZ) over a grid of (2,3,2) groups of (2,2,1).
	body := []ir.Stmt{decl(lin, bin(ir.Add, idb(ir.GlobalX), bin(ir.Mul, cU32(4),
		bin(ir.Add, idb(ir.GlobalY), bin(ir.Mul, cU32(6), idb(ir.GlobalZ))))))}
	for j, b := range ids {
		body = append(body, set(at(ref(out), bin(ir.Add, bin(ir.Mul, ref(lin), cU32(uint32(len(ids)))), cU32(uint32(j)))), idb(b)))
	}
	k := compileOne(t, kernelFunc("IDs", []*ir.Var{out}, body...))
	grid, block := backend.Dim3{X: 2, Y: 3, Z: 2}, backend.Dim3{X: 2, Y: 2, Z: 1}
	got := make([]uint32, 4*6*2*len(ids))
	require.NoError(t, launch(k, grid, block, buf(got)))
	for gz := range 2 {
		for gy := range 3 {
			for gx := range 2 {
				for ty := range 2 {
					for tx := range 2 {
						X, Y, Z := gx*2+tx, gy*2+ty, gz
						want := []uint32{uint32(tx), uint32(ty), 0, uint32(tx + 2*ty), uint32(gx), uint32(gy), uint32(gz),
							2, 2, 1, 2, 3, 2, uint32(X), uint32(Y), uint32(Z)}
						l := X + 4*(Y+6*Z)
						assert.Equal(t, want, got[l*len(ids):(l+1)*len(ids)], "thread (%d,%d,%d)", X, Y, Z)
					}
				}
			}
		}
	}
}

func TestCompileErrors(t *testing.T) {
	h := &ir.Slice{Elem: ir.F16}
	tests := []struct {
		name string
		f    *ir.Func
		want string
	}{
		{"float16 buffer", kernelFunc("H", []*ir.Var{param("h", h, 0)}), "float16"},
		{"undeclared local", kernelFunc("U", nil, &ir.ExprStmt{X: bin(ir.Add, ref(local("u", ir.I32)), cI32(1))}), "u is not"},
		{"vector of int", kernelFunc("V", nil, decl(local("v", &ir.Vec{Elem: ir.I32, N: 4}), nil)), "vector"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Compile(&ir.Module{Funcs: []*ir.Func{tt.f}})
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
	_, err := Compile(nil)
	assert.Error(t, err)
}
