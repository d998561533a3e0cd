// Command dlpack is a Go c-shared library that exchanges CUDA tensors with
// Python through DLPack: check.py (next to it) hands it a PyTorch tensor,
// the library adds 1 to it in place with a kernel and returns a new tensor,
// twice the input, that torch.from_dlpack reads. Build and run on a machine
// with a GPU, NVRTC and PyTorch:
//
//	go build -buildmode=c-shared -o /tmp/libanygpu_dlpack.so ./examples/dlpack
//	python3 examples/dlpack/check.py /tmp/libanygpu_dlpack.so
package main

/*
#include <stdint.h>
*/
import "C"

import (
	"context"
	"fmt"
	"os"
	"sync"
	"unsafe"

	"github.com/anygpu/gpu"
	_ "github.com/anygpu/gpu/backend/cuda"
	"github.com/anygpu/gpu/dlpack"
)

const kernels = `
extern "C" __global__ void add_one(float* x, unsigned n) {
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) x[i] += 1.0f;
}
extern "C" __global__ void twice(const float* x, float* y, unsigned n) {
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) y[i] = 2.0f * x[i];
}
`

var (
	once          sync.Once
	dev           *gpu.Device
	addOne, twice *gpu.Kernel
	setupErr      error
)

func setup() error {
	once.Do(func() {
		ctx := context.Background()
		if dev, setupErr = gpu.Open(ctx, gpu.WithBackends("cuda"), gpu.WithFallback(false)); setupErr != nil {
			return
		}
		var mod *gpu.Module
		if mod, setupErr = dev.Compile(ctx, gpu.Source{Name: "dlpack-example", CUDA: kernels}); setupErr != nil {
			return
		}
		if addOne, setupErr = mod.Kernel("add_one"); setupErr != nil {
			return
		}
		twice, setupErr = mod.Kernel("twice")
	})
	return setupErr
}

// anygpu_add_one_and_twice takes a DLManagedTensor* of float32 on GPU 0
// (the caller keeps ownership and has synchronized its own work on it),
// adds 1 to every element in place, and returns a new DLManagedTensor* of
// twice the result, which the caller owns (its deleter frees the memory).
// It returns NULL on error, after printing the error to stderr.
//
//export anygpu_add_one_and_twice
func anygpu_add_one_and_twice(in unsafe.Pointer) unsafe.Pointer {
	out, err := addOneAndTwice(in)
	if err != nil {
		fmt.Fprintln(os.Stderr, "anygpu:", err)
		return nil
	}
	return out
}

func addOneAndTwice(in unsafe.Pointer) (unsafe.Pointer, error) {
	if err := setup(); err != nil {
		return nil, err
	}
	ctx := context.Background()
	t, err := dlpack.Import(dev, in)
	if err != nil {
		return nil, err
	}
	defer t.Close() // the caller's tensor: Close calls its deleter; check.py renames the capsule so PyTorch does not too
	if t.DType != dlpack.Float32 {
		return nil, fmt.Errorf("want float32, got %s", t.DType)
	}
	n := t.Buffer.Size() / 4
	s := dev.DefaultStream()
	grid := gpu.D1(int((n + 255) / 256))
	if err := s.Launch(addOne, grid, gpu.D1(256), gpu.Buf(t.Buffer), gpu.U32(uint32(n))); err != nil {
		return nil, err
	}
	y, err := gpu.AllocSlice[float32](dev, int(n))
	if err != nil {
		return nil, err
	}
	if err := s.Launch(twice, grid, gpu.D1(256), gpu.Buf(t.Buffer), gpu.Buf(y), gpu.U32(uint32(n))); err != nil {
		_ = y.Close()
		return nil, err
	}
	if err := s.Synchronize(ctx); err != nil {
		_ = y.Close()
		return nil, err
	}
	out, err := dlpack.ExportOwned(y, dlpack.Float32, t.Shape)
	if err != nil {
		_ = y.Close()
		return nil, err
	}
	return out.Pointer(), nil
}

func main() {}
