package front

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"strconv"
	"strings"

	"github.com/anygpu/gpu/kernel/internal/ir"
)

// loader is one Load: the parsed and type-checked package, the functions
// lowered so far and the errors found.
type loader struct {
	fset      *token.FileSet
	files     []*ast.File
	info      *types.Info
	pkg       *types.Package
	kernelPkg *types.Package            // the stub of package kernel, once imported
	standIns  map[string]*types.Package // the empty stand-ins of the other imports
	typeErrs  []types.Error             // every type error, those that matter or not (scope.go)
	errs      ErrorList

	decls   map[*types.Func]*ast.FuncDecl // the package's functions with bodies
	kernels map[*types.Func]bool          // those marked //gpu:kernel
	funcs   map[*types.Func]*funcState    // lowered, or being lowered
	helpers []*ir.Func                    // in post order: callees before callers
	stack   []*types.Func                 // the helpers being lowered, for recursion
	// funcNames are the names of the package's functions, which locals must
	// not shadow; helperNames are the names given to helpers so far.
	funcNames   map[string]bool
	helperNames map[string]bool
	float4      *ir.Vec
}

// funcState is a function's lowering.
type funcState struct {
	fn     *ir.Func
	done   bool // lowered (maybe with errors)
	failed bool
}

func newLoader() *loader {
	return &loader{
		fset:        token.NewFileSet(),
		standIns:    map[string]*types.Package{},
		decls:       map[*types.Func]*ast.FuncDecl{},
		kernels:     map[*types.Func]bool{},
		funcs:       map[*types.Func]*funcState{},
		funcNames:   map[string]bool{},
		helperNames: map[string]bool{},
		float4:      &ir.Vec{Elem: ir.F32, N: 4},
	}
}

// kernelPath is the import path of the intrinsics package.
const kernelPath = "github.com/anygpu/gpu/kernel"

// pos converts a source position.
func (l *loader) pos(p token.Pos) ir.Pos {
	q := l.fset.Position(p)
	return ir.Pos{File: q.Filename, Line: q.Line, Col: q.Column}
}

// errorf records an error at p.
func (l *loader) errorf(p token.Pos, hint, format string, args ...any) {
	l.errs = append(l.errs, &Error{Pos: l.pos(p), Msg: fmt.Sprintf(format, args...), Hint: hint})
}

// load does Load's work; errors land in l.errs.
func (l *loader) load(files []File) *ir.Module {
	if len(files) == 0 {
		l.errs = append(l.errs, &Error{Msg: "no files to load", Hint: "pass the Go files of one package"})
		return nil
	}
	for _, f := range files {
		af, err := parser.ParseFile(l.fset, f.Name, f.Src, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			l.parseErrors(f.Name, err)
			continue
		}
		l.files = append(l.files, af)
	}
	if len(l.errs) > 0 {
		return nil
	}
	if !l.checkPackageNames() || !l.checkImports() {
		return nil
	}
	if !l.typeCheck() {
		return nil
	}
	var kernels []*ast.FuncDecl
	for _, af := range l.files {
		for _, d := range af.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok {
				continue
			}
			obj, _ := l.info.Defs[fd.Name].(*types.Func)
			if obj == nil {
				continue
			}
			if fd.Recv == nil {
				l.funcNames[fd.Name.Name] = true
			}
			if fd.Body != nil {
				l.decls[obj] = fd
			}
			if isKernel(fd) && fd.Body == nil {
				l.errorf(fd.Name.Pos(), "write the kernel's body in Go", "kernel %s has no body", fd.Name.Name)
				continue
			}
			if isKernel(fd) {
				l.kernels[obj] = true
				kernels = append(kernels, fd)
			}
		}
	}
	if len(kernels) == 0 && len(l.errs) == 0 {
		l.errorf(l.files[0].Package, "mark a kernel with a line //gpu:kernel directly above its func",
			"no function is marked //gpu:kernel")
		return nil
	}
	if !l.checkUsed(l.usedDecls(kernels)) {
		return nil
	}
	var ks []*ir.Func
	seen := map[string]bool{}
	for _, fd := range kernels {
		if reserved(fd.Name.Name) {
			l.errorf(fd.Name.Pos(), "rename it", "kernel name %s is reserved in a backend's language", fd.Name.Name)
		}
		if seen[fd.Name.Name] {
			continue
		}
		seen[fd.Name.Name] = true
		obj := l.info.Defs[fd.Name].(*types.Func)
		fn := l.lowerFunc(obj, fd, true)
		if fn != nil {
			ks = append(ks, fn)
			ks = append(ks, l.lowerVariants(obj, fd)...)
		} else {
			l.variants(fd, true) // reports malformed lines all the same
		}
	}
	if len(l.errs) > 0 {
		return nil
	}
	m := &ir.Module{Funcs: append(append([]*ir.Func{}, l.helpers...), ks...)}
	for _, fn := range m.Funcs {
		l.checkFloat16(fn)
		computeFeatures(fn)
	}
	for _, fn := range ks {
		l.checkUniform(fn)
	}
	if len(l.errs) > 0 {
		return nil
	}
	return m
}

// isKernel reports whether the doc comment of fd holds the line //gpu:kernel.
func isKernel(fd *ast.FuncDecl) bool {
	if fd.Doc == nil {
		return false
	}
	for _, c := range fd.Doc.List {
		if strings.TrimSpace(c.Text) == "//gpu:kernel" {
			return true
		}
	}
	return false
}

// maxThreadsDirective promises the most threads per group a kernel is
// launched with: //gpu:maxthreads N.
const maxThreadsDirective = "//gpu:maxthreads"

// maxThreadsLimit is the largest N //gpu:maxthreads takes: no API launches
// more threads per group.
const maxThreadsLimit = 1024

// maxThreads reads fd's //gpu:maxthreads N line (0 when it has none) and
// reports a malformed one, or one on a function that is not a kernel.
func (l *loader) maxThreads(fd *ast.FuncDecl, kernel bool) int {
	if fd.Doc == nil {
		return 0
	}
	for _, c := range fd.Doc.List {
		text := strings.TrimSpace(c.Text)
		rest, ok := strings.CutPrefix(text, maxThreadsDirective)
		if !ok || (rest != "" && rest[0] != ' ' && rest[0] != '\t') {
			continue
		}
		if !kernel {
			l.errorf(c.Pos(), "put it on the kernel that calls "+fd.Name.Name, "%s on helper %s: only kernels are launched", maxThreadsDirective, fd.Name.Name)
			return 0
		}
		n, err := strconv.Atoi(strings.TrimSpace(rest))
		if err != nil || n < 1 || n > maxThreadsLimit {
			l.errorf(c.Pos(), fmt.Sprintf("write %s N with N from 1 to %d", maxThreadsDirective, maxThreadsLimit),
				"malformed directive %q", text)
			return 0
		}
		return n
	}
	return 0
}

// minGroupsDirective asks CUDA to fit N groups of the kernel on a compute
// unit at once: //gpu:mingroups N, under //gpu:maxthreads.
const minGroupsDirective = "//gpu:mingroups"

// minGroupsLimit is the largest N //gpu:mingroups takes (a compute unit
// holds at most 32 groups on today's GPUs).
const minGroupsLimit = 32

// minGroups reads fd's //gpu:mingroups N line (0 when it has none) and
// reports a malformed one, one on a helper, or one on a kernel without
// //gpu:maxthreads (max is that directive's N).
func (l *loader) minGroups(fd *ast.FuncDecl, kernel bool, max int) int {
	if fd.Doc == nil {
		return 0
	}
	for _, c := range fd.Doc.List {
		text := strings.TrimSpace(c.Text)
		rest, ok := strings.CutPrefix(text, minGroupsDirective)
		if !ok || (rest != "" && rest[0] != ' ' && rest[0] != '\t') {
			continue
		}
		if !kernel {
			l.errorf(c.Pos(), "put it on the kernel that calls "+fd.Name.Name, "%s on helper %s: only kernels are launched", minGroupsDirective, fd.Name.Name)
			return 0
		}
		n, err := strconv.Atoi(strings.TrimSpace(rest))
		if err != nil || n < 1 || n > minGroupsLimit {
			l.errorf(c.Pos(), fmt.Sprintf("write %s N with N from 1 to %d", minGroupsDirective, minGroupsLimit),
				"malformed directive %q", text)
			return 0
		}
		if max == 0 {
			l.errorf(c.Pos(), "add "+maxThreadsDirective+" N above it: the groups fit by their size", "%s without %s", minGroupsDirective, maxThreadsDirective)
			return 0
		}
		return n
	}
	return 0
}

// parseErrors records the errors of go/parser.
func (l *loader) parseErrors(name string, err error) {
	if list, ok := err.(scannerErrorList); ok {
		for _, e := range list {
			l.errs = append(l.errs, &Error{Pos: ir.Pos{File: e.Pos.Filename, Line: e.Pos.Line, Col: e.Pos.Column},
				Msg: e.Msg, Hint: "fix the Go syntax"})
		}
		return
	}
	l.errs = append(l.errs, &Error{Pos: ir.Pos{File: name}, Msg: err.Error()})
}

// checkPackageNames reports a file whose package clause differs from the
// first file's.
func (l *loader) checkPackageNames() bool {
	ok := true
	for _, af := range l.files[1:] {
		if af.Name.Name != l.files[0].Name.Name {
			l.errorf(af.Name.Pos(), "pass the files of one package",
				"package %s is not package %s of the other files", af.Name.Name, l.files[0].Name.Name)
			ok = false
		}
	}
	return ok
}

// checkImports reports a dot or blank import of package kernel. Any other
// import is allowed: the files may hold ordinary Go code next to the
// kernels (a kernel itself uses no other package: checkUsed).
func (l *loader) checkImports() bool {
	ok := true
	for _, af := range l.files {
		for _, imp := range af.Imports {
			path, err := strconv.Unquote(imp.Path.Value)
			if err != nil || path != kernelPath || imp.Name == nil {
				continue
			}
			if imp.Name.Name == "." || imp.Name.Name == "_" {
				l.errorf(imp.Pos(), `import it by name: import "`+kernelPath+`"`,
					"import %s of package kernel is not allowed", imp.Name.Name)
				ok = false
			}
		}
	}
	return ok
}

// typeCheck runs go/types over the files, with the stub of package kernel.
func (l *loader) typeCheck() bool {
	l.info = &types.Info{
		Types:      map[ast.Expr]types.TypeAndValue{},
		Defs:       map[*ast.Ident]types.Object{},
		Uses:       map[*ast.Ident]types.Object{},
		Selections: map[*ast.SelectorExpr]*types.Selection{},
		Instances:  map[*ast.Ident]types.Instance{},
		Implicits:  map[ast.Node]types.Object{},
	}
	conf := types.Config{
		Importer: importerFunc(l.importPkg),
		Error: func(err error) {
			if te, ok := err.(types.Error); ok {
				l.typeErrs = append(l.typeErrs, te)
			}
		},
	}
	n := len(l.errs)
	pkg, _ := conf.Check(l.files[0].Name.Name, l.fset, l.files, l.info)
	l.pkg = pkg
	return len(l.errs) == n && pkg != nil
}

// importerFunc adapts a function to types.Importer.
type importerFunc func(path string) (*types.Package, error)

func (f importerFunc) Import(path string) (*types.Package, error) { return f(path) }

// importPkg imports package kernel from its embedded stub, and any other
// path as a stand-in: an empty, complete package named after the path's
// last element (a major version suffix /vN skipped), so that ordinary code
// next to the kernels type-checks with errors that checkUsed ignores. An
// error loading the stub is recorded in l.errs (go/types would report it at
// the import, outside the kernels).
func (l *loader) importPkg(path string) (*types.Package, error) {
	if path != kernelPath {
		if pkg := l.standIns[path]; pkg != nil {
			return pkg, nil
		}
		pkg := types.NewPackage(path, standInName(path))
		pkg.MarkComplete()
		l.standIns[path] = pkg
		return pkg, nil
	}
	if l.kernelPkg != nil {
		return l.kernelPkg, nil
	}
	pkg, err := checkStub(l.fset)
	if err != nil {
		l.errs = append(l.errs, &Error{Msg: err.Error()})
		return nil, err
	}
	l.kernelPkg = pkg
	return pkg, nil
}

// standInName is the package name of a stand-in for path: its last element,
// or the one before a major version suffix (math/rand/v2 is rand).
func standInName(path string) string {
	elems := strings.Split(path, "/")
	name := elems[len(elems)-1]
	if len(elems) > 1 && len(name) > 1 && name[0] == 'v' && strings.Trim(name[1:], "0123456789") == "" {
		name = elems[len(elems)-2]
	}
	return name
}
