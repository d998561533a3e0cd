package mslcheck_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/anygpu/gpu/backend/metal/mslcheck"
	"github.com/anygpu/gpu/kernels"
)

// snippet is one MSL source found in the repository.
type snippet struct {
	src    string
	labels []string // where it was found: file:line (Source name or const name)
	broken bool     // deliberately broken: it must fail the check
}

// brokenName marks a deliberately broken source: a Source literal whose Name
// is "broken" (the conformance suite's compile-error source) or a constant
// whose name contains "broken".
var brokenName = regexp.MustCompile(`(?i)broken`)

// TestRepositoryMSL finds every MSL source in the module's Go files — the
// value of every MSL field of a composite literal (backend.Source, gpu.Source;
// a field that copies another's MSL field, x.MSL, is checked at that one)
// and every package-level string constant with "msl" in its name that
// includes metal_stdlib — and checks them all: each must parse, except the
// deliberately broken ones, which must fail to.
func TestRepositoryMSL(t *testing.T) {
	needClang(t)
	root := moduleRoot(t)
	snippets := findMSL(t, root)
	var names []string
	sawBuiltin, sawBroken := false, false
	for _, s := range snippets {
		names = append(names, strings.Join(s.labels, ", "))
		sawBuiltin = sawBuiltin || slices.ContainsFunc(s.labels, isBuiltinMSL)
		sawBroken = sawBroken || s.broken
	}
	t.Logf("%d MSL sources:\n  %s", len(snippets), strings.Join(names, "\n  "))
	if !sawBuiltin {
		t.Error("the scan did not find the built-in kernels' MSL (kernels/internal/ops/ops_kernels_gen.go): the scan is broken")
	}
	if !sawBroken {
		t.Error("the scan found no deliberately broken MSL (backendtest's compile-error source): the scan is broken")
	}
	for _, s := range snippets {
		label := strings.Join(s.labels, ", ")
		t.Run(label, func(t *testing.T) {
			err := mslcheck.Check(ctxT(t), label, s.src)
			switch {
			case s.broken && err == nil:
				t.Fatalf("%s is meant to be broken but parses", label)
			case s.broken:
				t.Logf("fails to parse, as it should: %v", err)
			case err != nil:
				t.Fatal(err)
			}
		})
	}
}

// isBuiltinMSL reports whether label is where the built-in kernels' MSL
// stands: the Source literal of their generated file (the text before
// kernels.Source renames three entry points).
func isBuiltinMSL(label string) bool {
	return strings.HasPrefix(label, "kernels/internal/ops/ops_kernels_gen.go:") &&
		strings.HasSuffix(label, " (Source "+strconv.Quote(kernels.SourceName)+")")
}

func moduleRoot(t *testing.T) string {
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = parent
	}
}

// findMSL parses every Go file under root and collects the MSL sources.
func findMSL(t *testing.T, root string) []*snippet {
	byDir := map[string][]*ast.File{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "vendor") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return fmt.Errorf("parsing %s: %w", path, err)
		}
		byDir[filepath.Dir(path)] = append(byDir[filepath.Dir(path)], f)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]*snippet{}
	add := func(src, label string, broken bool) {
		if strings.TrimSpace(src) == "" {
			return
		}
		s, ok := found[src]
		if !ok {
			s = &snippet{src: src}
			found[src] = s
		}
		s.labels = append(s.labels, label)
		s.broken = s.broken || broken
	}
	for _, files := range byDir {
		consts := packageConsts(files)
		for _, f := range files {
			rel := func(p token.Pos) string {
				pos := fset.Position(p)
				r, err := filepath.Rel(root, pos.Filename)
				if err != nil {
					r = pos.Filename
				}
				return fmt.Sprintf("%s:%d", filepath.ToSlash(r), pos.Line)
			}
			ast.Inspect(f, func(n ast.Node) bool {
				lit, ok := n.(*ast.CompositeLit)
				if !ok {
					return true
				}
				var msl ast.Expr
				name := ""
				for _, el := range lit.Elts {
					kv, ok := el.(*ast.KeyValueExpr)
					if !ok {
						continue
					}
					key, ok := kv.Key.(*ast.Ident)
					if !ok {
						continue
					}
					switch key.Name {
					case "MSL":
						msl = kv.Value
					case "Name":
						if v, ok := evalString(kv.Value, consts); ok {
							name = v
						}
					}
				}
				if msl == nil {
					return true
				}
				if copiesMSLField(msl) {
					return true // checked where the copied field is written
				}
				src, ok := evalString(msl, consts)
				if !ok {
					t.Errorf("%s: an MSL field whose value the scan cannot evaluate; make it a string constant", rel(msl.Pos()))
					return true
				}
				label := rel(msl.Pos())
				if name != "" {
					label += " (Source " + strconv.Quote(name) + ")"
				}
				add(src, label, name == "broken")
				return true
			})
			for _, decl := range f.Decls {
				gd, ok := decl.(*ast.GenDecl)
				if !ok || gd.Tok != token.CONST {
					continue
				}
				for _, spec := range gd.Specs {
					vs := spec.(*ast.ValueSpec)
					for _, id := range vs.Names {
						v, ok := consts[id.Name]
						if !ok || !strings.Contains(strings.ToLower(id.Name), "msl") || !strings.Contains(v, "metal_stdlib") {
							continue
						}
						add(v, rel(id.Pos())+" (const "+id.Name+")", brokenName.MatchString(id.Name))
					}
				}
			}
		}
	}
	out := make([]*snippet, 0, len(found))
	for _, s := range found {
		sort.Strings(s.labels)
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].labels[0] < out[j].labels[0] })
	return out
}

// copiesMSLField reports whether e reads another value's MSL field
// ("p.Source.MSL"): a copy of a source the scan finds where it is written.
func copiesMSLField(e ast.Expr) bool {
	sel, ok := e.(*ast.SelectorExpr)
	return ok && sel.Sel.Name == "MSL"
}

// packageConsts evaluates the string constants of one package's files.
func packageConsts(files []*ast.File) map[string]string {
	exprs := map[string]ast.Expr{}
	for _, f := range files {
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, id := range vs.Names {
					if i < len(vs.Values) {
						exprs[id.Name] = vs.Values[i]
					}
				}
			}
		}
	}
	out := map[string]string{}
	for changed := true; changed; { // resolve constants defined from constants
		changed = false
		for name, e := range exprs {
			if _, done := out[name]; done {
				continue
			}
			if v, ok := evalString(e, out); ok {
				out[name] = v
				changed = true
			}
		}
	}
	return out
}

// evalString evaluates a constant string expression: literals, +, parentheses
// and constants of the same package.
func evalString(e ast.Expr, consts map[string]string) (string, bool) {
	switch e := e.(type) {
	case *ast.BasicLit:
		if e.Kind != token.STRING {
			return "", false
		}
		s, err := strconv.Unquote(e.Value)
		return s, err == nil
	case *ast.ParenExpr:
		return evalString(e.X, consts)
	case *ast.BinaryExpr:
		if e.Op != token.ADD {
			return "", false
		}
		x, ok1 := evalString(e.X, consts)
		y, ok2 := evalString(e.Y, consts)
		return x + y, ok1 && ok2
	case *ast.Ident:
		v, ok := consts[e.Name]
		return v, ok
	}
	return "", false
}
