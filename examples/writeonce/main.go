// Command writeonce runs one kernel of its own, written once in Go, on every
// backend this machine has: the CUDA, Vulkan, Metal, WebGPU and OpenGL
// devices present, and the CPU. Each device's result is checked against the
// plain Go computation.
//
//	go run ./examples/writeonce
//
// The kernel's Source (CUDA C++, WGSL, SPIR-V, GLSL, MSL and compiled Go) is
// in writeonce_kernels_gen.go, written by go generate from the function below.
package main

//go:generate go run github.com/anygpu/gpu/cmd/gpu kernels

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/anygpu/gpu"
	_ "github.com/anygpu/gpu/backend/all" // link every backend
	"github.com/anygpu/gpu/kernel"
)

// Smooth writes a 3-point moving average of x into y, clamping at the ends.
//
//gpu:kernel
func Smooth(y, x []float32, n uint32, w float32) {
	i := kernel.GlobalX()
	if i >= n {
		return
	}
	left, right := i, i
	if i > 0 {
		left = i - 1
	}
	if i+1 < n {
		right = i + 1
	}
	y[i] = w*x[i] + (1-w)*0.5*(x[left]+x[right])
}

func main() {
	if err := run(context.Background()); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context) error {
	const n = 1 << 16
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(i%97) / 7
	}
	ran := 0
	for _, b := range gpu.Probe(ctx).Backends {
		if b.State != gpu.Available {
			continue
		}
		y, err := smoothOn(ctx, b.Name, x)
		if err != nil {
			return fmt.Errorf("%s: %w", b.Name, err)
		}
		worst := 0.0
		for i := range n {
			want := float64(0.5)*float64(x[i]) + 0.25*float64(x[max(i-1, 0)]+x[min(i+1, n-1)])
			worst = max(worst, abs(float64(y[i])-want))
		}
		fmt.Fprintf(os.Stdout, "%-7s %-40.40s max error %.2g\n", b.Name, b.Devices[0].Name, worst)
		if worst > 1e-4 {
			return fmt.Errorf("%s: result off by %g", b.Name, worst)
		}
		ran++
	}
	if ran == 0 {
		return fmt.Errorf("no backend available")
	}
	return nil
}

// smoothOn runs Smooth over x on the first device of the named backend.
func smoothOn(ctx context.Context, backend string, x []float32) ([]float32, error) {
	dev, err := gpu.Open(ctx, gpu.WithBackends(backend), gpu.WithFallback(false))
	if err != nil {
		return nil, err
	}
	defer dev.Close()
	mod, err := dev.Compile(ctx, Kernels)
	if err != nil {
		return nil, err
	}
	defer mod.Close()
	smooth, err := mod.Kernel("Smooth")
	if err != nil {
		return nil, err
	}
	xb, err := gpu.FromSlice(ctx, dev, x)
	if err != nil {
		return nil, err
	}
	defer xb.Close()
	yb, err := gpu.AllocSlice[float32](dev, len(x))
	if err != nil {
		return nil, err
	}
	defer yb.Close()
	block := 256
	grid := gpu.D1((len(x) + block - 1) / block)
	err = dev.DefaultStream().Launch(smooth, grid, gpu.D1(block), gpu.Buf(yb), gpu.Buf(xb), gpu.U32(uint32(len(x))), gpu.F32(0.5))
	if err != nil {
		return nil, err
	}
	return gpu.ToSlice[float32](ctx, yb)
}

func abs(v float64) float64 { return max(v, -v) }
