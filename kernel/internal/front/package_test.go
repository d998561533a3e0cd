package front

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu/kernel/internal/ir"
)

// mainProgram is a whole program: a kernel next to func main, which uses
// packages the front end only knows as stand-ins.
const mainProgram = `package main

import (
	"context"
	"fmt"
	"log"

	"github.com/anygpu/gpu"
	_ "github.com/anygpu/gpu/backend/all"
	"github.com/anygpu/gpu/kernel"
)

//gpu:kernel
func Smooth(y, x []float32, n uint32, w float32) {
	i := kernel.GlobalX()
	if i >= n {
		return
	}
	y[i] = w * x[i]
}

func main() {
	dev, err := gpu.Open(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(dev)
}
`

// funcNames are the names of the module's functions, helpers first.
func funcNames(m *ir.Module) []string {
	var names []string
	for _, f := range m.Funcs {
		names = append(names, f.Name)
	}
	return names
}

// TestPackage checks that kernels translate from the files of a real
// package: any import, ordinary code next to the kernels (never checked
// against the language, its type errors ignored), package kernel by any name.
func TestPackage(t *testing.T) {
	tests := []struct {
		name  string
		files []File
		want  []string // the module's functions
	}{
		{"package main with a kernel", []File{{"main.go", mainProgram}}, []string{"Smooth"}},
		{"package-level constants and types", []File{{"t.go", `package p
import "github.com/anygpu/gpu/kernel"
const (
	a = iota + 1
	b
	unused = "text"
)
const w = 0.5
type real32 float32
//gpu:kernel
func K(y []float32) { y[kernel.GlobalX()] = float32(real32(w) * b) }
`}}, []string{"K"}},
		{"non-kernel code with type errors", []File{{"t.go", `package p
import (
	"fmt"
	"github.com/anygpu/gpu/kernel"
)
const broken = fmt.Sprint(1)
var count int = "many"
func report() { fmt.Println(undefinedThing, count) }
//gpu:kernel
func K(y []float32) { y[kernel.GlobalX()] = 1 }
`}}, []string{"K"}},
		{"non-kernel code outside the language", []File{{"t.go", `package p
import (
	"sync"
	"github.com/anygpu/gpu/kernel"
)
type pool[T any] struct{ items []T; mu sync.Mutex }
func (p *pool[T]) put(x T) { p.mu.Lock(); defer p.mu.Unlock(); p.items = append(p.items, x) }
func run(f func()) { done := make(chan bool); go func() { f(); done <- true }(); <-done }
func sq(x float32) float32 { return x * x }
//gpu:kernel
func K(y []float32) { y[kernel.GlobalX()] = sq(y[0]) }
`}}, []string{"sq", "K"}},
		{"package kernel under another name, helper in another file", []File{
			{"a.go", "package p\n\nimport k \"github.com/anygpu/gpu/kernel\"\n\n//gpu:kernel\nfunc K(y []float32) { y[k.GlobalX()] = h(y[0]) }\n"},
			{"b.go", "package p\n\nimport \"strings\"\n\nfunc h(x float32) float32 { return -x }\n\nvar s = strings.ToUpper(\"x\")\n"},
		}, []string{"h", "K"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := Load(tt.files)
			require.NoError(t, err)
			assert.Equal(t, tt.want, funcNames(m))
		})
	}
}

// TestPackageSmooth checks the kernel of mainProgram in detail.
func TestPackageSmooth(t *testing.T) {
	m, err := Load([]File{{"main.go", mainProgram}})
	require.NoError(t, err)
	k := m.Kernels()
	require.Len(t, k, 1)
	var params []string
	for _, p := range k[0].Params {
		params = append(params, p.Name+" "+typeString(p.Type))
	}
	assert.Equal(t, []string{"y []float32", "x []float32", "n uint32", "w float32"}, params)
	assert.Equal(t, ir.Pos{File: "main.go", Line: 14, Col: 6}, k[0].Pos)
}

// TestPackageErrors checks the errors that matter in a package: those inside
// the kernels, the helpers they call and the constants and types they use,
// and every use of another package there.
func TestPackageErrors(t *testing.T) {
	const head = "package p\n\nimport (\n\t\"fmt\"\n\t\"math\"\n\n\t\"github.com/anygpu/gpu\"\n\t\"github.com/anygpu/gpu/kernel\"\n)\n\nvar _ = kernel.Barrier\nvar _ = fmt.Sprint\nvar _ = math.Pi\nvar _ = gpu.Open\n\n"
	const line = 16 // the first line after head
	tests := []struct {
		name, src string
		want      []string
	}{
		{"math.Sqrt in a kernel", "//gpu:kernel\nfunc K(y []float64) { y[0] = math.Sqrt(y[1]) }", []string{
			"t.go:17:30: math.Sqrt is from package math: a kernel uses only package kernel and the declarations of its own package; use kernel.Sqrt"}},
		{"math.Pi in a helper", "func h() float32 { return math.Pi }\n//gpu:kernel\nfunc K(y []float32) { y[0] = h() }", []string{
			"t.go:16:27: math.Pi is from package math: a kernel uses only package kernel and the declarations of its own package; declare a constant of your own package (const pi = 3.141592653589793), or pass the value as a parameter"}},
		{"fmt in a constant a kernel uses", "const n = len(fmt.Sprint(1))\n//gpu:kernel\nfunc K(y []int32) { y[0] = n }", []string{
			"t.go:16:15: fmt.Sprint is from package fmt: a kernel uses only package kernel and the declarations of its own package; declare a constant, type or helper function in the kernel's own package, or pass the value as a parameter"}},
		{"a type of package gpu", "//gpu:kernel\nfunc K(y []float32) {\n\tvar d gpu.Device\n\t_ = d\n}", []string{
			"t.go:18:8: gpu.Device is from package github.com/anygpu/gpu: a kernel uses only package kernel and the declarations of its own package; declare what the kernel needs in its own package, or pass it as a parameter; package gpu is for the host code that launches it"}},
		{"a type error in a constant a kernel uses", "const (\n\tok = 1\n\tbad int32 = \"x\"\n\tworse\n)\n//gpu:kernel\nfunc K(y []int32) { y[0] = worse + ok }", []string{
			`t.go:18:14: cannot use "x" (untyped string constant) as int32 value in constant declaration`,
			`t.go:19:2: cannot use "x" (untyped string constant) as int32 value in constant declaration`}},
		{"a type error in a helper, one elsewhere", "func h(x int32) int32 { return x + \"1\" }\nfunc other() { var s string = 1; _ = s }\n//gpu:kernel\nfunc K(y []int32) { y[0] = h(1) }", []string{
			`t.go:16:32: invalid operation: x + "1" (mismatched types int32 and untyped string)`}},
		{"a variable that does not type-check", "var g = fmt.Sprint(1)\n//gpu:kernel\nfunc K(y []float32) { y[0] = g }", []string{
			"t.go:18:30: g does not type-check, so a kernel cannot use it; fix its declaration (go build or go vet shows the error)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load([]File{{Name: "t.go", Src: head + tt.src}})
			list := errorsOf(t, err)
			var got []string
			for _, e := range list {
				got = append(got, e.Error())
			}
			assert.Equal(t, tt.want, got)
			assert.Equal(t, line, strings.Count(head, "\n")+1, "the line numbers above count from line")
		})
	}
}

// TestImportsOfKernel checks that package kernel is imported by name: a blank
// or dot import is an error at the import.
func TestImportsOfKernel(t *testing.T) {
	for _, name := range []string{"_", "."} {
		t.Run(name, func(t *testing.T) {
			_, err := Load([]File{{Name: "t.go", Src: "package p\n\nimport " + name + " \"github.com/anygpu/gpu/kernel\"\n\n//gpu:kernel\nfunc K(y []float32) { y[0] = 1 }\n"}})
			list := errorsOf(t, err)
			require.Len(t, list, 1)
			assert.Equal(t, "t.go:3:8: import "+name+` of package kernel is not allowed; import it by name: import "github.com/anygpu/gpu/kernel"`, list[0].Error())
		})
	}
}

// TestPackageNames checks that the files are of one package.
func TestPackageNames(t *testing.T) {
	_, err := Load([]File{
		{Name: "t.go", Src: "package p\n\n//gpu:kernel\nfunc K(y []float32) { y[0] = 1 }\n"},
		{Name: "t.go", Src: "package q\n"},
	})
	list := errorsOf(t, err)
	require.Len(t, list, 1)
	assert.Equal(t, "t.go:1:9: package q is not package p of the other files; pass the files of one package", list[0].Error())
}

// TestStandInName checks the package names given to stand-ins.
func TestStandInName(t *testing.T) {
	for path, want := range map[string]string{
		"fmt": "fmt", "math/rand/v2": "rand", "github.com/anygpu/gpu": "gpu", "v": "v",
	} {
		assert.Equal(t, want, standInName(path), path)
	}
}
