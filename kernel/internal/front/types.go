package front

import (
	"go/token"
	"go/types"

	"github.com/anygpu/gpu/kernel/internal/ir"
)

// isFloat4 reports whether t is kernel.Float4.
func (l *loader) isFloat4(t types.Type) bool {
	n, ok := types.Unalias(t).(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == kernelPath && n.Obj().Name() == "Float4"
}

// isFloat16 reports whether t is kernel.Float16.
func isFloat16(t types.Type) bool {
	n, ok := types.Unalias(t).(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == kernelPath && n.Obj().Name() == "Float16"
}

// float16Hint is what to write instead of a float16 value outside a buffer.
const float16Hint = "float16 lives only in buffers: convert as you load and store, v := kernel.ToFloat32(x[i]) and x[i] = kernel.ToFloat16(v), and compute in float32"

// scalarOf maps a basic type to a scalar (untyped kinds to their default
// type); ok is false for the types the language lacks, with what to write
// instead.
func scalarOf(b *types.Basic) (s ir.Scalar, hint string) {
	switch b.Kind() {
	case types.Bool, types.UntypedBool:
		return ir.Bool, ""
	case types.Int32, types.Int, types.UntypedInt, types.UntypedRune:
		return ir.I32, ""
	case types.Uint32, types.Uint:
		return ir.U32, ""
	case types.Float32:
		return ir.F32, ""
	case types.Int64:
		return ir.I64, ""
	case types.Uint64:
		return ir.U64, ""
	case types.Float64, types.UntypedFloat:
		return ir.F64, ""
	case types.Int8, types.Int16:
		return ir.Invalid, "use int32"
	case types.Uint8, types.Uint16, types.Uintptr:
		return ir.Invalid, "use uint32"
	case types.String, types.UntypedString:
		return ir.Invalid, "use numbers"
	case types.Complex64, types.Complex128, types.UntypedComplex:
		return ir.Invalid, "use two floats for the real and imaginary parts"
	case types.UnsafePointer, types.UntypedNil:
		return ir.Invalid, "pointers are not allowed in a kernel; index a buffer or an array"
	}
	return ir.Invalid, "use int32, uint32 or float32"
}

// irType maps a Go type to an IR type for a local, a helper's parameter or
// result, or an element; it records an error at pos (what describes the
// thing) and returns nil when the language lacks the type.
func (l *loader) irType(t types.Type, pos token.Pos, what string) ir.Type {
	if l.isFloat4(t) {
		return l.float4
	}
	if isFloat16(t) {
		l.errorf(pos, float16Hint, "%s of type kernel.Float16 is not allowed", what)
		return nil
	}
	switch u := t.Underlying().(type) {
	case *types.Basic:
		s, hint := scalarOf(u)
		if s == ir.Invalid {
			l.errorf(pos, hint, "%s of type %s is not allowed in a kernel", what, t)
			return nil
		}
		return s
	case *types.Array:
		if u.Len() <= 0 {
			l.errorf(pos, "give the array at least one element", "%s of type %s (an empty array) is not allowed", what, t)
			return nil
		}
		if u.Len() > 1<<24 {
			l.errorf(pos, "use a buffer", "%s of type %s is too large for an array in a kernel", what, t)
			return nil
		}
		elem := l.irType(u.Elem(), pos, what)
		if elem == nil {
			return nil
		}
		if _, ok := elem.(*ir.Slice); ok {
			return nil
		}
		return &ir.Array{Elem: elem, Len: int(u.Len())}
	case *types.Slice:
		l.errorf(pos, "slices are buffers: only a kernel's parameters may be slices; use a fixed-size array",
			"%s of type %s is not allowed", what, t)
	case *types.Pointer:
		l.errorf(pos, "index a buffer, an array or a shared array directly",
			"%s of type %s (a pointer) is not allowed in a kernel", what, t)
	case *types.Map:
		l.errorf(pos, "use an array or a buffer indexed by the key", "%s of type %s (a map) is not allowed in a kernel", what, t)
	case *types.Chan:
		l.errorf(pos, "threads of a group share data through kernel.Shared arrays and kernel.Barrier",
			"%s of type %s (a channel) is not allowed in a kernel", what, t)
	case *types.Signature:
		l.errorf(pos, "call a helper function directly", "%s of type %s (a function value) is not allowed in a kernel", what, t)
	case *types.Interface:
		l.errorf(pos, "use a concrete scalar type", "%s of type %s (an interface) is not allowed in a kernel", what, t)
	case *types.Struct:
		l.errorf(pos, "use kernel.Float4, separate variables or arrays",
			"%s of type %s (a struct other than kernel.Float4) is not allowed in a kernel", what, t)
	case *types.Tuple:
		l.errorf(pos, "return one value (a Float4 or an array can hold several)", "multiple results are not allowed in a kernel")
	default:
		l.errorf(pos, "use int32, uint32 or float32", "%s of type %s is not allowed in a kernel", what, t)
	}
	return nil
}

// bufferType maps a kernel parameter's slice type to a buffer type.
func (l *loader) bufferType(t *types.Slice, pos token.Pos, name string) ir.Type {
	if isFloat16(t.Elem()) {
		return &ir.Slice{Elem: ir.F16}
	}
	b, ok := t.Elem().Underlying().(*types.Basic)
	if !ok || l.isFloat4(t.Elem()) {
		if _, ok := t.Elem().Underlying().(*types.Slice); ok {
			l.errorf(pos, "flatten it into one buffer and index it with i*stride + j",
				"parameter %s of type %s (a slice of slices) is not allowed", name, t)
			return nil
		}
		l.errorf(pos, "use a slice of int32, uint32, float32, int64, uint64 or float64 (Load4 and Store4 read and write Float4s of a []float32)",
			"parameter %s of type %s is not allowed: a buffer's elements are scalars", name, t)
		return nil
	}
	s, hint := scalarOf(b)
	if s == ir.Bool || b.Info()&types.IsUntyped != 0 {
		s, hint = ir.Invalid, "use a []uint32"
	}
	if s == ir.Invalid {
		l.errorf(pos, hint, "parameter %s of type %s is not allowed", name, t)
		return nil
	}
	return &ir.Slice{Elem: s}
}

// quietType maps the Go type of a lowered expression without reporting
// errors (the expression's parts already reported theirs); nil when unknown.
func (l *loader) quietType(t types.Type) ir.Type {
	if t == nil {
		return nil
	}
	if l.isFloat4(t) {
		return l.float4
	}
	if isFloat16(t) {
		return ir.F16
	}
	switch u := t.Underlying().(type) {
	case *types.Basic:
		s, _ := scalarOf(u)
		if s == ir.Invalid {
			return nil
		}
		return s
	case *types.Array:
		e := l.quietType(u.Elem())
		if e == nil {
			return nil
		}
		return &ir.Array{Elem: e, Len: int(u.Len())}
	case *types.Pointer: // a shared array
		return l.quietType(u.Elem())
	case *types.Slice:
		e := l.quietType(u.Elem())
		if s, ok := e.(ir.Scalar); ok {
			return &ir.Slice{Elem: s}
		}
	}
	return nil
}
