package front

import (
	"go/ast"
	"go/token"
	"go/types"
	"strconv"
	"strings"

	"github.com/anygpu/gpu/kernel/internal/ir"
)

// fnLower lowers one function's body.
type fnLower struct {
	l      *loader
	obj    *types.Func
	decl   *ast.FuncDecl
	fn     *ir.Func
	vars   map[types.Object]*ir.Var
	names  *namer
	loops  []*loopCtx
	result *ir.Var // a helper's named result
}

// pos is the position of n.
func (f *fnLower) pos(n ast.Node) ir.Pos { return f.l.pos(n.Pos()) }

// errorf records an error at n.
func (f *fnLower) errorf(n ast.Node, hint, format string, args ...any) {
	f.l.errorf(n.Pos(), hint, format, args...)
}

// typeOf is the Go type of e.
func (f *fnLower) typeOf(e ast.Expr) types.Type { return f.l.info.TypeOf(e) }

// helper returns the lowered helper obj, lowering it first; nil (and an
// error at the call) when it cannot be called.
func (l *loader) helper(obj *types.Func, call token.Pos) *ir.Func {
	if l.kernels[obj] {
		l.errorf(call, "move the shared code into a helper function that both call",
			"calling kernel %s from a kernel is not allowed", obj.Name())
		return nil
	}
	fd := l.decls[obj]
	if fd == nil {
		l.errorf(call, "declare it with a body in the package", "function %s has no body", obj.Name())
		return nil
	}
	if st := l.funcs[obj]; st != nil {
		if !st.done {
			var chain []string
			for i, g := range l.stack {
				if g == obj {
					for _, h := range l.stack[i:] {
						chain = append(chain, h.Name())
					}
					break
				}
			}
			chain = append(chain, obj.Name())
			l.errorf(call, "rewrite it as a loop", "recursion is not allowed in a kernel (%s)", strings.Join(chain, " → "))
			return nil
		}
		if st.failed {
			return nil
		}
		return st.fn
	}
	return l.lowerFunc(obj, fd, false)
}

// helperName is the name helper goName gets in the module: its own, or one
// with a suffix when a backend reserves it.
func (l *loader) helperName(goName string) string {
	name := goName
	base := unreservedBase(goName, "f")
	for i := 1; reserved(name) || l.helperNames[name] || (name != goName && l.funcNames[name]); i++ {
		name = base + "_" + strconv.Itoa(i)
	}
	l.helperNames[name] = true
	l.funcNames[name] = true
	return name
}

// lowerFunc lowers the kernel or helper declared by fd; nil when it has errors.
func (l *loader) lowerFunc(obj *types.Func, fd *ast.FuncDecl, kernel bool) *ir.Func {
	st := &funcState{}
	l.funcs[obj] = st
	l.stack = append(l.stack, obj)
	n := len(l.errs)
	fn := l.lowerBody(obj, fd, kernel, nil)
	l.stack = l.stack[:len(l.stack)-1]
	st.done = true
	st.fn = fn
	st.failed = fn == nil || len(l.errs) > n
	if st.failed {
		return nil
	}
	if !kernel {
		l.helpers = append(l.helpers, fn)
	}
	return fn
}

// lowerBody checks fd's signature and lowers its body; v, when not nil, is
// a variant of kernel fd to lower instead (variant.go).
func (l *loader) lowerBody(obj *types.Func, fd *ast.FuncDecl, kernel bool, v *variant) *ir.Func {
	what := "a helper"
	if kernel {
		what = "a kernel"
	}
	if fd.Recv != nil {
		l.errorf(fd.Name.Pos(), "make it a plain function", "%s cannot be a method", what)
		return nil
	}
	if fd.Type.TypeParams != nil && len(fd.Type.TypeParams.List) > 0 {
		l.errorf(fd.Type.TypeParams.Pos(), "write one function per type", "%s cannot be generic", what)
		return nil
	}
	name := fd.Name.Name
	if !kernel {
		name = l.helperName(name)
	}
	if v != nil {
		name = v.name
	}
	f := &fnLower{
		l: l, obj: obj, decl: fd,
		fn:    &ir.Func{Name: name, Kernel: kernel, Pos: l.pos(fd.Name.Pos())},
		vars:  map[types.Object]*ir.Var{},
		names: newNamer(l.funcNames),
	}
	f.params(kernel)
	f.fn.MaxThreads = l.maxThreads(fd, kernel)
	f.fn.MinGroups = l.minGroups(fd, kernel, f.fn.MaxThreads)
	if !kernel {
		l.variants(fd, false) // reports a variant line on a helper
	}
	var body []ir.Stmt
	if !f.results(kernel, &body) {
		return nil
	}
	if v != nil && !f.bindVariant(*v, &body) {
		return nil
	}
	body = append(body, f.stmts(fd.Body.List, kernel)...)
	f.fn.Body = body
	return f.fn
}

// params lowers the parameters.
func (f *fnLower) params(kernel bool) {
	sig := f.obj.Type().(*types.Signature)
	if sig.Variadic() {
		f.errorf(f.decl.Type.Params, "take a fixed number of parameters", "variadic parameters are not allowed in a kernel")
	}
	idx := 0
	for _, field := range f.decl.Type.Params.List {
		names := field.Names
		if len(names) == 0 {
			names = []*ast.Ident{ast.NewIdent("_")}
			names[0].NamePos = field.Type.Pos()
		}
		for _, id := range names {
			t := f.l.info.TypeOf(field.Type)
			var it ir.Type
			switch {
			case kernel:
				it = f.kernelParamType(t, id)
			default:
				it = f.helperParamType(t, id)
			}
			v := &ir.Var{Name: f.names.name(id.Name), Type: it, Class: ir.Param, Index: idx, Pos: f.pos(id)}
			idx++
			f.fn.Params = append(f.fn.Params, v)
			if obj := f.l.info.Defs[id]; obj != nil && it != nil {
				f.vars[obj] = v
			}
		}
	}
}

// kernelParamType is the IR type of a kernel parameter: a buffer or a scalar.
func (f *fnLower) kernelParamType(t types.Type, id *ast.Ident) ir.Type {
	switch u := t.Underlying().(type) {
	case *types.Slice:
		return f.l.bufferType(u, id.Pos(), id.Name)
	case *types.Basic:
		if u.Kind() == types.Bool {
			f.errorf(id, "pass a uint32 (0 or 1) and compare it with 0", "parameter %s of type bool is not allowed in a kernel", id.Name)
			return nil
		}
		return f.l.irType(t, id.Pos(), "parameter "+id.Name)
	}
	f.errorf(id, "pass buffers as slices of scalars and scalars as int32, uint32, float32, int64, uint64 or float64",
		"parameter %s of type %s is not allowed in a kernel", id.Name, t)
	return nil
}

// helperParamType is the IR type of a helper's parameter: a scalar, Float4 or array.
func (f *fnLower) helperParamType(t types.Type, id *ast.Ident) ir.Type {
	switch t.Underlying().(type) {
	case *types.Slice:
		f.errorf(id, "do it in the kernel, or pass the elements' values",
			"helper %s cannot take a buffer (parameter %s of type %s)", f.decl.Name.Name, id.Name, t)
		return nil
	case *types.Pointer:
		f.errorf(id, "do it in the kernel, or pass the values",
			"helper %s cannot take a pointer or a shared array (parameter %s of type %s)", f.decl.Name.Name, id.Name, t)
		return nil
	}
	return f.l.irType(t, id.Pos(), "parameter "+id.Name)
}

// results lowers the result list: none for a kernel, at most one for a
// helper (a named one becomes a local declared at the body's start).
func (f *fnLower) results(kernel bool, body *[]ir.Stmt) bool {
	res := f.decl.Type.Results
	if res == nil || len(res.List) == 0 {
		return true
	}
	if kernel {
		f.errorf(res, "write results to a buffer parameter", "a kernel returns nothing")
		return false
	}
	sig := f.obj.Type().(*types.Signature)
	if sig.Results().Len() > 1 {
		f.errorf(res, "return one value (a kernel.Float4 or an array holds several), or write one helper per result",
			"multiple results are not allowed in a kernel")
		return false
	}
	rv := sig.Results().At(0)
	t := f.l.irType(rv.Type(), res.Pos(), "result")
	if t == nil {
		return false
	}
	f.fn.Result = t
	if len(res.List[0].Names) == 1 && res.List[0].Names[0].Name != "_" {
		id := res.List[0].Names[0]
		v := &ir.Var{Name: f.names.name(id.Name), Type: t, Class: ir.Local, Pos: f.pos(id)}
		f.vars[f.l.info.Defs[id]] = v
		f.result = v
		*body = append(*body, &ir.Decl{Var: v, Pos: v.Pos})
	} else if len(res.List[0].Names) == 1 {
		v := &ir.Var{Name: f.names.name("result"), Type: t, Class: ir.Local, Pos: f.pos(res)}
		f.result = v
		*body = append(*body, &ir.Decl{Var: v, Pos: v.Pos})
	}
	return true
}

// newTemp declares a hidden local of type t.
func (f *fnLower) newTemp(name string, t ir.Type, p ir.Pos) *ir.Var {
	return &ir.Var{Name: f.names.name(name), Type: t, Class: ir.Local, Pos: p}
}

// varOf is the IR variable an identifier names; nil (with an error where the
// language forbids it) otherwise.
func (f *fnLower) varOf(id *ast.Ident) *ir.Var {
	obj := f.l.info.Uses[id]
	if obj == nil {
		obj = f.l.info.Defs[id]
	}
	v, ok := obj.(*types.Var)
	if !ok {
		return nil
	}
	if f.l.pkg != nil && v.Parent() == f.l.pkg.Scope() {
		f.errorf(id, "pass it as a parameter, or declare it const", "global variable %s is not allowed in a kernel", id.Name)
		return nil
	}
	return f.vars[v]
}
