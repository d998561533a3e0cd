package kernel

import (
	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/kernel/internal/build"
	"github.com/anygpu/gpu/kernel/internal/emit/gosrc"
	"github.com/anygpu/gpu/kernel/internal/front"
	"github.com/anygpu/gpu/kernel/internal/opt"
)

// File is one Go source file of a package, for TranslatePackage.
type File struct {
	Name string // the path errors name
	Src  string
}

// Package is the translation of one package's kernels at build time: what
// `gpu kernels` (go generate) writes into the package.
type Package struct {
	// Source holds every dialect but Go, Params and the Name given.
	Source backend.Source
	// Go is Go declarations (no package clause, no imports): one group
	// function per kernel, named in GoFuncs by kernel, and the helpers they
	// call. The CPU backend runs them as compiled Go.
	Go        string
	GoImports []string          // the import paths Go needs, sorted
	GoFuncs   map[string]string // kernel → group function
	// Unsupported lists the kernels a dialect cannot express and why, one
	// "dialect: kernel: reason" per line ("" when none).
	Unsupported string
}

// TranslatePackage translates the kernels (functions marked //gpu:kernel)
// of one package's files, and the helpers they call, into every dialect,
// with compiled Go for the CPU backend whose names start with goPrefix.
// Errors are as Translate's.
func TranslatePackage(name string, files []File, goPrefix string) (*Package, error) {
	ff := make([]front.File, len(files))
	for i, f := range files {
		ff[i] = front.File{Name: f.Name, Src: f.Src}
	}
	m, err := front.Load(ff)
	if err != nil {
		return nil, translateError(err)
	}
	opt.Module(m) // constant loops unrolled, for every dialect and the CPU
	src, unsupported, err := build.Source(name, m)
	if err != nil {
		return nil, translateError(err)
	}
	if err := opt.Portable(m); err != nil { // done by build.Source already: subgroups of one, float16 in words
		return nil, translateError(err)
	}
	g, err := gosrc.Emit(m, goPrefix)
	if err != nil {
		return nil, translateError(err)
	}
	return &Package{Source: src, Go: g.Code, GoImports: g.Imports, GoFuncs: g.Funcs, Unsupported: unsupported.String()}, nil
}
