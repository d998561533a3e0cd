package gpu

import (
	"fmt"
	"strings"

	"github.com/anygpu/gpu/backend"
)

// IncludePath adds directories that #include searches, in order, before the
// compiler's own (on CUDA, before the CUDA headers, which are found without
// options). Backends whose compiler reads no files ignore it.
func IncludePath(dirs ...string) CompileOption {
	return func(o *backend.CompileOptions) { o.IncludePaths = append(o.IncludePaths, dirs...) }
}

// Header provides an in-memory header: `#include "name"` reads content.
func Header(name, content string) CompileOption {
	return func(o *backend.CompileOptions) {
		if o.Headers == nil {
			o.Headers = map[string]string{}
		}
		o.Headers[name] = content
	}
}

// KernelNames lists C++ entry points the program will be asked for by
// Module.Kernel — template instantiations ("softmax<float, 128>") or
// functions not declared extern "C" — so that one compile resolves them all
// (CUDA: NVRTC name expressions). Without it the CUDA backend compiles the
// source again for each such name Module.Kernel is first asked for.
func KernelNames(names ...string) CompileOption {
	return func(o *backend.CompileOptions) { o.KernelNames = append(o.KernelNames, names...) }
}

// MaxRegisters caps the registers a thread of the module's kernels uses
// (CUDA: --maxrregcount); n is 1 to 255.
func MaxRegisters(n int) CompileOption {
	return func(o *backend.CompileOptions) { o.MaxRegisters = n }
}

// LaunchBounds tells the compiler the block size the module's kernels are
// launched with, so that it limits each thread's registers to what lets a
// block of maxThreadsPerBlock threads run (CUDA: the module is compiled to
// PTX and loaded with CU_JIT_THREADS_PER_BLOCK, which, unlike
// __launch_bounds__ in the source, does not forbid larger blocks).
func LaunchBounds(maxThreadsPerBlock int) CompileOption {
	return func(o *backend.CompileOptions) { o.MaxThreadsPerBlock = maxThreadsPerBlock }
}

// OptimizationLevel sets the device code optimisation level, 0 (none) to 4
// (the most, the compilers' default). CUDA: the module is compiled to PTX and
// loaded with CU_JIT_OPTIMIZATION_LEVEL.
func OptimizationLevel(level int) CompileOption {
	return func(o *backend.CompileOptions) { o.OptLevel = &level }
}

// checkCompileOptions reports the first option out of range.
func checkCompileOptions(o *backend.CompileOptions) error {
	switch {
	case o.MaxRegisters < 0 || o.MaxRegisters > 255:
		return fmt.Errorf("MaxRegisters(%d): want 1 to 255 (0 for no cap)", o.MaxRegisters)
	case o.MaxThreadsPerBlock < 0:
		return fmt.Errorf("LaunchBounds(%d): want a positive number of threads", o.MaxThreadsPerBlock)
	case o.OptLevel != nil && (*o.OptLevel < 0 || *o.OptLevel > 4):
		return fmt.Errorf("OptimizationLevel(%d): want 0 to 4", *o.OptLevel)
	}
	for _, d := range o.IncludePaths {
		if strings.TrimSpace(d) == "" {
			return fmt.Errorf("IncludePath: an empty directory name")
		}
	}
	for name := range o.Headers {
		if strings.TrimSpace(name) == "" {
			return fmt.Errorf("Header: an empty include name")
		}
	}
	for _, n := range o.KernelNames {
		if strings.TrimSpace(n) == "" {
			return fmt.Errorf("KernelNames: an empty name")
		}
	}
	return nil
}
