package wgsl

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu/kernel/internal/ir"
)

// TestVec4Buffers: a buffer of 4-byte elements moved by Load4 or Store4 is
// declared array<vec4<T>>, read and written one vector at a time and one
// element as a vector's lane; an atomic or an index that must be evaluated
// once keeps it an array of elements, moved 4 at a time by helpers.
func TestVec4Buffers(t *testing.T) {
	f4 := &ir.Vec{Elem: ir.F32, N: 4}
	for _, tc := range []struct {
		name string
		// body builds the kernel's statements on buffer y, the index i (a
		// uint32 local) and k (an int32 local).
		body   func(y, i, k *ir.Var) []ir.Stmt
		want   []string
		absent []string
	}{
		{"4-wide only", func(y, i, _ *ir.Var) []ir.Stmt {
			return []ir.Stmt{&ir.Store4{Buf: ref(y), Index: ref(i), Value: call(ir.Load4, f4, ref(y), bin(ir.Add, ref(i), u32(1))), Pos: pos}}
		}, []string{"var<storage, read_write> K_y: array<vec4<f32>>;", "K_y[i] = K_y[(i + 1u)];"}, []string{"_load4", "_store4"}},
		{"4-wide and one element", func(y, i, _ *ir.Var) []ir.Stmt {
			return []ir.Stmt{
				&ir.Store4{Buf: ref(y), Index: ref(i), Value: call(ir.Load4, f4, ref(y), ref(i)), Pos: pos},
				assign(idx(ref(y), bin(ir.Add, ref(i), u32(3))), idx(ref(y), ref(i))),
			}
		}, []string{"array<vec4<f32>>;", "K_y[(i + 3u) >> 2u][(i + 3u) & 3u] = K_y[i >> 2u][i & 3u];"}, []string{"_load4"}},
		{"constant and int32 indices", func(y, i, k *ir.Var) []ir.Stmt {
			return []ir.Stmt{
				&ir.Store4{Buf: ref(y), Index: ref(i), Value: call(ir.Load4, f4, ref(y), ref(i)), Pos: pos},
				assign(idx(ref(y), u32(7)), idx(ref(y), i32(9))),
				assign(idx(ref(y), ref(k)), f32(1)),
			}
		}, []string{"K_y[1u][3u] = K_y[2u][1u];", "K_y[u32(k) >> 2u][u32(k) & 3u] = 1.0f;"}, nil},
		{"an index with a call", func(y, i, _ *ir.Var) []ir.Stmt {
			return []ir.Stmt{
				&ir.Store4{Buf: ref(y), Index: ref(i), Value: call(ir.Load4, f4, ref(y), ref(i)), Pos: pos},
				assign(idx(ref(y), &ir.Call{Func: identityHelper, Args: []ir.Expr{ref(i)}, Pos: pos}), f32(2)),
			}
		}, []string{"var<storage, read_write> K_y: array<f32>;", "K_y_store4(i, K_y_load4(i));", "K_y[ident(i)] = 2.0f;"}, []string{"vec4<f32>>"}},
		{"int32 elements", nil, []string{"var<storage, read_write> K_z: array<vec4<i32>>;", "K_z[i >> 2u][i & 3u] = 5i;"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			y, i, k := param("y", f32s, 0), local("i", ir.U32), local("k", ir.I32)
			params := []*ir.Var{y}
			body := []ir.Stmt{decl(i, id(ir.GlobalX)), decl(k, conv(ir.I32, ref(i)))}
			if tc.body != nil {
				body = append(body, tc.body(y, i, k)...)
			} else {
				// An int32 buffer the IR moves 4 at a time (the front end
				// takes Load4 of float32 buffers only; the emitter any 4-byte
				// element).
				z := param("z", i32s, 1)
				params = append(params, z)
				i4 := &ir.Vec{Elem: ir.I32, N: 4}
				body = append(body,
					&ir.Store4{Buf: ref(z), Index: ref(i), Value: call(ir.Load4, i4, ref(z), ref(i)), Pos: pos},
					assign(idx(ref(z), ref(i)), i32(5)),
					assign(idx(ref(y), ref(i)), f32(0)))
			}
			m := &ir.Module{Funcs: []*ir.Func{identityHelper, kernelFunc("K", params, nil, body...)}}
			out, err := Emit(m)
			require.NoError(t, err)
			src := out.Modules["K"]
			for _, w := range tc.want {
				assert.Contains(t, src, w)
			}
			for _, a := range tc.absent {
				assert.NotContains(t, src, a)
			}
			nagaCheck(t, "K", src, false)
			nagaCheck(t, "K native", out.Native["K"], false)
		})
	}
}

// identityHelper is func ident(x uint32) uint32 { return x }.
var identityHelper = func() *ir.Func {
	x := param("x", ir.U32, 0)
	return &ir.Func{Name: "ident", Params: []*ir.Var{x}, Result: ir.U32, Pos: pos, Body: []ir.Stmt{&ir.Return{Value: ref(x), Pos: pos}}}
}()

// TestDivisionByConstant: by a constant other than 0 (and -1, signed), / and
// % need none of the helpers that keep Go's x/0, x%0 and MinInt32/-1; a
// signed % is written from the division (GLSL leaves % of negative operands
// undefined), unless its dividend must be evaluated once.
func TestDivisionByConstant(t *testing.T) {
	x, u := local("x", ir.I32), local("u", ir.U32)
	viaHelper := &ir.Call{Func: identityHelper, Args: []ir.Expr{ref(u)}, Pos: pos}
	for _, tc := range []struct {
		name string
		e    ir.Expr
		want string
	}{
		{"int32 / 7", bin(ir.Div, ref(x), i32(7)), "(x / 7i)"},
		{"int32 % 7", bin(ir.Rem, ref(x), i32(7)), "(x - (x / 7i) * 7i)"},
		{"int32 % -7", bin(ir.Rem, ref(x), i32(-7)), "(x - (x / (-7i)) * (-7i))"},
		{"int32 / -1", bin(ir.Div, ref(x), i32(-1)), "ag_div_i32(x, (-1i))"},
		{"int32 % -1", bin(ir.Rem, ref(x), i32(-1)), "ag_rem_i32(x, (-1i))"},
		{"int32 / 0", bin(ir.Div, ref(x), i32(0)), "ag_div_i32(x, 0i)"},
		{"int32 % a call's result", bin(ir.Rem, conv(ir.I32, viaHelper), i32(7)), "ag_rem_i32(i32(ident(u)), 7i)"},
		{"int32 / a variable", bin(ir.Div, ref(x), ref(x)), "ag_div_i32(x, x)"},
		{"uint32 / 7", bin(ir.Div, ref(u), u32(7)), "(u / 7u)"},
		{"uint32 % 7", bin(ir.Rem, ref(u), u32(7)), "(u % 7u)"},
		{"uint32 % 0", bin(ir.Rem, ref(u), u32(0)), "ag_rem_u32(u, 0u)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := param("out", u32s, 0)
			res := tc.e
			if res.ExprType() == ir.I32 {
				res = conv(ir.U32, res)
			}
			k := kernelFunc("K", []*ir.Var{out}, nil,
				decl(u, id(ir.GlobalX)), decl(x, conv(ir.I32, ref(u))), assign(idx(ref(out), ref(u)), res))
			o, err := Emit(&ir.Module{Funcs: []*ir.Func{identityHelper, k}})
			require.NoError(t, err)
			assert.Contains(t, o.Modules["K"], tc.want)
			nagaCheck(t, "K", o.Modules["K"], false)
		})
	}
}
