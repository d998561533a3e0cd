package wgsl

import (
	"github.com/anygpu/gpu/kernel/internal/ir"
)

// opsResults is how many results opsKernel writes per case.
const opsResults = 22

// tripleHelper is func triple(x int32) int32 { x = x * 3; return x + int32(kernel.ThreadX()) }:
// a helper that assigns its parameter and reads a thread index.
func tripleHelper() *ir.Func {
	x := param("x", ir.I32, 0)
	return &ir.Func{Name: "triple", Params: []*ir.Var{x}, Result: ir.I32, Pos: pos, Body: []ir.Stmt{
		assign(ref(x), bin(ir.Mul, ref(x), i32(3))),
		&ir.Return{Value: bin(ir.Add, ref(x), conv(ir.I32, id(ir.ThreadX))), Pos: pos},
	}}
}

// opsKernel writes, for case i < n, the results of the operators whose Go
// semantics WGSL does not share, as bits, at out[i*opsResults+j].
func opsKernel(triple *ir.Func) *ir.Func {
	out, a, b, f, g, n := param("out", u32s, 0), param("a", i32s, 1), param("b", i32s, 2), param("f", f32s, 3), param("g", f32s, 4), param("n", ir.U32, 5)
	i, x, y, p, q, s, o := local("i", ir.U32), local("x", ir.I32), local("y", ir.I32), local("p", ir.F32), local("q", ir.F32), local("s", ir.U32), local("o", ir.U32)
	// Locals named as WGSL keywords and built-ins: renamed.
	loop, sel := local("loop", ir.I32), local("select", &ir.Array{Elem: ir.I32, Len: 4})
	ux := conv(ir.U32, ref(x))
	bits := func(e ir.Expr) ir.Expr { return call(ir.Float32Bits, ir.U32, e) }
	res := []ir.Expr{
		conv(ir.U32, bin(ir.Div, ref(x), ref(y))),
		conv(ir.U32, bin(ir.Rem, ref(x), ref(y))),
		bin(ir.Div, ux, conv(ir.U32, ref(y))),
		bin(ir.Rem, ux, conv(ir.U32, ref(y))),
		conv(ir.U32, bin(ir.Shl, ref(x), ref(s))),
		conv(ir.U32, bin(ir.Shr, ref(x), ref(s))),
		bin(ir.Shl, ux, ref(s)),
		bin(ir.Shr, ux, ref(s)),
		conv(ir.U32, conv(ir.I32, ref(p))),
		conv(ir.U32, ref(p)),
		bits(call(ir.Min, ir.F32, ref(p), ref(q))),
		bits(call(ir.Max, ir.F32, ref(p), ref(q))),
		conv(ir.U32, &ir.Unary{Op: ir.Neg, X: ref(x), Pos: pos}),
		conv(ir.U32, bin(ir.AndNot, ref(x), ref(y))),
		bits(call(ir.Clamp, ir.F32, ref(p), ref(q), f32(1))),
		&ir.Unary{Op: ir.Neg, X: ux, Pos: pos},
		bin(ir.Xor, conv(ir.U32, bin(ir.Shl, ref(x), u32(3))), conv(ir.U32, bin(ir.Shr, ref(x), i32(40)))),
		conv(ir.U32, &ir.Call{Func: triple, Args: []ir.Expr{ref(x)}, Pos: pos}),
		bin(ir.Xor, bits(bin(ir.Add, ref(p), f32(0.1))), bits(bin(ir.Mul, ref(q), f32(1e-20)))),
		bin(ir.Xor, bits(f32(float32Inf(-1))), bits(bin(ir.Sub, f32(negZero()), ref(p)))),
		bin(ir.Xor, conv(ir.U32, call(ir.Abs, ir.I32, ref(x))), bits(call(ir.Abs, ir.F32, ref(p)))),
		conv(ir.U32, bin(ir.Add, ref(loop), bin(ir.Add, idx(ref(sel), i32(1)), call(ir.Len, ir.I32, ref(sel))))),
	}
	body := []ir.Stmt{
		decl(x, idx(ref(a), ref(i))), decl(y, idx(ref(b), ref(i))), decl(p, idx(ref(f), ref(i))), decl(q, idx(ref(g), ref(i))),
		decl(s, bin(ir.And, conv(ir.U32, ref(y)), u32(63))),
		decl(o, bin(ir.Mul, ref(i), u32(opsResults))),
		decl(sel, nil),
		assign(idx(ref(sel), bin(ir.And, ref(x), i32(3))), i32(7)),
		decl(loop, idx(ref(sel), i32(1))),
	}
	for j, r := range res {
		body = append(body, assign(idx(ref(out), bin(ir.Add, ref(o), u32(uint32(j)))), r))
	}
	return kernelFunc("Ops", []*ir.Var{out, a, b, f, g, n}, nil,
		decl(i, id(ir.GlobalX)),
		ifs(bin(ir.Lt, ref(i), ref(n)), body),
	)
}

// vec4Kernel: dst and src are moved 4 floats at a time only, mix also one
// at a time (a vector's lane); all three are declared vec4 arrays.
func vec4Kernel() *ir.Func {
	dst, src, mix, n4 := param("dst", f32s, 0), param("src", f32s, 1), param("mix", f32s, 2), param("n4", ir.U32, 3)
	f4 := &ir.Vec{Elem: ir.F32, N: 4}
	i, v, w := local("i", ir.U32), local("v", f4), local("w", f4)
	lane := func(x ir.Expr, k int) ir.Expr { return &ir.Lane{X: x, N: k, Pos: pos} }
	four := bin(ir.Mul, u32(4), ref(i))
	return kernelFunc("Vec4", []*ir.Var{dst, src, mix, n4}, nil,
		decl(i, id(ir.GlobalX)),
		ifs(bin(ir.Lt, ref(i), ref(n4)), []ir.Stmt{
			decl(v, call(ir.Load4, f4, ref(src), ref(i))),
			decl(w, &ir.MakeVec{Type: f4, Elems: []ir.Expr{lane(ref(v), 3), lane(ref(v), 2), lane(ref(v), 1), lane(ref(v), 0)}, Pos: pos}),
			&ir.Store4{Buf: ref(dst), Index: ref(i), Value: bin(ir.Add, ref(v), ref(w)), Pos: pos},
			assign(lane(ref(w), 1), bin(ir.Mul, lane(ref(w), 1), f32(2))),
			&ir.Store4{Buf: ref(mix), Index: conv(ir.I32, ref(i)), Value: ref(w), Pos: pos},
			assign(idx(ref(mix), four), bin(ir.Add, idx(ref(mix), four), lane(call(ir.Load4, f4, ref(mix), ref(i)), 3))),
		}),
	)
}

// atomicsKernel: each thread increments cell[0] by compare-exchange and
// records the value it replaced in seen[GlobalX]; a shared counter,
// reset by an atomic store and read by an atomic load, counts the group's
// threads into count[GroupX].
func atomicsKernel() *ir.Func {
	cell, seen, count := param("cell", i32s, 0), param("seen", i32s, 1), param("count", u32s, 2)
	sh := shared("sh", &ir.Array{Elem: &ir.Array{Elem: ir.U32, Len: 2}, Len: 1})
	old := local("old", ir.I32)
	shc := idx(idx(ref(sh), u32(0)), u32(1))
	return kernelFunc("Atomics", []*ir.Var{cell, seen, count}, []*ir.Var{sh},
		ifs(bin(ir.Eq, id(ir.ThreadX), u32(0)), []ir.Stmt{assign(shc, u32(0))}),
		&ir.Barrier{Pos: pos},
		&ir.ExprStmt{X: &ir.Atomic{Op: ir.AtomicAdd, Place: shc, Args: []ir.Expr{u32(1)}, Pos: pos}, Pos: pos},
		&ir.For{Body: []ir.Stmt{
			decl(old, idx(ref(cell), u32(0))),
			ifs(bin(ir.Eq, &ir.Atomic{Op: ir.AtomicCompareExchange, Place: idx(ref(cell), u32(0)), Args: []ir.Expr{ref(old), bin(ir.Add, ref(old), i32(1))}, Pos: pos}, ref(old)), []ir.Stmt{
				assign(idx(ref(seen), id(ir.GlobalX)), ref(old)),
				&ir.Break{Pos: pos},
			}),
		}, Pos: pos},
		&ir.Barrier{Pos: pos},
		ifs(bin(ir.Eq, id(ir.ThreadX), u32(0)), []ir.Stmt{assign(idx(ref(count), id(ir.GroupX)), shc)}),
	)
}

// wideKernel uses float64: unsupported on WebGPU.
func wideKernel() *ir.Func {
	out := param("out", &ir.Slice{Elem: ir.F64}, 0)
	return kernelFunc("Wide", []*ir.Var{out}, nil, assign(idx(ref(out), u32(0)), &ir.Const{Type: ir.F64, Float: 1, Pos: pos}))
}

// floatAtomicKernel adds floats atomically: unsupported on WebGPU.
func floatAtomicKernel() *ir.Func {
	out := param("out", f32s, 0)
	return kernelFunc("FloatAtomic", []*ir.Var{out}, nil,
		&ir.ExprStmt{X: &ir.Atomic{Op: ir.AtomicAdd, Place: idx(ref(out), u32(0)), Args: []ir.Expr{f32(1)}, Pos: pos}, Pos: pos})
}

// semanticsModule is the kernels of this file, with two WebGPU cannot run.
func semanticsModule() *ir.Module {
	triple := tripleHelper()
	return &ir.Module{Funcs: []*ir.Func{triple, opsKernel(triple), vec4Kernel(), atomicsKernel(), wideKernel(), floatAtomicKernel()}}
}
