// Package handwritten holds the CPU backend's built-in kernels as they were
// written by hand in Go (gokernels.go), before the built-ins were written
// once in the kernel language (kernels/internal/ops, kernels.Source). It is
// a baseline for measurement only: the benchmarks of package kernels
// (BenchmarkGoKernelsOneCore, BenchmarkReduceSumGo, BenchmarkBuiltins on the
// CPU) time the generated Go against it, and a test of package kernels
// checks it against the host references. Only test files import it; no
// backend runs it. The hand-written texts of the other dialects (CUDA, GLSL,
// SPIR-V, WGSL, MSL) were deleted once the generated ones measured at least
// 0.98× them on every GPU backend (the README has the figures).
package handwritten
