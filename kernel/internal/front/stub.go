package front

import (
	_ "embed"
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"go/types"
)

// kernelStub is the exported API of package kernel (kernelstub.txt).
//
//go:embed kernelstub.txt
var kernelStub string

// stubFile is the stub's file name in positions.
const stubFile = "kernel/stub.go"

// scannerErrorList is go/parser's error list.
type scannerErrorList = scanner.ErrorList

// parseStub parses the stub of package kernel.
func parseStub(fset *token.FileSet) (*ast.File, error) {
	f, err := parser.ParseFile(fset, stubFile, kernelStub, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return nil, fmt.Errorf("parse the stub of package kernel: %w", err)
	}
	return f, nil
}

// checkStub type-checks the stub of package kernel into a package with the
// real one's path.
func checkStub(fset *token.FileSet) (*types.Package, error) {
	f, err := parseStub(fset)
	if err != nil {
		return nil, err
	}
	conf := types.Config{}
	pkg, err := conf.Check(kernelPath, fset, []*ast.File{f}, nil)
	if err != nil {
		return nil, fmt.Errorf("type-check the stub of package kernel: %w", err)
	}
	return pkg, nil
}
