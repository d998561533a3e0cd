package front

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// firstError loads src and returns its errors, which must exist.
func errorsOf(t *testing.T, err error) ErrorList {
	t.Helper()
	require.Error(t, err)
	var list ErrorList
	require.True(t, errors.As(err, &list), "the error is an ErrorList")
	require.NotEmpty(t, list)
	for _, e := range list {
		assert.Equal(t, "t.go", e.Pos.File, "every error has a position: %v", e)
		assert.Positive(t, e.Pos.Line, "every error has a position: %v", e)
	}
	return list
}

// TestReject checks that every construct outside the language is an error
// at its position, saying what is not allowed and what to write instead.
// The sources start on line 7 (header).
func TestReject(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"map", "//gpu:kernel\nfunc K(y []float32) {\n\tvar m map[int32]float32\n\ty[0] = m[0]\n}",
			"t.go:9:6: variable m of type map[int32]float32 (a map) is not allowed in a kernel; use an array or a buffer indexed by the key"},
		{"closure", "//gpu:kernel\nfunc K(y []float32) {\n\tf := func() float32 { return 1 }\n\ty[0] = f()\n}",
			"t.go:9:7: closures (function literals) are not allowed in a kernel; write a helper function at package level and call it"},
		{"goroutine", "func h() {}\n//gpu:kernel\nfunc K(y []float32) {\n\tgo h()\n}",
			"t.go:10:2: goroutines are not allowed in a kernel; every thread of the launch runs the kernel already: split the work by kernel.GlobalX()"},
		{"channel parameter", "//gpu:kernel\nfunc K(y []float32, c chan int32) {}",
			"t.go:8:21: parameter c of type chan int32 is not allowed in a kernel; pass buffers as slices of scalars and scalars as int32, uint32, float32, int64, uint64 or float64"},
		{"select", "//gpu:kernel\nfunc K(y []float32) {\n\tselect {}\n}",
			"t.go:9:2: select (channels) is not allowed in a kernel; threads of a group share data through kernel.Shared arrays and kernel.Barrier"},
		{"defer", "//gpu:kernel\nfunc K(y []float32) {\n\tdefer kernel.Barrier()\n}",
			"t.go:9:2: defer is not allowed in a kernel; call it at the end of the function"},
		{"interface", "//gpu:kernel\nfunc K(y []float32) {\n\tvar x any = y[0]\n\t_ = x\n}",
			"t.go:9:6: variable x of type any (an interface) is not allowed in a kernel; use a concrete scalar type"},
		{"kernel method", "type T struct{}\n//gpu:kernel\nfunc (T) K(y []float32) {}",
			"t.go:9:10: a kernel cannot be a method; make it a plain function"},
		{"method call", "type T int32\nfunc (t T) Get() int32 { return int32(t) }\n//gpu:kernel\nfunc K(y []int32) {\n\tvar t T\n\ty[0] = t.Get()\n}",
			"t.go:12:9: method calls are not allowed in a kernel; write a helper function that takes the value as a parameter"},
		{"new", "//gpu:kernel\nfunc K(y []float32) {\n\tp := new(float32)\n\ty[0] = *p\n}",
			"t.go:9:7: allocation (new) is not allowed in a kernel; declare a fixed-size array (var a [256]float32) or a shared one (kernel.Shared)"},
		{"append", "//gpu:kernel\nfunc K(y []float32) {\n\t_ = append(y, 1)\n}",
			"t.go:9:6: allocation (append) is not allowed in a kernel; declare a fixed-size array (var a [256]float32) or a shared one (kernel.Shared)"},
		{"string", "//gpu:kernel\nfunc K(y []float32) {\n\ts := \"abc\"\n\ty[0] = float32(len(s))\n}",
			"t.go:9:7: constant of type string is not allowed in a kernel; use numbers"},
		{"recursion", "func f(x int32) int32 {\n\tif x < 1 {\n\t\treturn 0\n\t}\n\treturn f(x - 1)\n}\n//gpu:kernel\nfunc K(y []int32) { y[0] = f(y[1]) }",
			"t.go:11:9: recursion is not allowed in a kernel (f → f); rewrite it as a loop"},
		{"mutual recursion", "func g(x int32) int32 { return h(x) }\nfunc h(x int32) int32 { return g(x) }\n//gpu:kernel\nfunc K(y []int32) { y[0] = g(y[1]) }",
			"t.go:8:32: recursion is not allowed in a kernel (g → h → g); rewrite it as a loop"},
		{"panic", "//gpu:kernel\nfunc K(y []float32) {\n\tpanic(\"no\")\n}",
			"t.go:9:2: panic is not allowed in a kernel; write an error code to a buffer and return"},
		{"address", "//gpu:kernel\nfunc K(y []float32) {\n\tx := y[0]\n\tp := &x\n\ty[1] = *p\n}",
			"t.go:10:7: taking an address (&) is not allowed in a kernel; pointers are taken only as an atomic's first argument, kernel.AtomicAdd(&buf[i], v), and as the fragments of kernel.MMA and kernel.LoadMatrices4 and 2, kernel.MMA(&acc[j], &a, &b, p)"},
		{"atomic on a local", "//gpu:kernel\nfunc K(y []int32) {\n\tvar a [2]int32\n\ty[0] = kernel.AtomicAdd(&a[0], 1)\n}",
			"t.go:10:26: kernel.AtomicAdd of an element of a local array is not allowed: it works on an element of a buffer or a shared array; take the address of an element: kernel.AtomicAdd(&buf[i], v)"},
		{"len of a buffer", "//gpu:kernel\nfunc K(y []float32) {\n\ty[0] = float32(len(y))\n}",
			"t.go:9:17: len of a buffer is not allowed in a kernel; pass the length as a uint32 parameter"},
		{"switch", "//gpu:kernel\nfunc K(y []float32) {\n\tswitch y[0] {\n\t}\n}",
			"t.go:9:2: switch is not allowed in a kernel; write if / else if / else"},
		{"goto", "//gpu:kernel\nfunc K(y []float32) {\n\tgoto done\ndone:\n\ty[0] = 1\n}",
			"t.go:9:2: goto is not allowed in a kernel; use a loop with break or continue"},
		{"label on a block", "//gpu:kernel\nfunc K(y []float32) {\nL:\n\ty[0] = 1\n\tgoto L\n}",
			"t.go:9:1: label L on a statement other than a for loop is not allowed; label only for loops (break L and continue L leave or continue them)"},
		{"struct", "type P struct{ X, Y float32 }\n//gpu:kernel\nfunc K(y []float32) {\n\tvar p P\n\ty[0] = p.X\n}",
			"t.go:10:6: variable p of type p.P (a struct other than kernel.Float4) is not allowed in a kernel; use kernel.Float4, separate variables or arrays"},
		{"slice of slices", "//gpu:kernel\nfunc K(y [][]float32) {}",
			"t.go:8:8: parameter y of type [][]float32 (a slice of slices) is not allowed; flatten it into one buffer and index it with i*stride + j"},
		{"bool buffer", "//gpu:kernel\nfunc K(y []bool) {}",
			"t.go:8:8: parameter y of type []bool is not allowed; use a []uint32"},
		{"bool parameter", "//gpu:kernel\nfunc K(y []float32, b bool) {}",
			"t.go:8:21: parameter b of type bool is not allowed in a kernel; pass a uint32 (0 or 1) and compare it with 0"},
		{"kernel result", "//gpu:kernel\nfunc K(y []float32) float32 { return 0 }",
			"t.go:8:21: a kernel returns nothing; write results to a buffer parameter"},
		{"multiple results", "func two() (int32, int32) { return 1, 2 }\n//gpu:kernel\nfunc K(y []int32) {\n\ta, b := two()\n\ty[0] = a + b\n}",
			"t.go:10:10: multiple results are not allowed in a kernel; return one value from a helper"},
		{"helper with multiple results", "func two(x int32) (int32, int32) { return x, x }\n//gpu:kernel\nfunc K(y []int32) {\n\ta, _ := two(y[0])\n\ty[0] = a\n}",
			"t.go:10:10: multiple results are not allowed in a kernel; return one value from a helper"},
		{"global variable", "var g float32\n//gpu:kernel\nfunc K(y []float32) { y[0] = g }",
			"t.go:9:30: global variable g is not allowed in a kernel; pass it as a parameter, or declare it const"},
		{"helper takes a buffer", "func h(b []float32) float32 { return b[0] }\n//gpu:kernel\nfunc K(y []float32) { y[0] = h(y) }",
			"t.go:7:8: helper h cannot take a buffer (parameter b of type []float32); do it in the kernel, or pass the elements' values"},
		{"helper takes a shared array", "func h(b *[4]float32) float32 { return b[0] }\n//gpu:kernel\nfunc K(y []float32) {\n\ts := kernel.Shared[[4]float32]()\n\ty[0] = h(s)\n}",
			"t.go:7:8: helper h cannot take a pointer or a shared array (parameter b of type *[4]float32); do it in the kernel, or pass the values"},
		{"barrier in a helper", "func h() {\n\tkernel.Barrier()\n}\n//gpu:kernel\nfunc K(y []float32) { h() }",
			"t.go:8:2: kernel.Barrier in a helper is not allowed; do it in the kernel"},
		{"shared in a helper", "func h() float32 {\n\ts := kernel.Shared[[4]float32]()\n\treturn s[0]\n}\n//gpu:kernel\nfunc K(y []float32) { y[0] = h() }",
			"t.go:8:7: kernel.Shared in a helper is not allowed; declare it in the kernel"},
		{"shared in a block", "//gpu:kernel\nfunc K(y []float32) {\n\tif y[0] > 0 {\n\t\ts := kernel.Shared[[4]float32]()\n\t\ts[0] = 1\n\t}\n}",
			"t.go:10:8: kernel.Shared inside a block is not allowed; declare it among the kernel body's top-level statements: sh := kernel.Shared[[256]float32]()"},
		{"shared of a scalar", "//gpu:kernel\nfunc K(y []float32) {\n\ts := kernel.Shared[float32]()\n\ty[0] = *s\n}",
			"t.go:9:7: kernel.Shared of float32 is not allowed: it takes an array type; kernel.Shared[[256]float32]()"},
		{"kernel calls a kernel", "//gpu:kernel\nfunc L(y []float32) {}\n//gpu:kernel\nfunc K(y []float32) { L(y) }",
			"t.go:10:23: calling kernel L from a kernel is not allowed; move the shared code into a helper function that both call"},
		{"array literal", "//gpu:kernel\nfunc K(y []float32) {\n\ta := [2]float32{1, 2}\n\ty[0] = a[1]\n}",
			"t.go:9:7: array literals are not allowed in a kernel; declare it (var a [4]float32) and assign the elements"},
		{"range over a buffer", "//gpu:kernel\nfunc K(y []float32) {\n\tfor i := range y {\n\t\ty[i] = 0\n\t}\n}",
			"t.go:9:17: range over a buffer is not allowed in a kernel; range over an integer: for i := range n (a length parameter for a buffer, len(a) for an array)"},
		{"slicing", "//gpu:kernel\nfunc K(y []float32) {\n\tz := y[1:]\n\tz[0] = 1\n}",
			"t.go:9:7: slicing is not allowed in a kernel; pass an offset as a parameter and index with it"},
		{"int8", "//gpu:kernel\nfunc K(y []float32) {\n\tvar b int8\n\ty[0] = float32(b)\n}",
			"t.go:9:6: variable b of type int8 is not allowed in a kernel; use int32"},
		{"generic helper", "func h[T int32 | float32](x T) T { return x }\n//gpu:kernel\nfunc K(y []float32) { y[0] = h(y[1]) }",
			"t.go:7:7: a helper cannot be generic; write one function per type"},
		{"generic kernel", "//gpu:kernel\nfunc K[T float32](y []T) {}",
			"t.go:8:7: a kernel cannot be generic; write one function per type"},
		{"buffer as a value", "//gpu:kernel\nfunc K(y []float32) {\n\tz := y\n\tz[0] = 1\n}",
			"t.go:9:7: buffer y used as a value is not allowed; index it (y[i]); pass lengths and offsets as scalar parameters"},
		{"assign a buffer", "//gpu:kernel\nfunc K(y, x []float32) {\n\ty = x\n}",
			"t.go:9:2: assigning buffer y is not allowed; assign its elements: y[i] = v"},
		{"Float4 comparison", "//gpu:kernel\nfunc K(y []float32) {\n\tif kernel.Load4(y, 0) == kernel.Load4(y, 1) {\n\t\ty[0] = 1\n\t}\n}",
			"t.go:9:5: comparing Float4 values is not allowed in a kernel; compare the lanes: a.X == b.X && ..."},
		{"type error", "//gpu:kernel\nfunc K(y []float32) {\n\ty[0] = \"x\"\n}",
			`t.go:9:9: cannot use "x" (untyped string constant) as float32 value in assignment`},
		{"kernel without a body", "//gpu:kernel\nfunc K(y []float32)",
			"t.go:8:6: kernel K has no body; write the kernel's body in Go"},
		{"maxthreads out of range", "//gpu:kernel\n//gpu:maxthreads 2048\nfunc K(y []float32) {}",
			`t.go:8:1: malformed directive "//gpu:maxthreads 2048"; write //gpu:maxthreads N with N from 1 to 1024`},
		{"maxthreads without a number", "//gpu:kernel\n//gpu:maxthreads\nfunc K(y []float32) {}",
			`t.go:8:1: malformed directive "//gpu:maxthreads"; write //gpu:maxthreads N with N from 1 to 1024`},
		{"maxthreads on a helper", "//gpu:maxthreads 64\nfunc h() int32 { return 1 }\n//gpu:kernel\nfunc K(y []int32) { y[0] = h() }",
			"t.go:7:1: //gpu:maxthreads on helper h: only kernels are launched; put it on the kernel that calls h"},
		{"mingroups out of range", "//gpu:kernel\n//gpu:maxthreads 128\n//gpu:mingroups 33\nfunc K(y []float32) {}",
			`t.go:9:1: malformed directive "//gpu:mingroups 33"; write //gpu:mingroups N with N from 1 to 32`},
		{"mingroups without maxthreads", "//gpu:kernel\n//gpu:mingroups 2\nfunc K(y []float32) {}",
			"t.go:8:1: //gpu:mingroups without //gpu:maxthreads; add //gpu:maxthreads N above it: the groups fit by their size"},
		{"mingroups on a helper", "//gpu:mingroups 2\nfunc h() int32 { return 1 }\n//gpu:kernel\nfunc K(y []int32) { y[0] = h() }",
			"t.go:7:1: //gpu:mingroups on helper h: only kernels are launched; put it on the kernel that calls h"},
		{"variant on a helper", "//gpu:variant h2 x=1\nfunc h(x int32) int32 { return x }\n//gpu:kernel\nfunc K(y []int32) { y[0] = h(1) }",
			"t.go:7:1: //gpu:variant on helper h: only kernels have variants; put it on a kernel"},
		{"variant without a binding", "//gpu:kernel\n//gpu:variant K2\nfunc K(y []float32, n uint32) {}",
			`t.go:8:1: malformed directive "//gpu:variant K2"; write //gpu:variant NAME PARAM=VALUE ..., with NAME a new kernel name and each PARAM a scalar parameter`},
		{"variant binding without a value", "//gpu:kernel\n//gpu:variant K2 n\nfunc K(y []float32, n uint32) {}",
			`t.go:8:1: malformed directive "//gpu:variant K2 n" (n); write //gpu:variant NAME PARAM=VALUE ..., with NAME a new kernel name and each PARAM a scalar parameter`},
		{"variant of no parameter", "//gpu:kernel\n//gpu:variant K2 m=1\nfunc K(y []float32, n uint32) {}",
			"t.go:8:1: variant K2 fixes m, which is not a parameter; name a parameter of K"},
		{"variant of a buffer", "//gpu:kernel\n//gpu:variant K2 y=1\nfunc K(y []float32, n uint32) {}",
			"t.go:8:1: variant K2 fixes y, a buffer; fix a scalar parameter"},
		{"variant value out of range", "//gpu:kernel\n//gpu:variant K2 n=-1\nfunc K(y []float32, n uint32) {}",
			"t.go:8:1: variant K2: n=-1: want a uint32; write a constant of the parameter's type"},
		{"variant named as a kernel", "//gpu:kernel\n//gpu:variant K n=1\nfunc K(y []float32, n uint32) {}",
			"t.go:8:1: variant name K is taken; name the variant something no function is"},
		{"no kernel", "func h() {}", "t.go:1:1: no function is marked //gpu:kernel; mark a kernel with a line //gpu:kernel directly above its func"},
		{"variadic helper", "func h(x ...int32) int32 { return 0 }\n//gpu:kernel\nfunc K(y []int32) { y[0] = h(1, 2) }",
			"t.go:7:7: variadic parameters are not allowed in a kernel; take a fixed number of parameters"},
		{"post statement", "//gpu:kernel\nfunc K(y []int32) {\n\tfor i, j := 0, 9; i < j; i, j = i+1, j-1 {\n\t\ty[i] = y[j]\n\t}\n}",
			"t.go:9:27: this post statement of a for loop is not allowed in a kernel; make the post statement one assignment (i++, i += step) and do the rest in the body"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := load(tt.src)
			list := errorsOf(t, err)
			assert.Equal(t, tt.want, list[0].Error(), "all: %v", err)
		})
	}
}

// TestErrorList checks the sorting and the text of several errors.
func TestErrorList(t *testing.T) {
	_, err := load("//gpu:kernel\nfunc K(y []float32) {\n\tswitch {\n\t}\n\tgo K(y)\n}\n//gpu:kernel\nfunc L(y []float32, b bool) {}")
	list := errorsOf(t, err)
	assert.Equal(t, "t.go:9:2: switch is not allowed in a kernel; write if / else if / else\n"+
		"t.go:11:2: goroutines are not allowed in a kernel; every thread of the launch runs the kernel already: split the work by kernel.GlobalX()\n"+
		"t.go:14:21: parameter b of type bool is not allowed in a kernel; pass a uint32 (0 or 1) and compare it with 0", err.Error())
	assert.Len(t, list, 3)
}
