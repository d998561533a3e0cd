package kernel_test

import (
	"context"
	"fmt"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/errors"
	"github.com/anygpu/gpu/kernel"
)

// A kernel translated at run time from its Go text, then run on the CPU
// backend (any other backend compiles the same Source).
func ExampleTranslate() {
	src, err := kernel.Translate(`package demo

import "github.com/anygpu/gpu/kernel"

//gpu:kernel
func Square(v []float32, n uint32) {
	if i := kernel.GlobalX(); i < n {
		v[i] *= v[i]
	}
}
`)
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	dev, err := gpu.Open(ctx, gpu.WithBackends("cpu"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer dev.Close()
	mod, _ := dev.Compile(ctx, src)
	square, _ := mod.Kernel("Square")
	buf, _ := gpu.FromSlice(ctx, dev, []float32{1, 2, 3})
	_ = dev.DefaultStream().Launch(square, gpu.D1(1), gpu.D1(64), gpu.Buf(buf), gpu.U32(3))
	out, _ := gpu.ToSlice[float32](ctx, buf)
	fmt.Println(src.Params["Square"], out)
	// Output: [buffer u32] [1 4 9]
}

// What the language does not accept is an error at its position in the Go
// source, saying what to write instead.
func ExampleTranslate_error() {
	_, err := kernel.Translate(`package demo

import "github.com/anygpu/gpu/kernel"

//gpu:kernel
func Fill(v []float32) {
	for i := range len(v) {
		v[i] = float32(kernel.ThreadX())
	}
}
`)
	fmt.Println(errors.CategoryOf(err))
	fmt.Println(errors.LogOf(err))
	// Output:
	// compilation
	// kernel.go:7:17: len of a buffer is not allowed in a kernel; pass the length as a uint32 parameter
}
