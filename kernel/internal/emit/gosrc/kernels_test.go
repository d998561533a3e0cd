package gosrc

import "github.com/anygpu/gpu/kernel/internal/ir"

// The test kernels, as the front end would translate them. Each comment is
// the Go source; testdata/cpu_test.go.txt runs them on the CPU backend and
// checks them against plain Go.

// saxpy:
//
//	func Saxpy(y, x []float32, n uint32, a float32) {
//		i := kernel.GlobalX()
//		if i < n {
//			y[i] = a*x[i] + y[i]
//		}
//	}
func saxpy() *ir.Func {
	y, x, n, a := buf("y", ir.F32), buf("x", ir.F32), scalar("n", ir.U32), scalar("a", ir.F32)
	i := local("i", ir.U32)
	return &ir.Func{Name: "Saxpy", Kernel: true, Params: params(y, x, n, a), Body: []ir.Stmt{
		decl(i, builtin(ir.GlobalX)),
		ifThen(bin(ir.Lt, ref(i), ref(n)),
			assign(index(ref(y), ref(i)), bin(ir.Add, bin(ir.Mul, ref(a), index(ref(x), ref(i))), index(ref(y), ref(i))))),
	}}
}

// reduceSum, a barrier inside a uniform loop:
//
//	func ReduceSum(out, x []float32, n uint32) {
//		sh := kernel.Shared[[256]float32]()
//		t := kernel.ThreadX()
//		i := kernel.GlobalX()
//		v := float32(0)
//		if i < n {
//			v = x[i]
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
func reduceSum() *ir.Func {
	out, x, n := buf("out", ir.F32), buf("x", ir.F32), scalar("n", ir.U32)
	sh := shared("sh", array(ir.F32, 256))
	t, i, v, s := local("t", ir.U32), local("i", ir.U32), local("v", ir.F32), local("s", ir.U32)
	return &ir.Func{Name: "ReduceSum", Kernel: true, Params: params(out, x, n), Shared: []*ir.Var{sh}, Barriers: true, Body: []ir.Stmt{
		decl(t, builtin(ir.ThreadX)),
		decl(i, builtin(ir.GlobalX)),
		decl(v, f32(0)),
		ifThen(bin(ir.Lt, ref(i), ref(n)), assign(ref(v), index(ref(x), ref(i)))),
		assign(index(ref(sh), ref(t)), ref(v)),
		&ir.Barrier{},
		&ir.For{
			Init: decl(s, bin(ir.Div, builtin(ir.GroupSizeX), u32(2))),
			Cond: bin(ir.Gt, ref(s), u32(0)),
			Post: assign(ref(s), bin(ir.Shr, ref(s), u32(1))),
			Body: []ir.Stmt{
				ifThen(bin(ir.Lt, ref(t), ref(s)),
					assign(index(ref(sh), ref(t)), bin(ir.Add, index(ref(sh), ref(t)), index(ref(sh), bin(ir.Add, ref(t), ref(s)))))),
				&ir.Barrier{},
			},
		},
		ifThen(bin(ir.Eq, ref(t), u32(0)), assign(index(ref(out), builtin(ir.GroupX)), index(ref(sh), u32(0)))),
	}}
}

// reduceMax, a barrier in a loop left by a uniform break, and a per-thread
// value carried across phases:
//
//	func ReduceMax(out []int32, x []int32, n uint32) {
//		sh := kernel.Shared[[64]int32]()
//		t := kernel.ThreadX()
//		best := int32(-2147483648)
//		for j := t; j < n; j += kernel.GroupSizeX() {
//			best = max(best, x[j])
//		}
//		s := kernel.GroupSizeX()
//		for {
//			sh[t] = best
//			kernel.Barrier()
//			s /= 2
//			if s == 0 {
//				break
//			}
//			if t < s {
//				best = max(best, sh[t+s])
//			}
//			kernel.Barrier()
//		}
//		if t == 0 {
//			out[0] = best
//		}
//	}
func reduceMax() *ir.Func {
	out, x, n := buf("out", ir.I32), buf("x", ir.I32), scalar("n", ir.U32)
	sh := shared("sh", array(ir.I32, 64))
	t, best, j, s := local("t", ir.U32), local("best", ir.I32), local("j", ir.U32), local("s", ir.U32)
	return &ir.Func{Name: "ReduceMax", Kernel: true, Params: params(out, x, n), Shared: []*ir.Var{sh}, Barriers: true, Body: []ir.Stmt{
		decl(t, builtin(ir.ThreadX)),
		decl(best, i32(-2147483648)),
		&ir.For{
			Init: decl(j, ref(t)),
			Cond: bin(ir.Lt, ref(j), ref(n)),
			Post: assign(ref(j), bin(ir.Add, ref(j), builtin(ir.GroupSizeX))),
			Body: []ir.Stmt{assign(ref(best), builtin(ir.Max, ref(best), index(ref(x), ref(j))))},
		},
		decl(s, builtin(ir.GroupSizeX)),
		&ir.For{Body: []ir.Stmt{
			assign(index(ref(sh), ref(t)), ref(best)),
			&ir.Barrier{},
			assign(ref(s), bin(ir.Div, ref(s), u32(2))),
			ifThen(bin(ir.Eq, ref(s), u32(0)), &ir.Break{}),
			ifThen(bin(ir.Lt, ref(t), ref(s)), assign(ref(best), builtin(ir.Max, ref(best), index(ref(sh), bin(ir.Add, ref(t), ref(s)))))),
			&ir.Barrier{},
		}},
		ifThen(bin(ir.Eq, ref(t), u32(0)), assign(index(ref(out), u32(0)), ref(best))),
	}}
}

// histogram, atomics and an early return:
//
//	func Histogram(hist, data []uint32, n, bins uint32) {
//		i := kernel.GlobalX()
//		if i >= n {
//			return
//		}
//		kernel.AtomicAdd(&hist[data[i]%bins], 1)
//	}
func histogram() *ir.Func {
	hist, data, n, bins := buf("hist", ir.U32), buf("data", ir.U32), scalar("n", ir.U32), scalar("bins", ir.U32)
	i := local("i", ir.U32)
	return &ir.Func{Name: "Histogram", Kernel: true, Params: params(hist, data, n, bins), Body: []ir.Stmt{
		decl(i, builtin(ir.GlobalX)),
		ifThen(bin(ir.Ge, ref(i), ref(n)), &ir.Return{}),
		&ir.ExprStmt{X: &ir.Atomic{Op: ir.AtomicAdd, Place: index(ref(hist), bin(ir.Rem, index(ref(data), ref(i)), ref(bins))), Args: []ir.Expr{u32(1)}}},
	}}
}

// transpose, a tiled transpose through a padded 2-D shared array:
//
//	func Transpose(out, in []float32, w, h uint32) {
//		tile := kernel.Shared[[16][17]float32]()
//		tx, ty := kernel.ThreadX(), kernel.ThreadY()
//		x, y := kernel.GroupX()*16+tx, kernel.GroupY()*16+ty
//		if x < w && y < h {
//			tile[ty][tx] = in[y*w+x]
//		}
//		kernel.Barrier()
//		x, y = kernel.GroupY()*16+tx, kernel.GroupX()*16+ty
//		if x < h && y < w {
//			out[y*h+x] = tile[tx][ty]
//		}
//	}
func transpose() *ir.Func {
	out, in, w, h := buf("out", ir.F32), buf("in", ir.F32), scalar("w", ir.U32), scalar("h", ir.U32)
	tile := shared("tile", array(array(ir.F32, 17), 16))
	tx, ty, x, y := local("tx", ir.U32), local("ty", ir.U32), local("x", ir.U32), local("y", ir.U32)
	at := func(g ir.Builtin, t *ir.Var) ir.Expr { return bin(ir.Add, bin(ir.Mul, builtin(g), u32(16)), ref(t)) }
	return &ir.Func{Name: "Transpose", Kernel: true, Params: params(out, in, w, h), Shared: []*ir.Var{tile}, Barriers: true, Body: []ir.Stmt{
		decl(tx, builtin(ir.ThreadX)),
		decl(ty, builtin(ir.ThreadY)),
		decl(x, at(ir.GroupX, tx)),
		decl(y, at(ir.GroupY, ty)),
		ifThen(bin(ir.LAnd, bin(ir.Lt, ref(x), ref(w)), bin(ir.Lt, ref(y), ref(h))),
			assign(index(index(ref(tile), ref(ty)), ref(tx)), index(ref(in), bin(ir.Add, bin(ir.Mul, ref(y), ref(w)), ref(x))))),
		&ir.Barrier{},
		assign(ref(x), at(ir.GroupY, tx)),
		assign(ref(y), at(ir.GroupX, ty)),
		ifThen(bin(ir.LAnd, bin(ir.Lt, ref(x), ref(h)), bin(ir.Lt, ref(y), ref(w))),
			assign(index(ref(out), bin(ir.Add, bin(ir.Mul, ref(y), ref(h)), ref(x))), index(index(ref(tile), ref(tx)), ref(ty)))),
	}}
}

// neighbours, an early return before a barrier (the thread takes no part in
// later phases):
//
//	func Neighbours(out, in []float32, n uint32) {
//		sh := kernel.Shared[[128]float32]()
//		t, i := kernel.ThreadX(), kernel.GlobalX()
//		if i >= n {
//			return
//		}
//		sh[t] = in[i]
//		kernel.Barrier()
//		out[i] = sh[t] * 2
//	}
func neighbours() *ir.Func {
	out, in, n := buf("out", ir.F32), buf("in", ir.F32), scalar("n", ir.U32)
	sh := shared("sh", array(ir.F32, 128))
	t, i := local("t", ir.U32), local("i", ir.U32)
	return &ir.Func{Name: "Neighbours", Kernel: true, Params: params(out, in, n), Shared: []*ir.Var{sh}, Barriers: true, Body: []ir.Stmt{
		decl(t, builtin(ir.ThreadX)),
		decl(i, builtin(ir.GlobalX)),
		ifThen(bin(ir.Ge, ref(i), ref(n)), &ir.Return{}),
		assign(index(ref(sh), ref(t)), index(ref(in), ref(i))),
		&ir.Barrier{},
		assign(index(ref(out), ref(i)), bin(ir.Mul, index(ref(sh), ref(t)), f32(2))),
	}}
}

// weight is a helper:
//
//	func weight(a, b int32) int32 { return a*3 - b }
func weight() *ir.Func {
	a, b := local("a", ir.I32), local("b", ir.I32)
	a.Class, b.Class, b.Index = ir.Param, ir.Param, 1
	return &ir.Func{Name: "weight", Params: []*ir.Var{a, b}, Result: ir.I32, Body: []ir.Stmt{
		&ir.Return{Value: bin(ir.Sub, bin(ir.Mul, ref(a), i32(3)), ref(b))},
	}}
}

// nested, nested loops with continue, a helper, a local array, and the
// language's arithmetic (x/0, x%0, saturating conversions, shifts, wrapping):
//
//	func Nested(out []int32, x []float32, n uint32, d int32) {
//		i := kernel.GlobalX()
//		if i >= n {
//			return
//		}
//		var acc [2]int32
//		for j := int32(0); j < 4; j++ {
//			for k := int32(0); k < 3; k++ {
//				if k == 1 {
//					continue
//				}
//				acc[k/2] += weight(j, k)
//			}
//		}
//		v := acc[0]*1000 + acc[1] + int32(x[i])
//		out[4*i] = v/d + v%d
//		out[4*i+1] = int32(x[i]) << (i % 40)
//		out[4*i+2] = int32(uint32(v) >> (i % 40)) + len(acc)
//		out[4*i+3] = v*2147483647 + int32(uint32(d)-1)
//	}
func nested() *ir.Func {
	out, x, n, d := buf("out", ir.I32), buf("x", ir.F32), scalar("n", ir.U32), scalar("d", ir.I32)
	i, acc, j, k, v := local("i", ir.U32), local("acc", array(ir.I32, 2)), local("j", ir.I32), local("k", ir.I32), local("v", ir.I32)
	w := weight()
	slot := func(o uint64) ir.Expr { return index(ref(out), bin(ir.Add, bin(ir.Mul, u32(4), ref(i)), u32(o))) }
	xi := func() ir.Expr { return convert(ir.I32, index(ref(x), ref(i))) }
	return &ir.Func{Name: "Nested", Kernel: true, Params: params(out, x, n, d), Body: []ir.Stmt{
		decl(i, builtin(ir.GlobalX)),
		ifThen(bin(ir.Ge, ref(i), ref(n)), &ir.Return{}),
		decl(acc, nil),
		&ir.For{
			Init: decl(j, i32(0)), Cond: bin(ir.Lt, ref(j), i32(4)), Post: assign(ref(j), bin(ir.Add, ref(j), i32(1))),
			Body: []ir.Stmt{&ir.For{
				Init: decl(k, i32(0)), Cond: bin(ir.Lt, ref(k), i32(3)), Post: assign(ref(k), bin(ir.Add, ref(k), i32(1))),
				Body: []ir.Stmt{
					ifThen(bin(ir.Eq, ref(k), i32(1)), &ir.Continue{}),
					assign(index(ref(acc), bin(ir.Div, ref(k), i32(2))),
						bin(ir.Add, index(ref(acc), bin(ir.Div, ref(k), i32(2))), &ir.Call{Func: w, Args: []ir.Expr{ref(j), ref(k)}})),
				},
			}},
		},
		decl(v, bin(ir.Add, bin(ir.Add, bin(ir.Mul, index(ref(acc), i32(0)), i32(1000)), index(ref(acc), i32(1))), xi())),
		assign(slot(0), bin(ir.Add, bin(ir.Div, ref(v), ref(d)), bin(ir.Rem, ref(v), ref(d)))),
		assign(slot(1), bin(ir.Shl, xi(), bin(ir.Rem, ref(i), u32(40)))),
		assign(slot(2), bin(ir.Add, convert(ir.I32, bin(ir.Shr, convert(ir.U32, ref(v)), bin(ir.Rem, ref(i), u32(40)))), builtin(ir.Len, ref(acc)))),
		assign(slot(3), bin(ir.Add, bin(ir.Mul, ref(v), i32(2147483647)), convert(ir.I32, bin(ir.Sub, convert(ir.U32, ref(d)), u32(1))))),
	}}
}

// testModule holds every test kernel, helpers first.
func testModule() *ir.Module {
	n := nested()
	var w *ir.Func
	for _, s := range n.Body {
		ir := findCall(s)
		if ir != nil {
			w = ir
		}
	}
	return &ir.Module{Funcs: []*ir.Func{w, saxpy(), reduceSum(), reduceMax(), histogram(), transpose(), neighbours(), n}}
}

// findCall returns the helper a statement calls, if any.
func findCall(s ir.Stmt) *ir.Func {
	var f *ir.Func
	ir.WalkStmt(s, nil, func(x ir.Expr) {
		if c, ok := x.(*ir.Call); ok {
			f = c.Func
		}
	})
	return f
}
