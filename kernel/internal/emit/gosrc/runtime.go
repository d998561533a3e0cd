package gosrc

import (
	"fmt"
	"strings"

	"github.com/anygpu/gpu/kernel/internal/ir"
)

// The run-time helpers are small Go functions the emitted code calls; each
// is emitted once, when used, named the prefix, an underscore and its name.

// runtimeFunc records a helper's declaration and returns its name. decl
// spells the name as NAME.
func (e *emitter) runtimeFunc(name, decl string) string {
	full := e.prefix + "_" + name
	if _, ok := e.runtime[full]; !ok {
		e.runtime[full] = strings.ReplaceAll(decl, "NAME", full)
	}
	return full
}

// rtHelper is the identity function that makes a constant expression a
// run-time one, so Go applies the kernel's wrapping arithmetic to it instead
// of rejecting an overflowing constant.
func (e *emitter) rtHelper() string {
	return e.runtimeFunc("rt", `// NAME returns x: its result is not a Go constant.
func NAME[T any](x T) T { return x }
`)
}

// fillHelper stores a uniform value in every thread's copy of a variable.
func (e *emitter) fillHelper() string {
	return e.runtimeFunc("fill", `// NAME stores v in every element of s.
func NAME[T any](s []T, v T) {
	for i := range s {
		s[i] = v
	}
}
`)
}

// viewHelper views a 64-bit integer buffer argument as a slice.
func (e *emitter) viewHelper(s ir.Scalar) string {
	e.imports[importUnsafe] = true
	e.imports[importGPU] = true
	name := s.String() + "s"
	return e.runtimeFunc(name, fmt.Sprintf(`// NAME views a buffer argument as []%[1]s.
func NAME(a backend.Arg) []%[1]s {
	b := a.Bytes()
	if len(b) < 8 {
		return nil
	}
	return unsafe.Slice((*%[1]s)(unsafe.Pointer(unsafe.SliceData(b))), len(b)/8)
}
`, s))
}

// divHelper is integer division or remainder of type s, with the kernel
// language's x/0 == x and x%0 == 0.
func (e *emitter) divHelper(op ir.Op, s ir.Scalar) string {
	if op == ir.Div {
		return e.runtimeFunc("div_"+s.String(), fmt.Sprintf(`// NAME is x/y, or x when y is 0.
func NAME(x, y %s) %[1]s {
	if y == 0 {
		return x
	}
	return x / y
}
`, s))
	}
	return e.runtimeFunc("rem_"+s.String(), fmt.Sprintf(`// NAME is x%%y, or 0 when y is 0.
func NAME(x, y %s) %[1]s {
	if y == 0 {
		return 0
	}
	return x %% y
}
`, s))
}

// floatToIntHelper converts a float64 to integer type s, truncating toward
// zero and saturating; NaN gives 0.
func (e *emitter) floatToIntHelper(s ir.Scalar) string {
	// lo and hi are the float64 bounds outside which the result saturates.
	var lo, hi, min, max string
	switch s {
	case ir.I32:
		lo, hi, min, max = "-2147483648", "2147483647", "-2147483648", "2147483647"
	case ir.U32:
		lo, hi, min, max = "0", "4294967295", "0", "4294967295"
	case ir.I64:
		lo, hi, min, max = "-9223372036854775808", "9223372036854775807", "-9223372036854775808", "9223372036854775807"
	default: // U64
		lo, hi, min, max = "0", "18446744073709551615", "0", "18446744073709551615"
	}
	return e.runtimeFunc("to_"+s.String(), fmt.Sprintf(`// NAME converts x to %[1]s: toward zero, saturating, NaN to 0.
func NAME(x float64) %[1]s {
	switch {
	case x != x:
		return 0
	case x <= %[2]s:
		return %[4]s
	case x >= %[3]s:
		return %[5]s
	}
	return %[1]s(x)
}
`, s, lo, hi, min, max))
}

// vecHelper is a lane-wise operation on Float4s.
func (e *emitter) vecHelper(op ir.Op) string {
	k := e.kernelPkg()
	if op == ir.Neg {
		return e.runtimeFunc("neg4", fmt.Sprintf(`// NAME is -a, lane-wise.
func NAME(a %[1]sFloat4) %[1]sFloat4 {
	return %[1]sFloat4{X: -a.X, Y: -a.Y, Z: -a.Z, W: -a.W}
}
`, k))
	}
	names := map[ir.Op]string{ir.Add: "add4", ir.Sub: "sub4", ir.Mul: "mul4", ir.Div: "div4"}
	lane := func(l string) string {
		s := "a." + l + " " + op.String() + " b." + l
		if op == ir.Mul {
			s = "float32(" + s + ")"
		}
		return l + ": " + s
	}
	return e.runtimeFunc(names[op], fmt.Sprintf(`// NAME is a %[2]s b, lane-wise.
func NAME(a, b %[1]sFloat4) %[1]sFloat4 {
	return %[1]sFloat4{%[3]s, %[4]s, %[5]s, %[6]s}
}
`, k, op, lane("X"), lane("Y"), lane("Z"), lane("W")))
}

// load4Helper is a 4-wide load with one bounds check: re-slicing the four
// elements lets Go prove the element indices.
func (e *emitter) load4Helper() string {
	k := e.kernelPkg()
	return e.runtimeFunc("load4", fmt.Sprintf(`// NAME returns s[4i], s[4i+1], s[4i+2] and s[4i+3], as kernel.Load4.
func NAME(s []float32, i uint32) %[1]sFloat4 {
	j := 4 * int(i)
	t := s[j : j+4 : j+4]
	return %[1]sFloat4{X: t[0], Y: t[1], Z: t[2], W: t[3]}
}
`, k))
}

// store4Helper is a 4-wide store with one bounds check.
func (e *emitter) store4Helper() string {
	k := e.kernelPkg()
	return e.runtimeFunc("store4", fmt.Sprintf(`// NAME stores v in s[4i], s[4i+1], s[4i+2] and s[4i+3], as kernel.Store4.
func NAME(s []float32, i uint32, v %[1]sFloat4) {
	j := 4 * int(i)
	t := s[j : j+4 : j+4]
	t[0], t[1], t[2], t[3] = v.X, v.Y, v.Z, v.W
}
`, k))
}
