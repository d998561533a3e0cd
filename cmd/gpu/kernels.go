package main

import (
	"context"
	"flag"
	"fmt"
	"go/build"
	"go/format"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/errors"
	"github.com/anygpu/gpu/kernel"
)

const kernelsUsage = `usage: gpu kernels [--dir DIR] [--var NAME] [--name NAME] [--out FILE]

Translates the kernels of a Go package (the functions marked //gpu:kernel)
into every dialect and writes them, with the compiled Go the CPU backend runs,
to one generated file of that package declaring

	var Kernels = gpu.Source{Name, CUDA, WGSL, SPIRVKernels, GLSL, GLSLES, MSL, Go, Params}

with, when kernels use subgroup operations, their subgroup variant in
Subgroups (WGSL, SPIR-V, GLSL and GLSL ES that keep the operations, which a
backend picks where the device has them).

Put this line in a file of the package and run go generate:

	//go:generate go run github.com/anygpu/gpu/cmd/gpu kernels

The package's .go files are read (not its _test.go files, nor the generated
file). A kernel is ordinary Go: slice parameters are buffers, scalar
parameters are scalars; it reads its thread and group through package kernel
(kernel.GlobalX(), kernel.Barrier(), kernel.Shared, atomics, math, Float4),
and may call helper functions of the same package. Maps, closures,
goroutines, channels, interfaces, defer, allocation, strings, recursion,
pointers and methods are errors. The whole language: go doc
github.com/anygpu/gpu/kernel

Errors print as file:line:col lines; the exit status is then 1.

flags:
  --dir DIR     the package's directory (default: the current one)
  --var NAME    the variable holding the gpu.Source (default Kernels)
  --name NAME   the Source's Name (default: the package name)
  --out FILE    the file written, in DIR (default <package>_kernels_gen.go)
`

// kernelFile is one Go source file of the package being translated.
type kernelFile struct {
	Name string // the path as errors show it
	Src  []byte
}

// kernelDialects is the translation of a package's kernels: each backend's
// text, the Go for the CPU backend and the kernels' parameters.
type kernelDialects struct {
	CUDA         string
	WGSL         string
	SPIRVKernels map[string][]byte
	GLSL         string
	GLSLES       string
	MSL          string
	// Go is declarations (no package clause, no imports): a group function
	// per kernel, named in GoFuncs by kernel, and what they call.
	Go        string
	GoImports []string
	GoFuncs   map[string]string
	Params    map[string][]gpu.ArgKind
	// Unsupported says, by kernel, why some dialects left it out.
	Unsupported map[string]string
	// Subgroups is the subgroup variant of the kernels with subgroup
	// operations (gpu.Source.Subgroups), nil when none has them.
	Subgroups *gpu.Source
}

// goKernelPrefix starts the names of the Go the file declares, so that they
// do not clash with the package's own.
const goKernelPrefix = "gpugen"

// translateKernels translates the kernels of files (one package, named
// name) through package kernel; tests replace it.
var translateKernels = func(name string, files []kernelFile, goPrefix string) (kernelDialects, error) {
	kf := make([]kernel.File, len(files))
	for i, f := range files {
		kf[i] = kernel.File{Name: f.Name, Src: string(f.Src)}
	}
	p, err := kernel.TranslatePackage(name, kf, goPrefix)
	if err != nil {
		if log := errors.LogOf(err); log != "" {
			return kernelDialects{}, fmt.Errorf("%s", log)
		}
		return kernelDialects{}, err
	}
	return kernelDialects{
		CUDA: p.Source.CUDA, WGSL: p.Source.WGSL, SPIRVKernels: p.Source.SPIRVKernels,
		GLSL: p.Source.GLSL, GLSLES: p.Source.GLSLES, MSL: p.Source.MSL,
		Go: p.Go, GoImports: p.GoImports, GoFuncs: p.GoFuncs, Params: p.Source.Params,
		Unsupported: p.Source.Unsupported, Subgroups: p.Source.Subgroups,
	}, nil
}

func runKernels(_ context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("kernels", flag.ContinueOnError)
	dir := fs.String("dir", ".", "the package's directory")
	varName := fs.String("var", "Kernels", "the variable holding the gpu.Source")
	name := fs.String("name", "", "the Source's Name (default: the package name)")
	out := fs.String("out", "", "the file written (default <package>_kernels_gen.go)")
	if code, ok := parseFlags(fs, kernelsUsage, args, stdout, stderr); !ok {
		return code
	}
	if !isGoIdent(*varName) {
		fmt.Fprintf(stderr, "gpu kernels: --var %q is not a Go identifier\n", *varName)
		return exitUsage
	}
	pkg, files, err := readKernelPackage(*dir, *out)
	if err != nil {
		fmt.Fprintf(stderr, "gpu kernels: %v\n", err)
		return exitFail
	}
	if *out == "" {
		*out = pkg + "_kernels_gen.go"
	}
	if *name == "" {
		*name = pkg
	}
	d, err := translateKernels(*name, files, goKernelPrefix)
	if err != nil {
		// One line per error, each file:line:col: message.
		for _, line := range strings.Split(strings.TrimRight(err.Error(), "\n"), "\n") {
			fmt.Fprintln(stderr, line)
		}
		return exitFail
	}
	if len(d.Params) == 0 {
		fmt.Fprintf(stderr, "gpu kernels: no //gpu:kernel function in package %s (%s)\n", pkg, *dir)
		return exitFail
	}
	src, err := renderKernelsFile(pkg, *varName, *name, d)
	if err != nil {
		fmt.Fprintf(stderr, "gpu kernels: %v\n", err)
		return exitFail
	}
	path := filepath.Join(*dir, *out)
	if err := os.WriteFile(path, src, 0o644); err != nil {
		fmt.Fprintf(stderr, "gpu kernels: %v\n", err)
		return exitFail
	}
	return exitOK
}

// readKernelPackage reads the package in dir: its name and its .go files
// for this platform, without test files and without the generated file out
// (or any file with the generated header).
func readKernelPackage(dir, out string) (string, []kernelFile, error) {
	bp, err := build.ImportDir(dir, 0)
	if err != nil {
		return "", nil, fmt.Errorf("reading the package in %s: %w", dir, err)
	}
	if out == "" {
		out = bp.Name + "_kernels_gen.go"
	}
	var files []kernelFile
	for _, f := range bp.GoFiles {
		if f == out {
			continue
		}
		path := filepath.Join(dir, f)
		src, err := os.ReadFile(path)
		if err != nil {
			return "", nil, fmt.Errorf("reading %s: %w", path, err)
		}
		if strings.HasPrefix(string(src), generatedHeader) {
			continue
		}
		files = append(files, kernelFile{Name: path, Src: src})
	}
	if len(files) == 0 {
		return "", nil, fmt.Errorf("no Go files in %s", dir)
	}
	return bp.Name, files, nil
}

// generatedHeader starts the file gpu kernels writes.
const generatedHeader = "// Code generated by gpu kernels. DO NOT EDIT.\n"

// renderKernelsFile is the generated file: the gpu.Source named name in
// variable varName of package pkg, then the Go group functions. The output
// is gofmt'd and the same for the same input.
func renderKernelsFile(pkg, varName, name string, d kernelDialects) ([]byte, error) {
	var b strings.Builder
	b.WriteString(generatedHeader + "\n")
	fmt.Fprintf(&b, "package %s\n\n", pkg)
	imports := map[string]bool{"github.com/anygpu/gpu/backend": true}
	for _, p := range d.GoImports {
		imports[p] = true
	}
	b.WriteString("import (\n")
	for _, p := range sortedKeys(imports) {
		fmt.Fprintf(&b, "\t%q\n", p)
	}
	b.WriteString(")\n\n")
	fmt.Fprintf(&b, "// %s holds the kernels of package %s in every dialect, translated by gpu kernels.\n", varName, pkg)
	b.WriteString("// It is a gpu.Source (an alias of backend.Source, which this file names so\n")
	b.WriteString("// that package gpu's own tests can use generated kernels).\n")
	fmt.Fprintf(&b, "var %s = backend.Source{\n", varName)
	fmt.Fprintf(&b, "Name: %s,\n", strconv.Quote(name))
	for _, f := range []struct{ field, text string }{
		{"CUDA", d.CUDA}, {"WGSL", d.WGSL}, {"GLSL", d.GLSL}, {"GLSLES", d.GLSLES}, {"MSL", d.MSL},
	} {
		if f.text != "" {
			fmt.Fprintf(&b, "%s: %s,\n", f.field, goStringLiteral(f.text))
		}
	}
	writeSPIRVKernels(&b, d.SPIRVKernels)
	if len(d.GoFuncs) > 0 {
		b.WriteString("Go: map[string]backend.GoKernel{\n")
		for _, k := range sortedKeys(d.GoFuncs) {
			fmt.Fprintf(&b, "%q: %s,\n", k, d.GoFuncs[k])
		}
		b.WriteString("},\n")
	}
	b.WriteString("Params: map[string][]backend.ArgKind{\n")
	for _, k := range sortedKeys(d.Params) {
		kinds := make([]string, len(d.Params[k]))
		for i, kind := range d.Params[k] {
			ident, err := argKindIdent(kind)
			if err != nil {
				return nil, fmt.Errorf("kernel %s: %w", k, err)
			}
			kinds[i] = ident
		}
		fmt.Fprintf(&b, "%q: {%s},\n", k, strings.Join(kinds, ", "))
	}
	b.WriteString("},\n")
	if len(d.Unsupported) > 0 {
		b.WriteString("Unsupported: map[string]string{\n")
		for _, k := range sortedKeys(d.Unsupported) {
			fmt.Fprintf(&b, "%q: %q,\n", k, d.Unsupported[k])
		}
		b.WriteString("},\n")
	}
	if sg := d.Subgroups; sg != nil {
		b.WriteString("Subgroups: &backend.Source{\n")
		fmt.Fprintf(&b, "Name: %s,\n", strconv.Quote(sg.Name))
		for _, f := range []struct{ field, text string }{{"WGSL", sg.WGSL}, {"GLSL", sg.GLSL}, {"GLSLES", sg.GLSLES}} {
			if f.text != "" {
				fmt.Fprintf(&b, "%s: %s,\n", f.field, goStringLiteral(f.text))
			}
		}
		writeSPIRVKernels(&b, sg.SPIRVKernels)
		b.WriteString("},\n")
	}
	b.WriteString("}\n\n")
	b.WriteString(d.Go)
	src, err := format.Source([]byte(b.String()))
	if err != nil {
		return nil, fmt.Errorf("the generated file does not parse (a translator bug): %w", err)
	}
	return src, nil
}

// writeSPIRVKernels writes the SPIRVKernels field of modules, in kernel
// order (nothing when there are none).
func writeSPIRVKernels(b *strings.Builder, modules map[string][]byte) {
	if len(modules) == 0 {
		return
	}
	b.WriteString("SPIRVKernels: map[string][]byte{\n")
	for _, k := range sortedKeys(modules) {
		fmt.Fprintf(b, "%q: []byte(%s),\n", k, strconv.Quote(string(modules[k])))
	}
	b.WriteString("},\n")
}

// argKindIdent is the package backend constant of an argument kind (package
// gpu's Kind constants are the same values).
func argKindIdent(k gpu.ArgKind) (string, error) {
	switch k {
	case gpu.KindBuffer:
		return "backend.ArgBuffer", nil
	case gpu.KindF32:
		return "backend.ArgF32", nil
	case gpu.KindF64:
		return "backend.ArgF64", nil
	case gpu.KindI32:
		return "backend.ArgI32", nil
	case gpu.KindU32:
		return "backend.ArgU32", nil
	case gpu.KindI64:
		return "backend.ArgI64", nil
	case gpu.KindU64:
		return "backend.ArgU64", nil
	}
	return "", fmt.Errorf("unknown argument kind %v", k)
}

// goStringLiteral is text as a Go string literal: a raw one where it can be
// (readable, and diffs of the generated file stay line by line).
func goStringLiteral(text string) string {
	if utf8.ValidString(text) && !strings.ContainsAny(text, "`\r\x00\uFEFF") {
		return "`" + text + "`"
	}
	return strconv.Quote(text)
}

// isGoIdent reports whether s is a Go identifier.
func isGoIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		letter := r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z')
		if !letter && (i == 0 || r < '0' || r > '9') {
			return false
		}
	}
	return true
}

// sortedKeys returns m's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
