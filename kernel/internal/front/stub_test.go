package front

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// exportedAPI is every exported top-level identifier of the files with its
// declaration's signature (a function's type parameters, parameters and
// results; a type's definition; printed by go/printer).
func exportedAPI(t *testing.T, fset *token.FileSet, files []*ast.File) map[string]string {
	t.Helper()
	api := map[string]string{}
	print := func(n any) string {
		var b bytes.Buffer
		require.NoError(t, printer.Fprint(&b, fset, n))
		return strings.Join(strings.Fields(b.String()), " ")
	}
	for _, f := range files {
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil && d.Name.IsExported() {
					api[d.Name.Name] = "func " + print(d.Type)
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						if s.Name.IsExported() {
							api[s.Name.Name] = "type " + print(s.Type)
						}
					case *ast.ValueSpec:
						for _, n := range s.Names {
							if n.IsExported() {
								api[n.Name] = d.Tok.String()
							}
						}
					}
				}
			}
		}
	}
	return api
}

// TestStub checks that the embedded stub declares exactly the exported
// identifiers of package kernel, with the same signatures.
func TestStub(t *testing.T) {
	fset := token.NewFileSet()
	names, err := filepath.Glob("../../*.go")
	require.NoError(t, err)
	var real []*ast.File
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		require.NoError(t, err)
		f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
		require.NoError(t, err)
		real = append(real, f)
	}
	require.NotEmpty(t, real, "the sources of package kernel")
	stub, err := parseStub(fset)
	require.NoError(t, err)
	want := exportedAPI(t, fset, real)
	require.Contains(t, want, "GlobalX", "package kernel's API was read")
	require.Equal(t, want, exportedAPI(t, fset, []*ast.File{stub}))
	_, err = checkStub(token.NewFileSet())
	require.NoError(t, err)
}
