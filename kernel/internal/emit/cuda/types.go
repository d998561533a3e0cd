package cuda

import (
	"strconv"
	"strings"

	"github.com/anygpu/gpu/kernel/internal/ir"
)

// scalarNames are the CUDA C++ spellings of the scalar types.
var scalarNames = map[ir.Scalar]string{
	ir.Bool: "bool",
	ir.I32:  "int",
	ir.U32:  "unsigned",
	ir.F32:  "float",
	ir.I64:  "long long",
	ir.U64:  "unsigned long long",
	ir.F64:  "double",
}

// unsignedOf is the unsigned type signed arithmetic is done in.
var unsignedOf = map[ir.Scalar]ir.Scalar{ir.I32: ir.U32, ir.I64: ir.U64}

// suffixes name a scalar type in the anygpu_* helpers' names.
var suffixes = map[ir.Scalar]string{
	ir.I32: "i32", ir.U32: "u32", ir.F32: "f32", ir.I64: "i64", ir.U64: "u64", ir.F64: "f64",
}

// scalarName is s's spelling, or an error for invalid types. float16 is
// stored as its bits (a buffer's element only: see convert).
func scalarName(s ir.Scalar, pos ir.Pos) (string, error) {
	if s == ir.F16 {
		return "unsigned short", nil
	}
	name, ok := scalarNames[s]
	if !ok {
		return "", malformed(pos, "type %v", s)
	}
	return name, nil
}

// errFloat16 is the error for a float16 value outside a buffer, which the
// front end does not let through.
func errFloat16(pos ir.Pos) error {
	return malformed(pos, "a float16 value outside a buffer's element")
}

// isFloat4 reports whether t is kernel.Float4, the only vector type.
func isFloat4(t ir.Type) bool {
	v, ok := t.(*ir.Vec)
	return ok && v.Elem == ir.F32 && v.N == 4
}

// typeName is the spelling of a scalar or vector type (arrays and slices
// are spelled by declare and the parameter list).
func typeName(t ir.Type, pos ir.Pos) (string, error) {
	switch t := t.(type) {
	case ir.Scalar:
		return scalarName(t, pos)
	case *ir.Vec:
		if isFloat4(t) {
			return "float4", nil
		}
		if t.Elem == ir.F16 {
			return "", errFloat16(pos)
		}
		return "", notSupported(pos, "use kernel.Float4", "vectors of %d %v are not supported on CUDA", t.N, t.Elem)
	case nil:
		return "", malformed(pos, "missing type")
	}
	return "", malformed(pos, "%T where a scalar or vector type belongs", t)
}

// declare spells a declaration of name with type t: "float x",
// "float a[4][8]".
func declare(t ir.Type, name string, pos ir.Pos) (string, error) {
	var dims strings.Builder
	for {
		a, ok := t.(*ir.Array)
		if !ok {
			break
		}
		if a.Len <= 0 {
			return "", malformed(pos, "array of length %d", a.Len)
		}
		dims.WriteString("[" + strconv.Itoa(a.Len) + "]")
		t = a.Elem
	}
	base, err := typeName(t, pos)
	if err != nil {
		return "", err
	}
	return base + " " + name + dims.String(), nil
}
