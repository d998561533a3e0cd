package cuda

import (
	"testing"

	"github.com/anygpu/gpu/errors"
	"github.com/anygpu/gpu/kernel/internal/ir"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestEmitErrors(t *testing.T) {
	out := func() *ir.Var { return param("out", slice(ir.F32), 0) }
	x := local("x", ir.I32)
	tests := []struct {
		name     string
		module   *ir.Module
		category errors.Category
		contains string
	}{
		{"nil module", nil, errors.InvalidArgument, "nil module"},
		{"float16 helper parameter", &ir.Module{Funcs: []*ir.Func{{Name: "h", Params: []*ir.Var{param("a", ir.F16, 0)}, Pos: at}}},
			errors.Internal, "a float16 value outside a buffer's element"},
		{"float16 constant", &ir.Module{Funcs: []*ir.Func{func() *ir.Func {
			o := out()
			return kernel("K", []*ir.Var{o}, assign(index(ref(o), u32(0)), conv(ir.F32, &ir.Const{Type: ir.F16, Float: 1, Pos: at})))
		}()}}, errors.Internal, "float16"},
		{"float16 from an integer", &ir.Module{Funcs: []*ir.Func{func() *ir.Func {
			h := param("h", slice(ir.F16), 0)
			return kernel("K", []*ir.Var{h}, assign(index(ref(h), u32(0)), conv(ir.F16, u32(1))))
		}()}}, errors.Internal, "a float16 value outside a buffer's element"},
		{"bool parameter", &ir.Module{Funcs: []*ir.Func{kernel("K", []*ir.Var{param("b", ir.Bool, 0)})}},
			errors.NotSupported, "bool kernel parameters are not supported: pass a uint32 (0 or 1)"},
		{"bool buffer", &ir.Module{Funcs: []*ir.Func{kernel("K", []*ir.Var{param("b", slice(ir.Bool), 0)})}},
			errors.NotSupported, "[]bool buffers"},
		{"Float4 parameter", &ir.Module{Funcs: []*ir.Func{kernel("K", []*ir.Var{param("v", &ir.Vec{Elem: ir.F32, N: 4}, 0)})}},
			errors.NotSupported, "Float4 kernel parameters"},
		{"kernel named like a keyword", &ir.Module{Funcs: []*ir.Func{kernel("float", nil)}},
			errors.NotSupported, `kernel name "float"`},
		{"64-bit atomic", &ir.Module{Funcs: []*ir.Func{func() *ir.Func {
			p := param("p", slice(ir.I64), 0)
			return kernel("K", []*ir.Var{p}, &ir.ExprStmt{X: &ir.Atomic{Op: ir.AtomicAdd, Place: index(ref(p), u32(0)),
				Args: []ir.Expr{&ir.Const{Type: ir.I64, Int: 1}}, Pos: at}, Pos: at})
		}()}}, errors.NotSupported, "atomics on int64"},
		{"use before declaration", &ir.Module{Funcs: []*ir.Func{kernel("K", nil, assign(ref(x), i32(1)))}},
			errors.Internal, "x is used before its declaration"},
		{"declared twice", &ir.Module{Funcs: []*ir.Func{kernel("K", nil, decl(x, nil), decl(x, nil))}},
			errors.Internal, "x declared twice"},
		{"mixed operand types", &ir.Module{Funcs: []*ir.Func{kernel("K", nil, decl(x, bin(ir.Add, i32(1), u32(2))))}},
			errors.Internal, "operator + on int32 and uint32"},
		{"float remainder", &ir.Module{Funcs: []*ir.Func{kernel("K", nil, decl(local("f", ir.F32), bin(ir.Rem, f32(1), f32(2))))}},
			errors.Internal, "operator % on float32"},
		{"kernel returning a value", &ir.Module{Funcs: []*ir.Func{{Name: "K", Kernel: true, Result: ir.I32, Pos: at}}},
			errors.Internal, "returns a value"},
		{"nil function", &ir.Module{Funcs: []*ir.Func{nil}}, errors.Internal, "nil function"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src, err := Emit(tt.module)
			require.Error(t, err)
			assert.Empty(t, src)
			assert.ErrorIs(t, err, tt.category)
			assert.Contains(t, err.Error(), tt.contains)
		})
	}
}

// The same module gives the same text, and the text does not depend on
// anything but the module.
func TestDeterministic(t *testing.T) {
	build := func() *ir.Module {
		return &ir.Module{Funcs: []*ir.Func{saxpy(), reduce(), histogram(), add4(), arrays()}}
	}
	first, err := Emit(build())
	require.NoError(t, err)
	for range 5 {
		again, err := Emit(build())
		require.NoError(t, err)
		require.Equal(t, first, again)
	}
	clangCheck(t, first)
}
