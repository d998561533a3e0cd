package interp

import (
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/internal/memview"
	"github.com/anygpu/gpu/kernel/internal/ir"
)

// Builders of hand-written IR for the tests.

func param(name string, t ir.Type, i int) *ir.Var {
	return &ir.Var{Name: name, Type: t, Class: ir.Param, Index: i}
}

func local(name string, t ir.Type) *ir.Var { return &ir.Var{Name: name, Type: t, Class: ir.Local} }

func ref(v *ir.Var) *ir.Ref { return &ir.Ref{Var: v} }

func cU32(x uint32) *ir.Const               { return &ir.Const{Type: ir.U32, Uint: uint64(x)} }
func cI32(x int32) *ir.Const                { return &ir.Const{Type: ir.I32, Int: int64(x)} }
func cF32(x float32) *ir.Const              { return &ir.Const{Type: ir.F32, Float: float64(x)} }
func cBool(x bool) *ir.Const                { return &ir.Const{Type: ir.Bool, Bool: x} }
func idb(b ir.Builtin) ir.Expr              { return &ir.CallBuiltin{Builtin: b, Type: ir.U32} }
func decl(v *ir.Var, init ir.Expr) *ir.Decl { return &ir.Decl{Var: v, Init: init} }
func set(place, v ir.Expr) *ir.Assign       { return &ir.Assign{Place: place, Value: v} }

func bin(op ir.Op, x, y ir.Expr) *ir.Binary {
	t := x.ExprType()
	if op.IsCompare() {
		t = ir.Bool
	}
	return &ir.Binary{Op: op, X: x, Y: y, Type: t}
}

func at(x, i ir.Expr) *ir.Index {
	var t ir.Type
	switch xt := x.ExprType().(type) {
	case *ir.Slice:
		t = xt.Elem
	case *ir.Array:
		t = xt.Elem
	}
	return &ir.Index{X: x, Index: i, Type: t}
}

func call(b ir.Builtin, t ir.Type, args ...ir.Expr) *ir.CallBuiltin {
	return &ir.CallBuiltin{Builtin: b, Args: args, Type: t}
}

// addTo is place += v.
func addTo(place, v ir.Expr) *ir.Assign { return set(place, bin(ir.Add, place, v)) }

// loop is for v := from; v < to; v++ { body }.
func loop(v *ir.Var, from, to ir.Expr, body ...ir.Stmt) *ir.For {
	one := &ir.Const{Type: v.Type.(ir.Scalar), Int: 1, Uint: 1}
	return &ir.For{Init: decl(v, from), Cond: bin(ir.Lt, ref(v), to), Post: addTo(ref(v), one), Body: body}
}

func kernelFunc(name string, params []*ir.Var, body ...ir.Stmt) *ir.Func {
	return &ir.Func{Name: name, Kernel: true, Params: params, Body: body}
}

func compileOne(t testing.TB, f *ir.Func, helpers ...*ir.Func) backend.GoKernel {
	t.Helper()
	m := &ir.Module{Funcs: append(helpers, f)}
	ks, err := Compile(m)
	require.NoError(t, err)
	require.Contains(t, ks, f.Name)
	return ks[f.Name]
}

// hostBuf is a buffer in host memory.
type hostBuf struct{ b []byte }

func (h hostBuf) Size() int64   { return int64(len(h.b)) }
func (h hostBuf) Close() error  { return nil }
func (h hostBuf) Bytes() []byte { return h.b }

// buf makes a buffer argument sharing s's memory.
func buf[T memview.Scalar](s []T) backend.Arg {
	return backend.Arg{Kind: backend.ArgBuffer, Buffer: hostBuf{memview.Bytes(s)}}
}

func argU32(x uint32) backend.Arg { return backend.Arg{Kind: backend.ArgU32, Bits: uint64(x)} }
func argI32(x int32) backend.Arg  { return backend.Arg{Kind: backend.ArgI32, Bits: uint64(uint32(x))} }
func argF32(x float32) backend.Arg {
	return backend.Arg{Kind: backend.ArgF32, Bits: uint64(mathFloat32bits(x))}
}

// launch runs every group of grid in parallel goroutines, as the CPU
// backend does, and returns the first panic as an error.
func launch(k backend.GoKernel, grid, block backend.Dim3, args ...backend.Arg) error {
	grid, block = grid.Norm(), block.Norm()
	var wg sync.WaitGroup
	var mu sync.Mutex
	var first error
	for z := range grid.Z {
		for y := range grid.Y {
			for x := range grid.X {
				wg.Add(1)
				go func() {
					defer wg.Done()
					defer func() {
						if v := recover(); v != nil {
							mu.Lock()
							if first == nil {
								first = fmt.Errorf("%v", v)
							}
							mu.Unlock()
						}
					}()
					k(backend.Group{ID: backend.Dim3{X: x, Y: y, Z: z}, Size: block, Grid: grid}, args)
				}()
			}
		}
	}
	wg.Wait()
	return first
}
