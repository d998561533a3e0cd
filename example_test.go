package gpu_test

import (
	"context"
	"fmt"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/errors"
	"github.com/anygpu/gpu/kernels"
)

// Open the CPU device explicitly, copy a slice to it and back.
func ExampleFromSlice() {
	ctx := context.Background()
	dev, err := gpu.Open(ctx, gpu.WithBackends("cpu"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer dev.Close()
	buf, err := gpu.FromSlice(ctx, dev, []float32{1, 2, 3})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer buf.Close()
	out, err := gpu.ToSlice[float32](ctx, buf)
	fmt.Println(out, err, buf.Size())
	// Output: [1 2 3] <nil> 12
}

// Launch a built-in kernel: y = 2*x + y.
func ExampleStream_Launch() {
	ctx := context.Background()
	dev, err := gpu.Open(ctx, gpu.WithBackends("cpu"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer dev.Close()
	x, _ := gpu.FromSlice(ctx, dev, []float32{1, 2, 3, 4})
	y, _ := gpu.FromSlice(ctx, dev, []float32{10, 20, 30, 40})
	mod, err := dev.Compile(ctx, kernels.Source())
	if err != nil {
		fmt.Println(err)
		return
	}
	axpy, _ := mod.Kernel(kernels.OpAxpy)
	s := dev.DefaultStream()
	if err := s.Launch(axpy, gpu.D1(1), gpu.D1(256), gpu.Buf(y), gpu.Buf(x), gpu.U32(4), gpu.F32(2)); err != nil {
		fmt.Println(err)
		return
	}
	out, err := gpu.ToSlice[float32](ctx, y)
	fmt.Println(out, err)
	// Output: [12 24 36 48] <nil>
}

// A kernel of your own, in Go for the CPU backend (other backends use the
// Source's CUDA, SPIR-V, GLSL, WGSL or MSL text).
func ExampleSource() {
	ctx := context.Background()
	dev, _ := gpu.Open(ctx, gpu.WithBackends("cpu"))
	defer dev.Close()
	square := gpu.Source{
		Name: "square",
		Go: map[string]gpu.GoKernel{"square": func(g gpu.Group, args []gpu.KernelArg) {
			v := args[0].Float32s()
			lo, hi := g.Span(args[1].Int())
			for i := lo; i < hi; i++ {
				v[i] *= v[i]
			}
		}},
		Params: map[string][]gpu.ArgKind{"square": {gpu.KindBuffer, gpu.KindU32}},
	}
	mod, _ := dev.Compile(ctx, square)
	k, _ := mod.Kernel("square")
	buf, _ := gpu.FromSlice(ctx, dev, []float32{1, 2, 3})
	_ = dev.DefaultStream().Launch(k, gpu.D1(1), gpu.D1(64), gpu.Buf(buf), gpu.U32(3))
	out, _ := gpu.ToSlice[float32](ctx, buf)
	fmt.Println(out)

	// A wrong argument list is refused before it reaches the device.
	err := dev.DefaultStream().Launch(k, gpu.D1(1), gpu.D1(64), gpu.Buf(buf))
	fmt.Println(errors.CategoryOf(err))
	// Output:
	// [1 4 9]
	// invalid argument
}

// Errors carry a category and a hint.
func ExampleDevice_Alloc() {
	dev, _ := gpu.Open(context.Background(), gpu.WithBackends("cpu"))
	defer dev.Close()
	_, err := dev.Alloc(1 << 60)
	fmt.Println(errors.Is(err, errors.OutOfMemory), errors.Hint(err) != "")
	// Output: true true
}

// Probe reports every backend's state without opening anything.
func ExampleProbe() {
	rep := gpu.Probe(context.Background())
	cpu, _ := rep.Backend("cpu")
	fmt.Println(cpu.State, len(cpu.Devices))
	// Output: available 1
}

// Record a step once and replay it: y = 2*x + y, three times, with one
// Graph.Launch each (one native submission on CUDA).
func ExampleStream_BeginCapture() {
	ctx := context.Background()
	dev, err := gpu.Open(ctx, gpu.WithBackends("cpu"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer dev.Close()
	x, _ := gpu.FromSlice(ctx, dev, []float32{1, 2, 3, 4})
	y, _ := gpu.FromSlice(ctx, dev, []float32{0, 0, 0, 0})
	mod, err := dev.Compile(ctx, kernels.Source())
	if err != nil {
		fmt.Println(err)
		return
	}
	axpy, _ := mod.Kernel(kernels.OpAxpy)
	s, _ := dev.NewStream()
	defer s.Close()
	if err := s.BeginCapture(); err != nil {
		fmt.Println(err)
		return
	}
	_ = s.Launch(axpy, gpu.D1(1), gpu.D1(256), gpu.Buf(y), gpu.Buf(x), gpu.U32(4), gpu.F32(2))
	fmt.Println(errors.CategoryOf(s.Synchronize(ctx))) // refused while capturing
	g, err := s.EndCapture()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer g.Close()
	for range 3 {
		if err := g.Launch(s); err != nil {
			fmt.Println(err)
			return
		}
	}
	_ = s.Synchronize(ctx)
	out, err := gpu.ToSlice[float32](ctx, y)
	fmt.Println(out, err, g.Ops(), dev.Stats().GraphLaunches)
	// Output:
	// invalid argument
	// [6 12 18 24] <nil> 1 3
}
