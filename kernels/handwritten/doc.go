// Package handwritten keeps the built-in ops as they were written by hand,
// once per dialect (CUDA C++, SPIR-V compiled from the GLSL in vulkan/, GLSL,
// WGSL, MSL and Go), before package kernels generated them from one Go source
// (kernels/internal/ops). Only tests and benchmarks use it: `gpu bench
// --kernels handwritten` times these kernels against the generated ones so
// that the comparison can be recorded. It goes away once it has been.
//
// Source has the same name ("builtin"), entry points and parameters
// (kernels.Params) as kernels.Source.
package handwritten
