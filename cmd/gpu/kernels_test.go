package main

import (
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/anygpu/gpu"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeKernels stands in for the translator: it records the files it got and
// returns d (or err).
func fakeKernels(t *testing.T, d kernelDialects, err error) *[]kernelFile {
	t.Helper()
	var got []kernelFile
	saved := translateKernels
	translateKernels = func(_ string, files []kernelFile, prefix string) (kernelDialects, error) {
		assert.Equal(t, goKernelPrefix, prefix)
		got = append(got, files...)
		return d, err
	}
	t.Cleanup(func() { translateKernels = saved })
	return &got
}

// kernelPackage writes a package with the given files into a temp dir.
func kernelPackage(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, src := range files {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644))
	}
	return dir
}

var sampleDialects = kernelDialects{
	CUDA:         "extern \"C\" __global__ void Saxpy() {}\n",
	WGSL:         "// a `quoted` word forces a quoted literal\n@compute fn Saxpy() {}\n",
	SPIRVKernels: map[string][]byte{"Saxpy": {0x03, 0x02, 0x23, 0x07, 0x00, 0xff, '`', '"'}, "Other": {1}},
	GLSL:         "#version 430\n",
	GLSLES:       "#version 310 es\n",
	MSL:          "#include <metal_stdlib>\nkernel void Saxpy() {}\n",
	Go:           "func gpugenSaxpy(g gpu.Group, args []gpu.KernelArg) { _ = kernel.Sqrt[float32] }\n",
	GoImports:    []string{"github.com/anygpu/gpu/kernel", "github.com/anygpu/gpu"},
	GoFuncs:      map[string]string{"Saxpy": "gpugenSaxpy"},
	Params:       map[string][]gpu.ArgKind{"Saxpy": {gpu.KindBuffer, gpu.KindBuffer, gpu.KindU32, gpu.KindF32}, "Other": {gpu.KindI64}},
}

// sourceFields parses a generated file and returns the gpu.Source's fields
// that are string or []byte literals, unquoted, by field (SPIR-V by kernel).
func sourceFields(t *testing.T, src []byte) map[string]string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "gen.go", src, 0)
	require.NoError(t, err)
	fields := map[string]string{}
	ast.Inspect(f, func(n ast.Node) bool {
		kv, ok := n.(*ast.KeyValueExpr)
		if !ok {
			return true
		}
		var key string
		switch k := kv.Key.(type) {
		case *ast.Ident:
			key = k.Name
		case *ast.BasicLit:
			key, _ = strconv.Unquote(k.Value)
		}
		v := kv.Value
		if call, ok := v.(*ast.CallExpr); ok && len(call.Args) == 1 { // []byte("...")
			v = call.Args[0]
		}
		if lit, ok := v.(*ast.BasicLit); ok && lit.Kind == token.STRING {
			s, err := strconv.Unquote(lit.Value)
			require.NoError(t, err)
			fields[key] = s
		}
		return true
	})
	return fields
}

func TestKernelsWritesSource(t *testing.T) {
	dir := kernelPackage(t, map[string]string{
		"saxpy.go":           "package lin\n\n//gpu:kernel\nfunc Saxpy(y, x []float32, n uint32, a float32) {}\n",
		"other.go":           "package lin\n",
		"saxpy_test.go":      "package lin\n",
		"lin_kernels_gen.go": generatedHeader + "\npackage lin\n",
		"ignored.go":         "//go:build ignore\n\npackage main\n",
	})
	got := fakeKernels(t, sampleDialects, nil)
	code, stdout, stderr := runArgs(t, "kernels", "--dir", dir)
	require.Equal(t, exitOK, code, stderr)
	assert.Empty(t, stdout)
	var names []string
	for _, f := range *got {
		names = append(names, filepath.Base(f.Name))
	}
	assert.Equal(t, []string{"other.go", "saxpy.go"}, names, "the translator gets the package's files, without tests and the generated file")

	src, err := os.ReadFile(filepath.Join(dir, "lin_kernels_gen.go"))
	require.NoError(t, err)
	text := string(src)
	assert.True(t, strings.HasPrefix(text, generatedHeader), text)
	assert.Contains(t, text, "\npackage lin\n")
	assert.Contains(t, text, "var Kernels = backend.Source{")
	assert.Contains(t, text, `"Saxpy": {backend.ArgBuffer, backend.ArgBuffer, backend.ArgU32, backend.ArgF32},`)
	assert.Contains(t, text, `"Saxpy": gpugenSaxpy,`)
	assert.Contains(t, text, "\"github.com/anygpu/gpu/kernel\"\n")
	assert.Equal(t, 1, strings.Count(text, "\"github.com/anygpu/gpu\"\n"), "imports are deduplicated")
	fields := sourceFields(t, src)
	for field, want := range map[string]string{
		"Name": "lin", "CUDA": sampleDialects.CUDA, "WGSL": sampleDialects.WGSL, "GLSL": sampleDialects.GLSL,
		"GLSLES": sampleDialects.GLSLES, "MSL": sampleDialects.MSL,
		"Saxpy": string(sampleDialects.SPIRVKernels["Saxpy"]), "Other": string(sampleDialects.SPIRVKernels["Other"]),
	} {
		assert.Equal(t, want, fields[field], field)
	}
	assert.Contains(t, text, "CUDA: `extern", "text without backquotes is a raw literal")

	// The same input gives the same bytes.
	code, _, stderr = runArgs(t, "kernels", "--dir", dir)
	require.Equal(t, exitOK, code, stderr)
	again, err := os.ReadFile(filepath.Join(dir, "lin_kernels_gen.go"))
	require.NoError(t, err)
	assert.Equal(t, string(src), string(again))
}

func TestKernelsFlags(t *testing.T) {
	dir := kernelPackage(t, map[string]string{"k.go": "package lin\n"})
	fakeKernels(t, sampleDialects, nil)
	code, _, stderr := runArgs(t, "kernels", "--dir", dir, "--var", "Lin", "--name", "linear", "--out", "gen.go")
	require.Equal(t, exitOK, code, stderr)
	src, err := os.ReadFile(filepath.Join(dir, "gen.go"))
	require.NoError(t, err)
	assert.Contains(t, string(src), "var Lin = backend.Source{")
	assert.Equal(t, "linear", sourceFields(t, src)["Name"])
}

func TestKernelsErrors(t *testing.T) {
	pkg := map[string]string{"k.go": "package lin\n"}
	for _, tc := range []struct {
		name   string
		args   []string
		files  map[string]string
		d      kernelDialects
		err    error
		code   int
		stderr []string
	}{
		{name: "translation errors, one per line", files: pkg, d: sampleDialects,
			err:    errors.New("k.go:3:2: a map is not allowed; use a buffer\nk.go:7:9: defer is not allowed; call the function at the end"),
			code:   exitFail,
			stderr: []string{"k.go:3:2: a map is not allowed; use a buffer\n", "k.go:7:9: defer is not allowed; call the function at the end\n"}},
		{name: "no kernel", files: pkg, code: exitFail, stderr: []string{"no //gpu:kernel function in package lin"}},
		{name: "no Go files", files: map[string]string{"a_test.go": "package lin\n"}, d: sampleDialects, code: exitFail, stderr: []string{"gpu kernels: "}},
		{name: "bad var", args: []string{"--var", "1x"}, files: pkg, d: sampleDialects, code: exitUsage, stderr: []string{`--var "1x" is not a Go identifier`}},
		{name: "extra argument", args: []string{"x"}, files: pkg, d: sampleDialects, code: exitUsage, stderr: []string{`unexpected argument "x"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := kernelPackage(t, tc.files)
			fakeKernels(t, tc.d, tc.err)
			code, _, stderr := runArgs(t, append([]string{"kernels", "--dir", dir}, tc.args...)...)
			assert.Equal(t, tc.code, code, stderr)
			for _, want := range tc.stderr {
				assert.Contains(t, stderr, want)
			}
			_, err := os.Stat(filepath.Join(dir, "lin_kernels_gen.go"))
			assert.True(t, os.IsNotExist(err), "nothing is written on failure")
		})
	}
}

func TestKernelsHelp(t *testing.T) {
	code, stdout, _ := runArgs(t, "kernels", "-h")
	require.Equal(t, exitOK, code)
	for _, want := range []string{"//go:generate go run github.com/anygpu/gpu/cmd/gpu kernels", "--dir", "--var", "--name", "--out", "go doc\ngithub.com/anygpu/gpu/kernel", "file:line:col"} {
		assert.Contains(t, stdout, want)
	}
	_, stdout, _ = runArgs(t, "help")
	assert.Contains(t, stdout, "kernels")
}

// The subgroup variant is written as Subgroups: a nested backend.Source of
// its dialects (its own SPIR-V by kernel), and nothing when there is none.
func TestKernelsWritesSubgroups(t *testing.T) {
	for _, tc := range []struct {
		name string
		sg   *gpu.Source
	}{
		{"none", nil},
		{"variant", &gpu.Source{Name: "lin", WGSL: "enable subgroups;\n@compute fn Saxpy() {}\n", GLSL: "#version 430\n// sg\n",
			GLSLES: "#version 310 es\n// sg\n", SPIRVKernels: map[string][]byte{"Saxpy": {0x03, 0x02, 0x23, 0x07, 'S', 'G'}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := sampleDialects
			d.SPIRVKernels = map[string][]byte{"Other": {1}}
			d.Subgroups = tc.sg
			src, err := renderKernelsFile("lin", "Kernels", "lin", d)
			require.NoError(t, err)
			text := string(src)
			if tc.sg == nil {
				assert.NotContains(t, text, "Subgroups")
				return
			}
			f, err := parser.ParseFile(token.NewFileSet(), "gen.go", src, 0)
			require.NoError(t, err)
			var sub ast.Node
			ast.Inspect(f, func(n ast.Node) bool {
				if kv, ok := n.(*ast.KeyValueExpr); ok {
					if id, ok := kv.Key.(*ast.Ident); ok && id.Name == "Subgroups" {
						sub = kv.Value
					}
				}
				return sub == nil
			})
			require.NotNil(t, sub, "a Subgroups field")
			fields := map[string]string{}
			ast.Inspect(sub, func(n ast.Node) bool {
				kv, ok := n.(*ast.KeyValueExpr)
				if !ok {
					return true
				}
				key := ""
				switch k := kv.Key.(type) {
				case *ast.Ident:
					key = k.Name
				case *ast.BasicLit:
					key, _ = strconv.Unquote(k.Value)
				}
				v := kv.Value
				if call, ok := v.(*ast.CallExpr); ok && len(call.Args) == 1 {
					v = call.Args[0]
				}
				if lit, ok := v.(*ast.BasicLit); ok && lit.Kind == token.STRING {
					fields[key], err = strconv.Unquote(lit.Value)
					require.NoError(t, err)
				}
				return true
			})
			assert.NotContains(t, fields, "Other", "only the variant's kernels")
			assert.NotContains(t, fields, "CUDA")
			for field, want := range map[string]string{"WGSL": tc.sg.WGSL, "GLSL": tc.sg.GLSL, "GLSLES": tc.sg.GLSLES, "Saxpy": string(tc.sg.SPIRVKernels["Saxpy"])} {
				assert.Equal(t, want, fields[field], field)
			}
			again, err := renderKernelsFile("lin", "Kernels", "lin", d)
			require.NoError(t, err)
			assert.Equal(t, text, string(again))
		})
	}
}
