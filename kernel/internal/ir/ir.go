// Package ir is the typed intermediate form of kernels between the Go front
// end (kernel/internal/front) and the emitters (CUDA C++, WGSL, Go, the CPU's
// closure compiler). It is a structured tree: no gotos, no SSA. The front end
// has already checked everything the language forbids and resolved every
// type, so an emitter walks it without checks of its own:
//
//   - every Expr has a concrete Type; untyped Go constants are typed;
//   - int and uint are I32 and U32; implicit conversions are explicit
//     Convert nodes; both operands of a Binary have the same type, except
//     for shifts (the count is any integer type);
//   - compound assignments (x += y, x++) are Assign of a Binary, with any
//     index expression that has side effects hoisted into a Local first, so
//     each place is evaluated once;
//   - range over an integer is a three-clause For; Break and Continue
//     always leave the innermost For (a labelled break or continue of an
//     outer loop is lowered to a Bool local and plain ones);
//   - each kernel's Shared arrays are listed on its Func, not in its body;
//   - helpers come before their callers in Module.Funcs (no recursion).
//
// Go semantics every emitter keeps are documented on the operators below.
package ir

import "fmt"

// Pos is a position in the Go source, for error messages: file:line:col.
type Pos struct {
	File      string
	Line, Col int
}

// String is file:line:col.
func (p Pos) String() string { return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col) }

// Scalar is a scalar type.
type Scalar uint8

// The scalar types.
const (
	Invalid Scalar = iota
	Bool
	I32
	U32
	F32
	I64
	U64
	F64
	F16
)

var scalarNames = [...]string{"invalid", "bool", "int32", "uint32", "float32", "int64", "uint64", "float64", "float16"}

// String is the type's Go name.
func (s Scalar) String() string {
	if int(s) < len(scalarNames) {
		return scalarNames[s]
	}
	return fmt.Sprintf("Scalar(%d)", uint8(s))
}

// IsInt reports whether s is an integer type.
func (s Scalar) IsInt() bool { return s == I32 || s == U32 || s == I64 || s == U64 }

// IsSigned reports whether s is a signed integer type.
func (s Scalar) IsSigned() bool { return s == I32 || s == I64 }

// IsFloat reports whether s is a floating-point type.
func (s Scalar) IsFloat() bool { return s == F32 || s == F64 || s == F16 }

// Bits is the width of s in bits (1 for Bool).
func (s Scalar) Bits() int {
	switch s {
	case Bool:
		return 1
	case F16:
		return 16
	case I64, U64, F64:
		return 64
	}
	return 32
}

// Type is one of Scalar, *Vec, *Array or *Slice.
type Type interface{ isType() }

func (Scalar) isType() {}

// Vec is a vector of N scalars: kernel.Float4 is Vec{F32, 4}. Its lanes are
// read with Lane and built with MakeVec.
type Vec struct {
	Elem Scalar
	N    int
}

// Array is a fixed-size array: a local ([8]float32) or a shared array, or
// a row of a multi-dimensional one (Elem is then an *Array).
type Array struct {
	Elem Type
	Len  int
}

// Slice is a buffer: a kernel's slice parameter. Elem is a scalar type.
// F16 is an element type only: no Local, Shared, array, helper parameter,
// result or Const is F16, and an expression of type F16 is either an Index
// of an F16 buffer that is the X of a Convert to F32 or the Value of an
// Assign to an Index of an F16 buffer, or a Convert of an F32 to F16 that
// is such a Value or the X of a Convert to F32 (a rounding to float16's
// precision).
type Slice struct{ Elem Scalar }

func (*Vec) isType()   {}
func (*Array) isType() {}
func (*Slice) isType() {}

// ElemScalar is the scalar at the bottom of t (an array's innermost
// element, a slice's or vector's element, or t itself).
func ElemScalar(t Type) Scalar {
	switch t := t.(type) {
	case Scalar:
		return t
	case *Vec:
		return t.Elem
	case *Array:
		return ElemScalar(t.Elem)
	case *Slice:
		return t.Elem
	}
	return Invalid
}

// VarClass is where a variable lives.
type VarClass uint8

// The variable classes.
const (
	Local  VarClass = iota // a function's local (scalar, Vec or Array), per thread
	Param                  // a function parameter (a buffer or a scalar)
	Shared                 // a work-group shared array (kernel.Shared)
)

// Var is a variable. Names are the Go names, made unique within a Func by
// the front end (shadowed names get a suffix), and never one of the
// emitters' reserved words: an emitter may still prefix them.
type Var struct {
	Name  string
	Type  Type
	Class VarClass
	Index int // a Param's position in its Func's parameters
	Pos   Pos
}

// Func is a kernel or a helper function.
type Func struct {
	Name   string
	Kernel bool   // marked //gpu:kernel: an entry point, returns nothing
	Params []*Var // in order; a kernel's slices are buffers, the rest scalars
	Result Type   // nil when it returns nothing (kernels always)
	Shared []*Var // a kernel's shared arrays (Class Shared), in declaration order
	Body   []Stmt
	// Barriers reports whether the body has a Barrier, a MatMulAdd or an
	// MMA (only kernels may:
	// helpers take and return scalars and Vecs, and touch no buffer, shared
	// array or Barrier).
	Barriers bool
	// Features lists what the function needs beyond the base language.
	Features Features
	// MaxThreads is a kernel's //gpu:maxthreads N: the most threads per
	// group it is launched with (0: no promise). CUDA compiles for it
	// (__launch_bounds__); other dialects ignore it.
	MaxThreads int
	// MinGroups is a kernel's //gpu:mingroups N: the groups of MaxThreads
	// threads CUDA should fit on a compute unit at once (0: no promise),
	// bounding each thread's registers (__launch_bounds__'s second
	// argument); other dialects ignore it.
	MinGroups int
	Pos       Pos
}

// Features are capabilities a kernel needs from the device.
type Features uint32

// The features.
const (
	Float64     Features = 1 << iota // float64 arithmetic
	Int64                            // int64/uint64 arithmetic
	Float16                          // float16 arithmetic
	AtomicFloat                      // AtomicAdd on float32
	Subgroup                         // subgroup operations
)

// Module is what one translation produces: the kernels and the helpers they
// call, helpers first (callees before callers).
type Module struct {
	Funcs []*Func
}

// Kernels returns the module's kernels in source order.
func (m *Module) Kernels() []*Func {
	var ks []*Func
	for _, f := range m.Funcs {
		if f.Kernel {
			ks = append(ks, f)
		}
	}
	return ks
}
