package front

import (
	"go/ast"
	"go/token"
	"go/types"
	"slices"
	"strings"
)

// The files of a package hold kernels next to ordinary Go code (func main,
// uses of fmt and of package gpu, ...). Load type-checks the whole package
// with stand-ins for every import but package kernel (importPkg), so the
// ordinary code has type errors that only reflect the stand-ins; go build
// checks that code for real. Only the declarations the kernels use are the
// front end's business: the kernels, the helpers they reach, and the
// package-level constants and types those use. This file finds them and
// reports the errors inside them.

// usedDecls returns the declarations the kernels use: the kernels, every
// plain function reachable from them, and the const and type specs they
// name (transitively). Order: the kernels, then in the order found.
func (l *loader) usedDecls(kernels []*ast.FuncDecl) []ast.Node {
	specs := l.packageSpecs()
	var used []ast.Node
	seen := map[ast.Node]bool{}
	add := func(n ast.Node) {
		if n != nil && !seen[n] {
			seen[n] = true
			used = append(used, n)
		}
	}
	for _, k := range kernels {
		add(k)
	}
	for i := 0; i < len(used); i++ {
		ast.Inspect(used[i], func(n ast.Node) bool {
			id, ok := n.(*ast.Ident)
			if !ok {
				return true
			}
			switch obj := l.info.Uses[id].(type) {
			case *types.Func:
				if fd := l.decls[obj]; fd != nil && fd.Recv == nil {
					add(fd)
				}
			case *types.Const, *types.TypeName:
				for _, s := range specs[obj] {
					add(s)
				}
			}
			return true
		})
	}
	return used
}

// packageSpecs maps each package-level constant and type to the specs that
// declare it: its own, and for a constant without an expression (inside a
// const group) also the spec whose expression it repeats.
func (l *loader) packageSpecs() map[types.Object][]ast.Node {
	specs := map[types.Object][]ast.Node{}
	for _, af := range l.files {
		for _, d := range af.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || (gd.Tok != token.CONST && gd.Tok != token.TYPE) {
				continue
			}
			var last ast.Spec // the last const spec with expressions
			for _, s := range gd.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					if obj := l.info.Defs[s.Name]; obj != nil {
						specs[obj] = []ast.Node{s}
					}
				case *ast.ValueSpec:
					nodes := []ast.Node{s}
					if len(s.Values) > 0 {
						last = s
					} else if last != nil {
						nodes = append(nodes, last)
					}
					for _, name := range s.Names {
						if obj := l.info.Defs[name]; obj != nil {
							specs[obj] = nodes
						}
					}
				}
			}
		}
	}
	return specs
}

// inside reports whether p lies inside one of the nodes.
func inside(nodes []ast.Node, p token.Pos) bool {
	return p.IsValid() && slices.ContainsFunc(nodes, func(n ast.Node) bool { return n.Pos() <= p && p < n.End() })
}

// checkUsed reports, inside the declarations the kernels use, every
// reference to another package than kernel and every type error (those
// elsewhere are ignored); when there is none, every use of an object whose
// type did not type-check (declared elsewhere). It reports whether there
// was no error.
func (l *loader) checkUsed(used []ast.Node) bool {
	n := len(l.errs)
	var foreign []ast.Node
	for _, decl := range used {
		ast.Inspect(decl, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			x, ok := sel.X.(*ast.Ident)
			if !ok {
				return true
			}
			pn, ok := l.info.Uses[x].(*types.PkgName)
			if !ok || pn.Imported().Path() == kernelPath {
				return true
			}
			path := pn.Imported().Path()
			l.errorf(sel.Pos(), l.foreignHint(path, sel.Sel.Name),
				"%s.%s is from package %s: a kernel uses only package kernel and the declarations of its own package",
				x.Name, sel.Sel.Name, path)
			foreign = append(foreign, sel)
			return false
		})
	}
	for _, te := range l.typeErrs {
		if inside(used, te.Pos) && !inside(foreign, te.Pos) {
			l.errorf(te.Pos, "", "%s", te.Msg)
		}
	}
	if len(l.errs) > n {
		return false
	}
	for _, decl := range used {
		ast.Inspect(decl, func(n ast.Node) bool {
			id, ok := n.(*ast.Ident)
			if !ok {
				return true
			}
			switch obj := l.info.Uses[id].(type) {
			case *types.Var, *types.Const, *types.TypeName, *types.Func:
				if hasInvalid(obj.Type(), 0) {
					l.errorf(id.Pos(), "fix its declaration (go build or go vet shows the error)",
						"%s does not type-check, so a kernel cannot use it", id.Name)
				}
			}
			return true
		})
	}
	return len(l.errs) == n
}

// hasInvalid reports whether t is or contains the invalid type (what
// go/types leaves where a declaration does not type-check).
func hasInvalid(t types.Type, depth int) bool {
	if t == nil {
		return true
	}
	if depth > 8 {
		return false
	}
	switch u := types.Unalias(t).(type) {
	case *types.Basic:
		return u.Kind() == types.Invalid
	case *types.Named:
		return u.Underlying() == nil || hasInvalid(u.Underlying(), depth+1)
	case *types.Array:
		return hasInvalid(u.Elem(), depth+1)
	case *types.Slice:
		return hasInvalid(u.Elem(), depth+1)
	case *types.Pointer:
		return hasInvalid(u.Elem(), depth+1)
	case *types.Signature:
		for _, tup := range []*types.Tuple{u.Params(), u.Results()} {
			for v := range tup.Variables() {
				if hasInvalid(v.Type(), depth+1) {
					return true
				}
			}
		}
	}
	return false
}

// foreignHint says what a kernel writes instead of path.name.
func (l *loader) foreignHint(path, name string) string {
	switch {
	case (path == "math" || path == "math/bits") && l.inKernelPkg(name):
		return "use kernel." + name
	case path == "math" && (strings.HasPrefix(name, "Max") || strings.HasPrefix(name, "Min") ||
		strings.HasPrefix(name, "Smallest") || slices.Contains(mathConsts, name)):
		return "declare a constant of your own package (const pi = 3.141592653589793), or pass the value as a parameter"
	case path == "math":
		return "package kernel has Sqrt, Exp, Log, Pow, Abs, Floor, Fma, Float32bits, ...; write a helper of your own package for the rest"
	case path == "sync/atomic":
		return "use kernel.AtomicAdd, kernel.AtomicMin, ... on &buf[i]"
	case path == "github.com/anygpu/gpu":
		return "declare what the kernel needs in its own package, or pass it as a parameter; package gpu is for the host code that launches it"
	}
	return "declare a constant, type or helper function in the kernel's own package, or pass the value as a parameter"
}

// inKernelPkg reports whether package kernel declares name.
func (l *loader) inKernelPkg(name string) bool {
	pkg, err := l.importPkg(kernelPath)
	return err == nil && pkg.Scope().Lookup(name) != nil
}

// mathConsts are the constants of package math other than the limits
// (Max..., Min..., Smallest...).
var mathConsts = []string{"E", "Pi", "Phi", "Sqrt2", "SqrtE", "SqrtPi", "SqrtPhi", "Ln2", "Log2E", "Ln10", "Log10E"}
