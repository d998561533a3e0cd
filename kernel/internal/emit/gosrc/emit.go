package gosrc

import (
	"fmt"
	"go/format"
	"sort"
	"strings"

	"github.com/anygpu/gpu/kernel/internal/ir"
)

// The import paths the emitted code may need.
const (
	importGPU    = "github.com/anygpu/gpu/backend"
	importKernel = "github.com/anygpu/gpu/kernel"
	importMath   = "math"
	importBits   = "math/bits"
	importUnsafe = "unsafe"
)

// Output is the Go a module becomes.
type Output struct {
	// Code is Go declarations: no package clause and no imports.
	Code string
	// Imports are the import paths Code needs, sorted.
	Imports []string
	// Funcs maps each kernel's name to its group function's name.
	Funcs map[string]string
}

// Emit returns the Go for m: one group function per kernel, named prefix
// followed by the kernel's name, of the type gpu.GoKernel; each helper as a
// plain Go function (prefix and its name); and the run-time helpers the code
// needs (prefix, an underscore and a lower-case name). The text is gofmt'd
// and the same for the same module.
func Emit(m *ir.Module, prefix string) (Output, error) {
	if m == nil {
		return Output{}, fmt.Errorf("gosrc: nil module")
	}
	e := &emitter{
		prefix:    prefix,
		imports:   map[string]bool{},
		runtime:   map[string]string{},
		funcNames: map[*ir.Func]string{},
	}
	out := Output{Funcs: map[string]string{}}
	seen := map[string]bool{}
	for _, f := range m.Funcs {
		name := prefix + f.Name
		if seen[name] {
			return Output{}, fmt.Errorf("%s: gosrc: two functions named %s", f.Pos, name)
		}
		seen[name] = true
		e.funcNames[f] = name
	}
	var code strings.Builder
	for _, f := range m.Funcs {
		var (
			text string
			err  error
		)
		if f.Kernel {
			text, err = e.kernel(f)
			out.Funcs[f.Name] = e.funcNames[f]
		} else {
			text, err = e.helper(f)
		}
		if err != nil {
			return Output{}, err
		}
		code.WriteString(text)
		code.WriteString("\n")
	}
	names := make([]string, 0, len(e.runtime))
	for n := range e.runtime {
		if seen[n] {
			return Output{}, fmt.Errorf("gosrc: the run-time helper %s has the name of a kernel or helper function", n)
		}
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		code.WriteString(e.runtime[n])
		code.WriteString("\n")
	}
	for p := range e.imports {
		out.Imports = append(out.Imports, p)
	}
	sort.Strings(out.Imports)
	formatted, err := formatDecls(code.String(), out.Imports)
	if err != nil {
		return Output{}, err
	}
	out.Code = formatted
	return out, nil
}

// formatDecls runs gofmt over declarations by wrapping them in a file.
func formatDecls(code string, imports []string) (string, error) {
	var file strings.Builder
	file.WriteString("package p\n\nimport (\n")
	for _, p := range imports {
		fmt.Fprintf(&file, "\t%q\n", p)
	}
	file.WriteString(")\n\nvar agDeclsMarker int\n\n")
	file.WriteString(code)
	src, err := format.Source([]byte(file.String()))
	if err != nil {
		return "", fmt.Errorf("gosrc: the emitted Go does not parse (an emitter bug): %w", err)
	}
	_, decls, ok := strings.Cut(string(src), "var agDeclsMarker int\n\n")
	if !ok {
		return "", fmt.Errorf("gosrc: the emitted Go lost its marker while formatting (an emitter bug)")
	}
	return decls, nil
}

// emitter is the state of one Emit.
type emitter struct {
	prefix    string
	imports   map[string]bool
	runtime   map[string]string // run-time helper name → its declaration
	funcNames map[*ir.Func]string
}

// kernelPkg returns the qualifier of package kernel, recording the import.
func (e *emitter) kernelPkg() string {
	e.imports[importKernel] = true
	return "kernel."
}

// goType is t's Go spelling.
func (e *emitter) goType(t ir.Type, pos ir.Pos) (string, error) {
	switch t := t.(type) {
	case ir.Scalar:
		switch t {
		case ir.Bool, ir.I32, ir.U32, ir.F32, ir.I64, ir.U64, ir.F64:
			return t.String(), nil
		case ir.F16:
			return "", fmt.Errorf("%s: float16 is not supported by the CPU backend; use float32", pos)
		}
	case *ir.Vec:
		if t.Elem == ir.F32 && t.N == 4 {
			return e.kernelPkg() + "Float4", nil
		}
		return "", fmt.Errorf("%s: a vector of %d %s is not supported by the CPU backend; use kernel.Float4", pos, t.N, t.Elem)
	case *ir.Array:
		elem, err := e.goType(t.Elem, pos)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("[%d]%s", t.Len, elem), nil
	case *ir.Slice:
		elem, err := e.goType(t.Elem, pos)
		if err != nil {
			return "", err
		}
		return "[]" + elem, nil
	}
	return "", fmt.Errorf("%s: gosrc: unknown type %T", pos, t)
}

// zero is the zero value of t as a Go expression.
func (e *emitter) zero(t ir.Type, pos ir.Pos) (string, error) {
	if s, ok := t.(ir.Scalar); ok {
		switch {
		case s == ir.Bool:
			return "false", nil
		case s == ir.F16:
			return e.goType(s, pos)
		}
		return s.String() + "(0)", nil
	}
	typ, err := e.goType(t, pos)
	if err != nil {
		return "", err
	}
	return typ + "{}", nil
}

// goReserved are names the emitted code uses besides the kernel's own: the
// group function's parameters, packages and Go's predeclared identifiers. A
// variable of the kernel with one of these names is renamed.
var goReserved = func() map[string]bool {
	m := map[string]bool{}
	for _, n := range strings.Fields(`g args kernel gpu math unsafe
		any append bool byte cap clear close comparable complex complex64 complex128 copy delete error false
		float32 float64 imag int int8 int16 int32 int64 iota len make max min new nil panic print println
		real recover rune string true uint uint8 uint16 uint32 uint64 uintptr`) {
		m[n] = true
	}
	return m
}()

// isInternal reports whether name has the form of the emitter's own locals
// ("ag" and an upper-case letter).
func isInternal(name string) bool {
	return len(name) > 2 && strings.HasPrefix(name, "ag") && name[2] >= 'A' && name[2] <= 'Z'
}

// localNames gives the variables of f their Go names: their own, with "_"
// appended while one collides with a reserved or package-level name.
func (e *emitter) localNames(f *ir.Func) map[*ir.Var]string {
	taken := map[string]bool{}
	for _, n := range e.funcNames {
		taken[n] = true
	}
	names := map[*ir.Var]string{}
	assign := func(v *ir.Var) {
		if _, ok := names[v]; ok {
			return
		}
		n := v.Name
		for goReserved[n] || isInternal(n) || taken[n] || strings.HasPrefix(n, e.prefix+"_") && e.prefix != "" {
			n += "_"
		}
		taken[n] = true
		names[v] = n
	}
	for _, v := range f.Params {
		assign(v)
	}
	for _, v := range f.Shared {
		assign(v)
	}
	ir.WalkStmts(f.Body, func(s ir.Stmt) {
		if d, ok := s.(*ir.Decl); ok {
			assign(d.Var)
		}
	}, func(x ir.Expr) {
		if r, ok := x.(*ir.Ref); ok {
			assign(r.Var)
		}
	})
	return names
}
