package front

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/anygpu/gpu/kernel/internal/ir"
)

// variantDirective asks for a specialised copy of a kernel:
//
//	//gpu:variant binaryBF16 dt=DTBFloat16 op=0
//
// adds kernel binaryBF16, the kernel's body with each named scalar parameter
// fixed to its value (a literal, or the name of a constant of the package),
// as a local initialised to the constant. The variant
// keeps the kernel's parameter list (a launch passes the same arguments; the
// fixed ones are not read), so a caller that knows a parameter's value picks
// the variant and its compiler folds the branches on it away: a generic
// kernel written once, specialised where it is hot, as a C++ template is.
const variantDirective = "//gpu:variant"

// variant is one //gpu:variant line of a kernel.
type variant struct {
	name  string
	bound map[string]string // parameter name → the value's text
	pos   token.Pos
}

// variants reads fd's //gpu:variant lines, reporting a malformed one or one
// on a function that is not a kernel.
func (l *loader) variants(fd *ast.FuncDecl, kernel bool) []variant {
	if fd.Doc == nil {
		return nil
	}
	var out []variant
	for _, c := range fd.Doc.List {
		text := strings.TrimSpace(c.Text)
		rest, ok := strings.CutPrefix(text, variantDirective)
		if !ok || (rest != "" && rest[0] != ' ' && rest[0] != '\t') {
			continue
		}
		if !kernel {
			l.errorf(c.Pos(), "put it on a kernel", "%s on helper %s: only kernels have variants", variantDirective, fd.Name.Name)
			continue
		}
		hint := fmt.Sprintf("write %s NAME PARAM=VALUE ..., with NAME a new kernel name and each PARAM a scalar parameter", variantDirective)
		fields := strings.Fields(rest)
		if len(fields) < 2 || !token.IsIdentifier(fields[0]) {
			l.errorf(c.Pos(), hint, "malformed directive %q", text)
			continue
		}
		v := variant{name: fields[0], bound: map[string]string{}, pos: c.Pos()}
		good := true
		for _, f := range fields[1:] {
			name, value, ok := strings.Cut(f, "=")
			if !ok || !token.IsIdentifier(name) || value == "" || v.bound[name] != "" {
				l.errorf(c.Pos(), hint, "malformed directive %q (%s)", text, f)
				good = false
				break
			}
			v.bound[name] = value
		}
		if good {
			out = append(out, v)
		}
	}
	return out
}

// bindVariant makes f's body read each of v's parameters as a local
// initialised to its value, prepending the declarations to body.
func (f *fnLower) bindVariant(v variant, body *[]ir.Stmt) bool {
	ok := true
	fixed := map[string]bool{}
	for _, field := range f.decl.Type.Params.List {
		for _, id := range field.Names {
			text, bound := v.bound[id.Name]
			if !bound {
				continue
			}
			fixed[id.Name] = true
			obj := f.l.info.Defs[id]
			param := f.vars[obj]
			if param == nil {
				ok = false
				continue
			}
			s, scalar := param.Type.(ir.Scalar)
			if !scalar {
				f.l.errorf(v.pos, "fix a scalar parameter", "variant %s fixes %s, a buffer", v.name, id.Name)
				ok = false
				continue
			}
			c, err := variantConst(s, f.l.constText(text))
			if err != nil {
				f.l.errorf(v.pos, "write a constant of the parameter's type", "variant %s: %s=%s: %v", v.name, id.Name, text, err)
				ok = false
				continue
			}
			c.Pos = f.pos(id)
			local := &ir.Var{Name: f.names.name(id.Name), Type: s, Class: ir.Local, Pos: f.pos(id)}
			f.vars[obj] = local
			*body = append(*body, &ir.Decl{Var: local, Init: c, Pos: c.Pos})
		}
	}
	for _, name := range slices.Sorted(maps.Keys(v.bound)) { // errors in a fixed order
		if fixed[name] {
			continue
		}
		f.l.errorf(v.pos, "name a parameter of "+f.decl.Name.Name, "variant %s fixes %s, which is not a parameter", v.name, name)
		ok = false
	}
	return ok
}

// constText is the value of the package's constant named text, or text.
func (l *loader) constText(text string) string {
	if !token.IsIdentifier(text) || l.pkg == nil || text == "true" || text == "false" {
		return text
	}
	if c, ok := l.pkg.Scope().Lookup(text).(*types.Const); ok {
		if v := c.Val(); v.Kind() == constant.Float {
			f, _ := constant.Float64Val(v)
			return strconv.FormatFloat(f, 'g', -1, 64)
		}
		return c.Val().ExactString()
	}
	return text
}

// variantConst parses text as a constant of scalar type s.
func variantConst(s ir.Scalar, text string) (*ir.Const, error) {
	c := &ir.Const{Type: s}
	switch {
	case s == ir.Bool:
		b, err := strconv.ParseBool(text)
		if err != nil {
			return nil, fmt.Errorf("want true or false")
		}
		c.Bool = b
	case s.IsSigned():
		n, err := strconv.ParseInt(text, 0, s.Bits())
		if err != nil {
			return nil, fmt.Errorf("want an %s", s)
		}
		c.Int = n
	case s.IsInt():
		n, err := strconv.ParseUint(text, 0, s.Bits())
		if err != nil {
			return nil, fmt.Errorf("want a %s", s)
		}
		c.Uint = n
	case s == ir.F32 || s == ir.F64:
		x, err := strconv.ParseFloat(text, s.Bits())
		if err != nil || math.IsInf(x, 0) || math.IsNaN(x) {
			return nil, fmt.Errorf("want a finite %s", s)
		}
		if s == ir.F32 {
			x = float64(float32(x))
		}
		c.Float = x
	default:
		return nil, fmt.Errorf("a %s parameter cannot be fixed", s)
	}
	return c, nil
}

// lowerVariants lowers the variants of kernel fd (obj), each a kernel of
// its own; nil entries are dropped.
func (l *loader) lowerVariants(obj *types.Func, fd *ast.FuncDecl) []*ir.Func {
	var out []*ir.Func
	for _, v := range l.variants(fd, true) {
		if reserved(v.name) || l.funcNames[v.name] {
			l.errorf(v.pos, "name the variant something no function is", "variant name %s is taken", v.name)
			continue
		}
		l.funcNames[v.name] = true
		n := len(l.errs)
		l.stack = append(l.stack, obj)
		fn := l.lowerBody(obj, fd, true, &v)
		l.stack = l.stack[:len(l.stack)-1]
		if fn != nil && len(l.errs) == n {
			out = append(out, fn)
		}
	}
	return out
}
