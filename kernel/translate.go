package kernel

import (
	"go/parser"
	"go/token"
	"strings"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/errors"
	"github.com/anygpu/gpu/kernel/internal/build"
	"github.com/anygpu/gpu/kernel/internal/front"
	"github.com/anygpu/gpu/kernel/internal/interp"
	"github.com/anygpu/gpu/kernel/internal/opt"
)

// Translate translates the text of one Go source file, holding kernels
// marked //gpu:kernel and the helpers they call, into a Source that every
// backend compiles: CUDA C++, WGSL, SPIR-V, GLSL, GLSL ES and MSL, the
// subgroup variant of the kernels with subgroup operations
// (Source.Subgroups: WGSL, SPIR-V, GLSL and GLSL ES that keep them), and,
// for the CPU backend, a closure-compiled form of the kernels (no Go
// compiler is needed at run time). Source.Params comes from the kernels' signatures and
// Source.Name from the file's package name.
//
// A construct the language does not accept is an error of category
// Compilation whose text lists each problem as file:line:col (the file is
// named "kernel.go"), what is not allowed and what to write instead. Build
// time translation (go generate with `gpu kernels`) gives the same dialects
// with compiled Go for the CPU.
//
// The result is a gpu.Source, which is backend.Source by another name: this
// package names the backend one so that it does not import package gpu
// (whose own tests use kernels written in this language).
func Translate(goSource string) (backend.Source, error) {
	m, err := front.Load([]front.File{{Name: "kernel.go", Src: goSource}})
	if err != nil {
		return backend.Source{}, translateError(err)
	}
	opt.Module(m) // constant loops unrolled, for every dialect and the CPU
	src, _, err := build.Source(packageName(goSource), m)
	if err != nil {
		return backend.Source{}, translateError(err)
	}
	if err := opt.Portable(m); err != nil { // done by build.Source already: subgroups of one, float16 in words
		return backend.Source{}, translateError(err)
	}
	if src.Go, err = interp.Compile(m); err != nil {
		return backend.Source{}, translateError(err)
	}
	return src, nil
}

// translateError makes a translation failure a Compilation error whose
// message is its first line and whose Log is all of it.
func translateError(err error) error {
	text := err.Error()
	first, _, _ := strings.Cut(text, "\n")
	return &errors.Error{Backend: "kernel", Op: "translate", Category: errors.Compilation, Msg: first, Log: text, Err: err,
		Hint: "the kernel language is the Go subset listed in the kernel package's doc (go doc github.com/anygpu/gpu/kernel); the log lists every problem"}
}

// packageName is the name in a Go file's package clause ("kernels" when it
// has none that parses: the front end has already accepted the file).
func packageName(src string) string {
	f, err := parser.ParseFile(token.NewFileSet(), "", src, parser.PackageClauseOnly)
	if err != nil || f.Name == nil {
		return "kernels"
	}
	return f.Name.Name
}
